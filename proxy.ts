import { NextResponse, type NextRequest } from "next/server";
import {
  hasMalformedEscape,
  imageOriginsFromEnv,
  malformedPathResponse,
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
 */
export function proxy(request: NextRequest) {
  const pathname = request.nextUrl.pathname;
  const response = hasMalformedEscape(pathname)
    ? malformedPathResponse(pathname)
    : NextResponse.next();
  const headers = securityHeaders({
    imageOrigins: imageOriginsFromEnv(),
    development: process.env.NODE_ENV === "development",
    githubSignIn: Boolean(process.env.AUTH_GITHUB_ID && process.env.AUTH_GITHUB_SECRET),
  });
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
  return response;
}

// A literal, as Next requires; equal to PROXY_MATCHER in lib/security (a test checks).
export const config = { matcher: ["/((?!api/(?!auth/)).*)"] };
