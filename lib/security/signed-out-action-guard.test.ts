import { describe, expect, it } from "vitest";
import {
  hasSessionCookie,
  MAX_SIGNED_OUT_ACTION_BYTES,
  refuseSignedOutActionBody,
} from "./signed-out-action-guard";

const action = (headers: Record<string, string>, method = "POST") => ({
  method,
  headers: new Headers({ "next-action": "7f00aa", ...headers }),
});

describe("refuseSignedOutActionBody", () => {
  it("lets a signed-out form with a small declared body through (sign-in, sign-up)", () => {
    expect(refuseSignedOutActionBody(action({ "content-length": "420" }))).toBeNull();
    expect(
      refuseSignedOutActionBody(action({ "content-length": String(MAX_SIGNED_OUT_ACTION_BYTES) })),
    ).toBeNull();
  });

  it("refuses a signed-out action body without a length (chunked) or over the limit", () => {
    expect(refuseSignedOutActionBody(action({}))?.status).toBe(411);
    expect(refuseSignedOutActionBody(action({ "content-length": "abc" }))?.status).toBe(411);
    expect(
      refuseSignedOutActionBody(
        action({ "content-length": String(MAX_SIGNED_OUT_ACTION_BYTES + 1) }),
      )?.status,
    ).toBe(413);
  });

  it("leaves requests with a session cookie, other methods and non-action posts to Next", () => {
    expect(
      refuseSignedOutActionBody(action({ cookie: "theme=dark; authjs.session-token=abc" })),
    ).toBeNull();
    expect(
      refuseSignedOutActionBody(action({ cookie: "__Secure-authjs.session-token.0=a" })),
    ).toBeNull();
    expect(refuseSignedOutActionBody(action({}, "GET"))).toBeNull();
    expect(refuseSignedOutActionBody({ method: "POST", headers: new Headers({}) })).toBeNull();
  });

  it("recognises only Auth.js's session cookie", () => {
    expect(hasSessionCookie(null)).toBe(false);
    expect(hasSessionCookie("authjs.csrf-token=x; next-auth.session-token=y")).toBe(false);
    expect(hasSessionCookie("xauthjs.session-token=y")).toBe(false);
    expect(hasSessionCookie("a=1;authjs.session-token.1=y")).toBe(true);
  });
});
