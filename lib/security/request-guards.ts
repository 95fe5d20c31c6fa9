/**
 * Guards for route handlers that change state and are called by the app's own pages with the
 * session cookie (`/api/chat`). Server actions get the same origin check from Next; route
 * handlers do not, so a page on another origin — or another site on the same registrable
 * domain, which the SameSite=Lax cookie does not stop — could post a `text/plain` form to them.
 */

/** The host the request was addressed to: `X-Forwarded-Host` (first) from a proxy, else `Host`. */
export function requestHost(headers: Pick<Headers, "get">): string | null {
  const forwarded = headers.get("x-forwarded-host")?.split(",")[0]?.trim();
  return forwarded || headers.get("host");
}

/**
 * The request's own origin as a browser sees it (scheme from `X-Forwarded-Proto` when a proxy
 * sets it, else from the request URL), or null without a host.
 */
export function requestOrigin(request: {
  headers: Pick<Headers, "get">;
  url?: string;
}): string | null {
  const host = requestHost(request.headers);
  if (!host) return null;
  const forwardedProto = request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim();
  let proto = forwardedProto;
  if (!proto && request.url) {
    try {
      proto = new URL(request.url).protocol.replace(/:$/, "");
    } catch {
      proto = undefined;
    }
  }
  return `${proto || "http"}://${host}`;
}

/** Why a state-changing request was refused, with the status to answer. */
export interface RefusedRequest {
  status: 403 | 415;
  error: string;
}

/**
 * Refuses a request from another origin (403) or with a body that is not JSON (415); null
 * when it may proceed.
 *
 * - With an `Origin` header (every browser sends one on POST), its host must be the request's
 *   own host. Without one, `Sec-Fetch-Site` must not be `cross-site` or `same-site`. A request
 *   with neither comes from a non-browser client, which carries no ambient cookies to abuse.
 * - The content type must be `application/json`: a cross-origin page cannot send that without
 *   a CORS preflight, which this app never grants.
 */
export function refuseForeignRequest(
  request: Request,
  options: {
    /**
     * The body's media type. Default `application/json`. An upload takes `multipart/form-data`,
     * which a cross-origin form can send without a preflight: the origin check above is then
     * the only guard, so such a route must also require a header a form cannot set.
     */
    mediaType?: "application/json" | "multipart/form-data";
  } = {},
): RefusedRequest | null {
  const wanted = options.mediaType ?? "application/json";
  const origin = request.headers.get("origin");
  if (origin !== null) {
    let originHost: string | null = null;
    try {
      originHost = origin === "null" ? null : new URL(origin).host;
    } catch {
      originHost = null;
    }
    if (!originHost || originHost !== requestHost(request.headers)) {
      return { status: 403, error: "Requests from another origin are refused." };
    }
  } else {
    const site = request.headers.get("sec-fetch-site");
    if (site === "cross-site" || site === "same-site") {
      return { status: 403, error: "Requests from another site are refused." };
    }
  }
  const mediaType = request.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase();
  if (mediaType !== wanted) {
    return {
      status: 415,
      error:
        wanted === "application/json"
          ? "The request body must be JSON (Content-Type: application/json)."
          : `The request body must be ${wanted}.`,
    };
  }
  return null;
}
