import { describe, expect, it } from "vitest";
import { parseImageOrigins } from "./image-origins";
import {
  API_SECURITY_HEADERS,
  PROXY_MATCHER,
  contentSecurityPolicy,
  securityHeaders,
} from "./security-headers";

function directives(csp: string): Map<string, string[]> {
  return new Map(
    csp.split(";").map((directive) => {
      const [name, ...values] = directive.trim().split(/\s+/);
      return [name!, values];
    }),
  );
}

const production = { imageOrigins: [], development: false, githubSignIn: false };

describe("securityHeaders", () => {
  it("forbids framing, sniffing and cross-origin referrers", () => {
    const headers = securityHeaders(production);
    expect(headers["X-Frame-Options"]).toBe("DENY");
    expect(headers["X-Content-Type-Options"]).toBe("nosniff");
    expect(headers["Referrer-Policy"]).toBe("same-origin");
    expect(directives(headers["Content-Security-Policy"]!).get("frame-ancestors")).toEqual([
      "'none'",
    ]);
  });

  it("limits images to the app, data: and blob: unless an admin allows more origins", () => {
    expect(directives(contentSecurityPolicy(production)).get("img-src")).toEqual([
      "'self'",
      "data:",
      "blob:",
    ]);
    const allowed = contentSecurityPolicy({
      ...production,
      imageOrigins: ["https://images.example.com"],
    });
    expect(directives(allowed).get("img-src")).toContain("https://images.example.com");
  });

  it("keeps fetches, forms and plugins on the app's own origin; eval only in development", () => {
    const csp = directives(contentSecurityPolicy(production));
    expect(csp.get("connect-src")).toEqual(["'self'"]);
    expect(csp.get("form-action")).toEqual(["'self'"]);
    expect(csp.get("object-src")).toEqual(["'none'"]);
    expect(csp.get("script-src")).not.toContain("'unsafe-eval'");
    const dev = directives(contentSecurityPolicy({ ...production, development: true }));
    expect(dev.get("script-src")).toContain("'unsafe-eval'");
  });
});

describe("parseImageOrigins", () => {
  it("takes bare http(s) origins and ignores anything else with a warning", () => {
    const warnings: string[] = [];
    const origins = parseImageOrigins(
      "https://a.example.com, https://b.example.com:8443/ javascript:alert(1) https://c.example.com/path *",
      (message) => warnings.push(message),
    );
    expect(origins).toEqual(["https://a.example.com", "https://b.example.com:8443"]);
    expect(warnings).toHaveLength(3);
  });

  it("is empty when unset", () => {
    expect(parseImageOrigins(undefined)).toEqual([]);
  });
});

describe("which responses get which headers", () => {
  it("runs the proxy on pages and Auth.js routes, and leaves the other API routes to next.config", async () => {
    const { config } = await import("@/proxy");
    expect(config.matcher).toEqual([PROXY_MATCHER]);
    // Next compiles the matcher with path-to-regexp; the negative lookahead reads the same here.
    const proxied = (path: string) => new RegExp(`^${PROXY_MATCHER.slice(1)}$`).test(path.slice(1));
    for (const path of ["/", "/chat/abc", "/sign-in", "/api/auth/session", "/_next/static/x.js"])
      expect(proxied(path), path).toBe(true);
    for (const path of ["/api/chat", "/api/health", "/api/mcp"])
      expect(proxied(path), path).toBe(false);
  });

  it("allows nothing in an API response's policy, and keeps the headers every response has", () => {
    expect(API_SECURITY_HEADERS["Content-Security-Policy"]).toContain("default-src 'none'");
    expect(API_SECURITY_HEADERS["Content-Security-Policy"]).toContain("frame-ancestors 'none'");
    const page = securityHeaders(production);
    expect(Object.keys(API_SECURITY_HEADERS).sort()).toEqual(Object.keys(page).sort());
  });
});
