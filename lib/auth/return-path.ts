/** The request header the proxy sets to the page asked for (path and query), for sign-in. */
export const REQUESTED_PATH_HEADER = "x-cairn-requested-path";

/**
 * A page to return to after sign-in: a path on this site (`/memory?x=1`), never another origin
 * (`//evil.example`, `/\evil`, `https://…`) and never the sign-in pages themselves. Anything
 * else is `/chat`.
 */
export function safeReturnPath(raw: string | null | undefined): string {
  if (!raw || raw.length > 2000) return "/chat";
  if (!raw.startsWith("/") || raw.startsWith("//") || raw.startsWith("/\\")) return "/chat";
  if (/[\u0000-\u001f]/.test(raw)) return "/chat";
  let parsed: URL;
  try {
    parsed = new URL(raw, "http://cairn.invalid");
  } catch {
    return "/chat";
  }
  if (parsed.origin !== "http://cairn.invalid") return "/chat";
  if (/^\/(sign-in|sign-up|api)(\/|$)/.test(parsed.pathname)) return "/chat";
  return `${parsed.pathname}${parsed.search}${parsed.hash}`;
}

/** The sign-in page that returns to `path` afterwards. */
export function signInPathFor(path: string | null | undefined): string {
  const target = safeReturnPath(path);
  return target === "/chat" ? "/sign-in" : `/sign-in?callbackUrl=${encodeURIComponent(target)}`;
}
