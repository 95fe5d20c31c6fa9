import { loadConfig } from "@/lib/config";
import { describe, expect, it } from "vitest";
import {
  isLoopbackHostname,
  parseMcpAllowedOrigins,
  refuseRebindingRequest,
} from "./dns-rebinding-guard";

function post(headers: Record<string, string>, url = "http://127.0.0.1:3000/api/mcp"): Request {
  return new Request(url, { method: "POST", headers, body: "{}" });
}

const deployed = ["https://cairn.example.com"];

describe("refuseRebindingRequest", () => {
  it("lets MCP clients without an Origin through on loopback and on the configured host", () => {
    for (const host of [
      "localhost:3000",
      "127.0.0.1:3000",
      "[::1]:3000",
      "LOCALHOST",
      "app.localhost",
    ])
      expect(refuseRebindingRequest(post({ host }), []), host).toBeNull();
    expect(refuseRebindingRequest(post({ host: "cairn.example.com" }), deployed)).toBeNull();
    expect(refuseRebindingRequest(post({ host: "cairn.example.com:443" }), deployed)).toBeNull();
  });

  // Issue 29 item 7: the conformance suite's dns-rebinding-protection scenario got 200.
  it("refuses a foreign Host with 403, with or without a matching Origin", () => {
    const rebinding = post({ host: "evil.example.com", origin: "http://evil.example.com" });
    expect(refuseRebindingRequest(rebinding, [])?.status).toBe(403);
    expect(refuseRebindingRequest(rebinding, deployed)?.status).toBe(403);
    expect(refuseRebindingRequest(post({ host: "evil.example.com" }), deployed)).toMatchObject({
      status: 403,
      error: expect.stringContaining("CAIRN_MCP_ALLOWED_ORIGINS"),
    });
    // A port other than the configured origin's, and a look-alike name.
    expect(refuseRebindingRequest(post({ host: "cairn.example.com:8080" }), deployed)?.status).toBe(
      403,
    );
    expect(
      refuseRebindingRequest(post({ host: "cairn.example.com.evil.test" }), deployed),
    ).not.toBeNull();
    expect(refuseRebindingRequest(post({ host: "localhost.evil.test" }), [])).not.toBeNull();
  });

  it("refuses a page on another origin, even a local one, and the opaque origin", () => {
    const local = { host: "localhost:3000" };
    expect(
      refuseRebindingRequest(post({ ...local, origin: "http://localhost:8080" }), []),
    ).toMatchObject({
      status: 403,
      error: expect.stringContaining("http://localhost:8080"),
    });
    expect(
      refuseRebindingRequest(post({ ...local, origin: "https://evil.example.com" }), [])?.status,
    ).toBe(403);
    expect(refuseRebindingRequest(post({ ...local, origin: "null" }), [])?.status).toBe(403);
    expect(refuseRebindingRequest(post({ ...local, origin: "file://" }), [])?.status).toBe(403);
  });

  it("accepts the server's own origin and the configured ones", () => {
    expect(
      refuseRebindingRequest(post({ host: "127.0.0.1:3000", origin: "http://127.0.0.1:3000" }), []),
    ).toBeNull();
    const deployedOrigin = { host: "cairn.example.com", origin: "https://cairn.example.com" };
    expect(refuseRebindingRequest(post(deployedOrigin), deployed)).toBeNull();
    // A browser-based client on its own origin, allowed by the admin.
    expect(
      refuseRebindingRequest(
        post({ host: "cairn.example.com", origin: "https://inspector.example.com" }),
        [...deployed, "https://inspector.example.com"],
      ),
    ).toBeNull();
  });

  it("checks the host a proxy forwards (X-Forwarded-Host), not the upstream address", () => {
    const behindProxy = { host: "cairn:3000", "x-forwarded-host": "cairn.example.com" };
    expect(refuseRebindingRequest(post(behindProxy), deployed)).toBeNull();
    expect(refuseRebindingRequest(post(behindProxy), [])?.status).toBe(403);
    // A rebinding page cannot borrow a loopback X-Forwarded-Host: its Origin gives it away.
    expect(
      refuseRebindingRequest(
        post({
          host: "evil.example.com:3000",
          "x-forwarded-host": "localhost:3000",
          origin: "http://evil.example.com:3000",
        }),
        [],
      )?.status,
    ).toBe(403);
  });

  it("falls back to the URL's host for a Request built without a Host header", () => {
    expect(refuseRebindingRequest(post({}, "http://localhost/api/mcp"), [])).toBeNull();
    expect(refuseRebindingRequest(post({}, "http://evil.example.com/api/mcp"), [])?.status).toBe(
      403,
    );
  });

  it("refuses a malformed Host", () => {
    for (const host of ["a b", "user@localhost", "localhost:port", "localhost/x"])
      expect(refuseRebindingRequest(post({ host }), []), host).not.toBeNull();
  });
});

describe("isLoopbackHostname", () => {
  it("knows the loopback names", () => {
    for (const name of ["localhost", "x.localhost", "127.0.0.1", "127.8.9.10", "[::1]"])
      expect(isLoopbackHostname(name), name).toBe(true);
    for (const name of ["localhost.example.com", "128.0.0.1", "0.0.0.0", "[::]", "10.0.0.1"])
      expect(isLoopbackHostname(name), name).toBe(false);
  });
});

describe("parseMcpAllowedOrigins", () => {
  it("takes CAIRN_MCP_ALLOWED_ORIGINS and the origin of AUTH_URL / NEXTAUTH_URL", () => {
    const warnings: string[] = [];
    const origins = parseMcpAllowedOrigins(
      {
        CAIRN_MCP_ALLOWED_ORIGINS:
          "https://a.example.com, https://b.example.com:8443/ https://c.example.com/path *",
        AUTH_URL: "https://cairn.example.com/api/auth",
        NEXTAUTH_URL: "https://a.example.com",
      },
      (message) => warnings.push(message),
    );
    expect(origins).toEqual([
      "https://a.example.com",
      "https://b.example.com:8443",
      "https://cairn.example.com",
    ]);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toContain("CAIRN_MCP_ALLOWED_ORIGINS");
  });

  it("is empty when nothing is set, and ignores an AUTH_URL that is not a URL", () => {
    expect(parseMcpAllowedOrigins({})).toEqual([]);
    expect(parseMcpAllowedOrigins({ AUTH_URL: "not a url" })).toEqual([]);
  });

  it("is read from the configuration: CAIRN_MCP_ALLOWED_ORIGINS and AUTH_URL's origin", () => {
    const config = loadConfig({
      CAIRN_MCP_ALLOWED_ORIGINS: "https://one.example.com, http://10.0.0.5:3000",
      AUTH_URL: "https://cairn.example.com/app",
    });
    expect(config.mcpAllowedOrigins).toEqual([
      "https://one.example.com",
      "http://10.0.0.5:3000",
      "https://cairn.example.com",
    ]);
    expect(() => loadConfig({ CAIRN_MCP_ALLOWED_ORIGINS: "https://one.example.com/path" })).toThrow(
      /CAIRN_MCP_ALLOWED_ORIGINS/,
    );
  });
});
