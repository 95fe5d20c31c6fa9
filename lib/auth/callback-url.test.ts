import { NextRequest } from "next/server";
import { afterEach, describe, expect, it } from "vitest";
import nextConfig from "@/next.config";

/**
 * Auth.js builds the OIDC `redirect_uri` twice: for the authorization request (in the sign-in
 * server action, from `AUTH_URL` as a plain URL) and for the token request (in the callback route,
 * from the request next-auth rebuilds as a `NextRequest` with `AUTH_URL`'s origin). The issuer
 * refuses the code unless both are the same string. By default Next's `NextRequest.url`
 * rewrites a loopback address (127.0.0.1, [::1]) to `localhost`, so an instance served at
 * `http://127.0.0.1:3000` sent `127.0.0.1` first and `localhost` second and every sign-in
 * ended in `invalid_grant` ("authorization code redirect_uri mismatch"). `skipProxyUrlNormalize`
 * keeps the URL as given; Next compiles it into the build as this variable.
 */
const FLAG = "__NEXT_NO_MIDDLEWARE_URL_NORMALIZE";
const before = process.env[FLAG];

afterEach(() => {
  if (before === undefined) delete process.env[FLAG];
  else process.env[FLAG] = before;
});

/** What next-auth's `reqWithEnvURL` hands Auth.js for a callback request. */
function callbackRequestAsAuthJsSeesIt(authUrl: string): string {
  const incoming = new NextRequest("http://localhost:3000/api/auth/callback/oidc?code=c&state=s");
  const { origin: envOrigin } = new URL(authUrl);
  const { href, origin } = incoming.nextUrl;
  return new NextRequest(href.replace(origin, envOrigin), incoming).url;
}

describe("the OIDC callback URL", () => {
  it("keeps AUTH_URL's loopback address, as the authorization request used it", () => {
    if (nextConfig.skipProxyUrlNormalize) process.env[FLAG] = "true";
    else delete process.env[FLAG];
    for (const authUrl of ["http://127.0.0.1:3000", "http://[::1]:3000", "https://cairn.example"]) {
      expect(callbackRequestAsAuthJsSeesIt(authUrl)).toBe(
        `${authUrl}/api/auth/callback/oidc?code=c&state=s`,
      );
    }
  });
});
