import { parseOriginList } from "./origin-list";

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
  return parseOriginList(value, "CAIRN_IMAGE_ORIGINS", warn, "https://images.example.com");
}

let cached: { raw: string | undefined; origins: string[] } | null = null;

/** `CAIRN_IMAGE_ORIGINS` parsed once per value (the proxy asks on every request). */
export function imageOriginsFromEnv(): string[] {
  const raw = process.env.CAIRN_IMAGE_ORIGINS;
  if (cached === null || cached.raw !== raw) cached = { raw, origins: parseImageOrigins(raw) };
  return cached.origins;
}
