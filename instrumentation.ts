/**
 * Runs once per server process at start (Next.js instrumentation hook).
 *
 * - The sign-in limiter needs each request's socket address, which Next 16 does not hand to
 *   route handlers or server actions: stamp it on every request (lib/auth/client-address.ts).
 * - The configuration is parsed first (lib/config): a bad value of any documented variable
 *   stops the start with a message naming it, instead of failing a request later or falling
 *   back silently (decision 0033).
 * - The durability loop begins at once, so changes spooled while the database was away are
 *   imported and turns a dead process left running are closed as interrupted before anyone asks
 *   (docs/persistent-dirs.md, "Nothing lost").
 * - Starts this instance's background workers on the durable job queue. Every instance runs
 *   them; the queue hands each job to one worker. `CAIRN_WORKERS=off` keeps an instance out.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  // `next build` loads this file in its workers too: nothing to start there.
  if (process.env.NEXT_PHASE === "phase-production-build") return;
  // Every variable is parsed now: a bad value stops the start with a message naming it.
  const { cairnConfig, ConfigError } = await import("@/lib/config");
  let workers: boolean;
  try {
    workers = cairnConfig().workers;
  } catch (error) {
    if (!ConfigError.isInstance(error)) throw error;
    console.error(`cairn: ${error.message}`);
    process.exit(1);
  }
  const { installSocketAddressStamp } = await import("./lib/auth/client-address");
  installSocketAddressStamp();
  const { getDurability } = await import("@/lib/persistent-dirs");
  try {
    getDurability();
  } catch (error) {
    console.error("cairn: durability did not start; it starts with the first chat turn", error);
  }
  // The docs folder's passages (and, once, everything indexed before search existed).
  const { cairn } = await import("@/lib/cairn");
  void cairn().search.ready();
  if (!workers) return;
  const { startJobWorkers } = await import("./lib/jobs/start-job-workers");
  await startJobWorkers();
}
