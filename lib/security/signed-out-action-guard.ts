/**
 * A bound on server-action bodies from requests without a session. Next reads an action's body
 * (up to `serverActions.bodySizeLimit`, 5 MB) before the action can check who calls; the actions
 * that work signed out (sign-in, sign-up, sign-up with an invite) carry a few form fields. So a
 * fetch action without a session cookie must declare its length, and at most this much; anything
 * else is refused by the proxy before Next parses the body. See decision 0029.
 */

/** The largest server-action body accepted from a request without a session cookie. */
export const MAX_SIGNED_OUT_ACTION_BYTES = 64 * 1024;

/**
 * Auth.js's session cookie, plain or `__Secure-`, whole or chunked (as in lib/auth's
 * session-claims; repeated here so the proxy does not load the auth module).
 */
const SESSION_COOKIE = /(?:^|;\s*)(?:__Secure-)?authjs\.session-token(?:\.\d+)?=/;

/** Whether the `Cookie` header carries an Auth.js session cookie (valid or not). */
export function hasSessionCookie(cookieHeader: string | null): boolean {
  return cookieHeader !== null && SESSION_COOKIE.test(cookieHeader);
}

/** Why the proxy refused a signed-out action body. */
export interface RefusedActionBody {
  status: 411 | 413;
  error: string;
}

/**
 * Refuses a `POST` carrying a `Next-Action` header and no session cookie when its body has no
 * declared length (chunked) or declares more than `MAX_SIGNED_OUT_ACTION_BYTES`. Browsers always
 * declare the length of a form's body, so the sign-in and sign-up forms are never refused.
 */
export function refuseSignedOutActionBody(request: {
  method: string;
  headers: Pick<Headers, "get">;
}): RefusedActionBody | null {
  if (request.method !== "POST" || !request.headers.get("next-action")) return null;
  if (hasSessionCookie(request.headers.get("cookie"))) return null;
  const header = request.headers.get("content-length")?.trim();
  if (!header || !/^\d+$/.test(header)) {
    return { status: 411, error: "Sign in first, or send the form's length." };
  }
  if (Number(header) > MAX_SIGNED_OUT_ACTION_BYTES) {
    return { status: 413, error: "The form is too large. Sign in first." };
  }
  return null;
}
