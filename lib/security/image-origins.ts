import { cairnConfig } from "@/lib/config/process-config";

/**
 * Origins an admin allows images from, besides the app itself and `data:`/`blob:` URLs:
 * `CAIRN_IMAGE_ORIGINS`, a space- or comma-separated list of `https://host[:port]` origins.
 * Entries that are not a bare http(s) origin go to `warn` and are left out (a path would widen
 * or narrow the CSP in ways the admin did not mean); the configuration (lib/config) turns such an
 * entry into an error that stops the start.
 */
export function parseImageOrigins(
  value: string | undefined,
  warn: (message: string) => void = (message) => console.warn(message),
): string[] {
  const origins: string[] = [];
  for (const raw of (value ?? "").split(/[\s,]+/)) {
    if (!raw) continue;
    let url: URL | null = null;
    try {
      url = new URL(raw);
    } catch {
      url = null;
    }
    const bare = raw.replace(/\/$/, "");
    if (!url || (url.protocol !== "https:" && url.protocol !== "http:") || url.origin !== bare) {
      warn(
        `CAIRN_IMAGE_ORIGINS: ignoring "${raw}" — list origins such as https://images.example.com (scheme, host and optional port, no path).`,
      );
      continue;
    }
    if (!origins.includes(url.origin)) origins.push(url.origin);
  }
  return origins;
}

/** `CAIRN_IMAGE_ORIGINS` from the process's configuration, parsed once (the proxy asks on every request). */
export function configuredImageOrigins(): readonly string[] {
  return cairnConfig().imageOrigins;
}
