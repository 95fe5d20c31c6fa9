import { NextRequest } from "next/server";
import { describe, expect, it } from "vitest";
import { hasMalformedEscape, malformedPathResponse } from "./malformed-path";

// Issue 31, finding 10: a dynamic route with a bad `%` escape answered 500, signed in or not.
describe("malformed % escapes in the path", () => {
  it("finds a % that starts no escape, and escapes that are no UTF-8", () => {
    for (const path of [
      "/chat/%E0%A4%A",
      "/harness/memory/%",
      "/files/%zz",
      "/chat/%C0%80",
      "/chat/abc/turns/%FF",
      "/api/auth/%E0",
      "/refinements/a%2",
    ])
      expect(hasMalformedEscape(path), path).toBe(true);
  });

  it("passes plain paths and valid escapes", () => {
    for (const path of [
      "/",
      "/chat/clx123",
      "/harness/memory/caf%C3%A9",
      "/harness/memory/a%2Fb",
      "/files/%25",
      "/api/auth/session",
    ])
      expect(hasMalformedEscape(path), path).toBe(false);
  });

  it("answers 400: JSON for the API, plain text for pages", async () => {
    const api = malformedPathResponse("/api/auth/%zz");
    expect(api.status).toBe(400);
    expect(((await api.json()) as { error: string }).error).toMatch(/malformed % escape/);
    const page = malformedPathResponse("/chat/%zz");
    expect(page.status).toBe(400);
    expect(page.headers.get("Content-Type")).toMatch(/^text\/plain/);
    expect(await page.text()).toMatch(/^Bad request/);
  });

  it("makes the proxy answer 400 with the security headers, and pass good paths on", async () => {
    const { proxy } = await import("@/proxy");
    const refused = proxy(new NextRequest("http://cairn.test/chat/%E0%A4%A"));
    expect(refused.status).toBe(400);
    expect(refused.headers.get("X-Frame-Options")).toBe("DENY");
    expect(refused.headers.get("x-middleware-next")).toBeNull();
    const passed = proxy(new NextRequest("http://cairn.test/chat/abc"));
    expect(passed.headers.get("x-middleware-next")).toBe("1");
  });
});
