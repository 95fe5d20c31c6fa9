/** What the Content-Security-Policy depends on. */
export interface SecurityHeaderOptions {
  /** Extra origins images may load from (`CAIRN_IMAGE_ORIGINS`); the app, data: and blob: always may. */
  imageOrigins: readonly string[];
  /** `next dev` needs `eval` for fast refresh and a websocket for HMR. */
  development: boolean;
  /** GitHub sign-in is enabled: its OAuth redirect leaves the app from a form post. */
  githubSignIn: boolean;
}

/**
 * The Content-Security-Policy for every response. Scripts and styles allow `'unsafe-inline'`
 * because Next's App Router inlines its flight data and next-themes inlines its theme script,
 * and nonces would force every page to render dynamically (decision 0009). The policy's work
 * is elsewhere: no framing (`frame-ancestors 'none'`), no images, fetches, forms, plugins or
 * base URLs to other origins, so a prompt-injected answer cannot send memory out in an image URL.
 */
export function contentSecurityPolicy(options: SecurityHeaderOptions): string {
  const directives: [string, ...string[]][] = [
    ["default-src", "'self'"],
    ["script-src", "'self'", "'unsafe-inline'", ...(options.development ? ["'unsafe-eval'"] : [])],
    ["style-src", "'self'", "'unsafe-inline'"],
    ["img-src", "'self'", "data:", "blob:", ...options.imageOrigins],
    ["font-src", "'self'", "data:"],
    ["connect-src", "'self'", ...(options.development ? ["ws:", "wss:"] : [])],
    ["media-src", "'self'"],
    ["worker-src", "'self'", "blob:"],
    ["object-src", "'none'"],
    ["base-uri", "'self'"],
    ["form-action", "'self'", ...(options.githubSignIn ? ["https://github.com"] : [])],
    ["frame-ancestors", "'none'"],
  ];
  return directives.map((parts) => parts.join(" ")).join("; ");
}

/** The security headers set on every page and static file (by `proxy.ts`). */
export function securityHeaders(options: SecurityHeaderOptions): Record<string, string> {
  return {
    "Content-Security-Policy": contentSecurityPolicy(options),
    // For browsers that predate frame-ancestors.
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=()",
  };
}

/**
 * The security headers of the API's JSON and event-stream responses (`/api/*` except Auth.js's
 * `/api/auth/*`), set by `next.config.ts` rather than `proxy.ts`: nothing in them depends on
 * run-time settings, and a proxy invocation is a measurable share of a chat turn's server CPU
 * (decision 0026). No document is rendered from these responses, so the policy allows nothing.
 */
export const API_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "Content-Security-Policy":
    "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "X-Frame-Options": "DENY",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "same-origin",
  "Cross-Origin-Opener-Policy": "same-origin",
  "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=()",
};

/**
 * Paths `proxy.ts` runs for: everything except `/api/*` routes other than `/api/auth/*` (whose
 * pages and redirects keep the page policy). `next.config.ts` gives the rest
 * {@link API_SECURITY_HEADERS} with the complementary pattern {@link API_HEADERS_SOURCE}.
 */
export const PROXY_MATCHER = "/((?!api/(?!auth/)).*)";
/** `next.config.ts` `headers()` source for the API routes the proxy skips. */
export const API_HEADERS_SOURCE = "/api/:path((?!auth/).*)";
