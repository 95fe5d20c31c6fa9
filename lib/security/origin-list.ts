import { createStderrLogger } from "@/lib/harness";
/**
 * Parses a space- or comma-separated list of bare `http(s)://host[:port]` origins from the
 * environment variable `variable`. Entries that are not a bare http(s) origin are ignored with a
 * warning naming the variable (a path would widen or narrow the list in ways the admin did not
 * mean); duplicates are dropped. Returns the origins as `URL#origin` serializes them.
 */
export function parseOriginList(
  value: string | undefined,
  variable: string,
  warn: (message: string) => void = (message) => createStderrLogger().warn({}, message),
  example = "https://cairn.example.com",
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
        `${variable}: ignoring "${raw}" — list origins such as ${example} (scheme, host and optional port, no path).`,
      );
      continue;
    }
    if (!origins.includes(url.origin)) origins.push(url.origin);
  }
  return origins;
}
