/**
 * Origins an admin allows images from, besides the app itself and `data:`/`blob:` URLs:
 * `CAIRN_IMAGE_ORIGINS`, a space- or comma-separated list of `https://host[:port]` origins.
 * Entries that are not a bare http(s) origin are ignored with a warning (a path would widen or
 * narrow the CSP in ways the admin did not mean).
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

let cached: { raw: string | undefined; origins: string[] } | null = null;

/** `CAIRN_IMAGE_ORIGINS` parsed once per value (the proxy asks on every request). */
export function imageOriginsFromEnv(): string[] {
  const raw = process.env.CAIRN_IMAGE_ORIGINS;
  if (cached === null || cached.raw !== raw) cached = { raw, origins: parseImageOrigins(raw) };
  return cached.origins;
}
