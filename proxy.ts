import { NextResponse, type NextRequest } from "next/server";
import { REQUESTED_PATH_HEADER } from "@/lib/auth/return-path";
import { cairnConfig } from "@/lib/config";
import {
  hasMalformedEscape,
  malformedPathResponse,
  refuseSignedOutActionBody,
  securityHeaders,
} from "@/lib/security";

/**
 * Security headers on every page and static file: the CSP, X-Frame-Options, nosniff,
 * Referrer-Policy. Set here rather than in next.config's headers() because those are fixed at
 * build time and `CAIRN_IMAGE_ORIGINS` is read at run time. The API routes (except Auth.js's)
 * are not matched: their fixed headers come from next.config.ts, which costs a request nothing
 * (decision 0026). See docs/security.md and decision 0009.
 *
 * A path with a malformed `%` escape answers 400 here, before Next decodes its dynamic segments
 * (which throws, and the page would answer 500); `request.nextUrl.pathname` is the path as sent.
 * A server action posted without a session cookie must declare a small body, or it is refused
 * here before Next parses it (`refuseSignedOutActionBody`, decision 0029).
 */
export function proxy(request: NextRequest) {
  const response =
    refusal(request) ?? NextResponse.next({ request: { headers: withRequestedPath(request) } });
  const config = cairnConfig();
  const headers = securityHeaders({
    imageOrigins: config.imageOrigins,
    development: process.env.NODE_ENV === "development",
    githubSignIn: config.github !== null,
  });
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
  return response;
}

/**
 * The request's headers with the page asked for (path and query), so a signed-out visit to
 * `/memory` can return there after sign-in (`requireActor`, lib/auth/return-path.ts).
 */
function withRequestedPath(request: NextRequest): Headers {
  const headers = new Headers(request.headers);
  if (request.method === "GET")
    headers.set(REQUESTED_PATH_HEADER, `${request.nextUrl.pathname}${request.nextUrl.search}`);
  else headers.delete(REQUESTED_PATH_HEADER);
  return headers;
}

/** The answer to a request refused before Next handles it, or null to pass it on. */
function refusal(request: NextRequest): Response | null {
  const pathname = request.nextUrl.pathname;
  if (hasMalformedEscape(pathname)) return malformedPathResponse(pathname);
  const refused = refuseSignedOutActionBody(request);
  return refused ? NextResponse.json({ error: refused.error }, { status: refused.status }) : null;
}

// A literal, as Next requires; equal to PROXY_MATCHER in lib/security (a test checks).
export const config = { matcher: ["/((?!api/(?!auth/)).*)"] };
