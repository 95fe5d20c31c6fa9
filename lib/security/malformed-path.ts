/**
 * Whether a request path (as sent, before any decoding) has a `%` that does not start a valid
 * UTF-8 escape: a `%` not followed by two hex digits (`/files/%zz`, `/harness/memory/%`), or
 * escapes that decode to no valid UTF-8 (`/chat/%E0%A4%A`, `/chat/%C0%80`). Next.js decodes
 * dynamic segments with `decodeURIComponent`, which throws on these, and the page answers 500;
 * `proxy.ts` answers 400 instead before anything decodes the path (see docs/security.md,
 * "Requests"). Each segment is checked on its own, exactly as Next decodes them.
 */
export function hasMalformedEscape(pathname: string): boolean {
  if (!pathname.includes("%")) return false;
  for (const segment of pathname.split("/")) {
    if (!segment.includes("%")) continue;
    try {
      decodeURIComponent(segment);
    } catch {
      return true;
    }
  }
  return false;
}

/** The plain answer to a malformed path: JSON under `/api/`, a short text page elsewhere. */
export function malformedPathResponse(pathname: string): Response {
  const message = "Bad request: the address has a malformed % escape.";
  if (pathname === "/api" || pathname.startsWith("/api/")) {
    return Response.json({ error: message }, { status: 400 });
  }
  return new Response(`${message}\n`, {
    status: 400,
    headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" },
  });
}
