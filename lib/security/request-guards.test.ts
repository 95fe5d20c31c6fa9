import { describe, expect, it } from "vitest";
import { refuseForeignRequest, requestOrigin } from "./request-guards";

function post(headers: Record<string, string>): Request {
  return new Request("http://cairn.test/api/chat", { method: "POST", headers, body: "{}" });
}

const json = { host: "cairn.test", "content-type": "application/json" };

describe("refuseForeignRequest", () => {
  it("lets the app's own JSON requests through", () => {
    expect(refuseForeignRequest(post({ ...json, origin: "http://cairn.test" }))).toBeNull();
    expect(
      refuseForeignRequest(
        post({
          ...json,
          "content-type": "application/json; charset=utf-8",
          origin: "http://cairn.test",
        }),
      ),
    ).toBeNull();
    // A non-browser client (no Origin, no Sec-Fetch-Site) carries no ambient cookies.
    expect(refuseForeignRequest(post(json))).toBeNull();
  });

  // Issue 14 finding 9: a text/plain form post from a sibling origin reached /api/chat.
  it("refuses another origin, even on the same site", () => {
    expect(refuseForeignRequest(post({ ...json, origin: "http://evil.cairn.test" }))?.status).toBe(
      403,
    );
    expect(refuseForeignRequest(post({ ...json, origin: "null" }))?.status).toBe(403);
    expect(refuseForeignRequest(post({ ...json, "sec-fetch-site": "same-site" }))?.status).toBe(
      403,
    );
  });

  it("refuses a body that is not JSON", () => {
    const refused = refuseForeignRequest(
      post({ host: "cairn.test", origin: "http://cairn.test", "content-type": "text/plain" }),
    );
    expect(refused).toEqual({ status: 415, error: expect.stringContaining("JSON") });
    expect(refuseForeignRequest(post({ host: "cairn.test" }))?.status).toBe(415);
  });

  it("compares with the host a proxy forwarded", () => {
    const behindProxy = post({
      ...json,
      host: "127.0.0.1:3000",
      "x-forwarded-host": "cairn.example.com",
      origin: "https://cairn.example.com",
    });
    expect(refuseForeignRequest(behindProxy)).toBeNull();
  });
});

describe("requestOrigin", () => {
  it("uses the forwarded scheme and host when a proxy sets them", () => {
    const request = post({
      host: "127.0.0.1:3000",
      "x-forwarded-host": "cairn.example.com",
      "x-forwarded-proto": "https",
    });
    expect(requestOrigin(request)).toBe("https://cairn.example.com");
    expect(requestOrigin(post({ host: "cairn.test" }))).toBe("http://cairn.test");
  });
});
