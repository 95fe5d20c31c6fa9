/**
 * Runs once when a server instance starts (Next.js instrumentation hook).
 *
 * The sign-in limiter needs each request's socket address, which Next 16 does not hand to route
 * handlers or server actions: stamp it on every request here (lib/auth/client-address.ts), and
 * check `CAIRN_TRUSTED_PROXIES` now so a typo stops the start instead of every sign-in.
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { installSocketAddressStamp, trustedProxiesFromEnv } =
    await import("./lib/auth/client-address");
  trustedProxiesFromEnv();
  installSocketAddressStamp();
}
