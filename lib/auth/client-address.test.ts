import { once } from "node:events";
import { createServer, request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import {
  clientAddressOf,
  installSocketAddressStamp,
  normalizeAddress,
  parseTrustedProxies,
  SOCKET_ADDRESS_HEADER,
} from "./client-address";

function headers(values: Record<string, string>): Headers {
  return new Headers(values);
}

describe("clientAddressOf", () => {
  const none = parseTrustedProxies(undefined);

  it("is the socket address when no proxy is trusted, whatever X-Forwarded-For says", () => {
    expect(
      clientAddressOf(
        headers({ [SOCKET_ADDRESS_HEADER]: "203.0.113.9", "x-forwarded-for": "1.2.3.4" }),
        none,
      ),
    ).toBe("203.0.113.9");
  });

  it("is null without the socket stamp: no client-written header is believed", () => {
    expect(
      clientAddressOf(headers({ "x-forwarded-for": "1.2.3.4", "x-real-ip": "5.6.7.8" }), none),
    ).toBeNull();
  });

  it("takes the right-most untrusted hop behind trusted proxies", () => {
    const trusted = parseTrustedProxies("10.0.0.0/8, 192.168.1.1");
    // The client forged the left-most entries; the proxies appended the real ones.
    const forwarded = "6.6.6.6, 10.9.9.9, 198.51.100.7, 192.168.1.1";
    expect(
      clientAddressOf(
        headers({ [SOCKET_ADDRESS_HEADER]: "10.0.0.2", "x-forwarded-for": forwarded }),
        trusted,
      ),
    ).toBe("198.51.100.7");
  });

  it("ignores X-Forwarded-For from a peer that is not a trusted proxy", () => {
    const trusted = parseTrustedProxies("10.0.0.1");
    expect(
      clientAddressOf(
        headers({ [SOCKET_ADDRESS_HEADER]: "198.51.100.1", "x-forwarded-for": "1.1.1.1" }),
        trusted,
      ),
    ).toBe("198.51.100.1");
  });

  it("uses the proxy itself when it forwarded nothing, and the left-most hop when all are trusted", () => {
    const trusted = parseTrustedProxies("127.0.0.1 ::1");
    expect(clientAddressOf(headers({ [SOCKET_ADDRESS_HEADER]: "::ffff:127.0.0.1" }), trusted)).toBe(
      "127.0.0.1",
    );
    expect(
      clientAddressOf(
        headers({ [SOCKET_ADDRESS_HEADER]: "::1", "x-forwarded-for": "127.0.0.1, ::1" }),
        trusted,
      ),
    ).toBe("127.0.0.1");
  });

  it("normalises mapped IPv4, ports and brackets", () => {
    expect(normalizeAddress("::FFFF:10.1.2.3")).toBe("10.1.2.3");
    expect(normalizeAddress(" 10.1.2.3:4567 ")).toBe("10.1.2.3");
    expect(normalizeAddress("[2001:DB8::1]:443")).toBe("2001:db8::1");
    expect(parseTrustedProxies("2001:db8::/32").has("2001:db8:1::5")).toBe(true);
  });

  it("refuses a malformed CAIRN_TRUSTED_PROXIES entry", () => {
    expect(() => parseTrustedProxies("10.0.0.0/8, proxy.internal")).toThrow(/proxy\.internal/);
    expect(() => parseTrustedProxies("10.0.0.0/33")).toThrow(/CIDR/);
  });
});

describe("installSocketAddressStamp", () => {
  it("overwrites a forged stamp with the real socket address before the handler runs", async () => {
    installSocketAddressStamp();
    installSocketAddressStamp(); // idempotent
    const server = createServer((request, response) => {
      response.end(JSON.stringify(request.headers[SOCKET_ADDRESS_HEADER] ?? null));
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    try {
      const { port } = server.address() as AddressInfo;
      const body = await new Promise<string>((resolve, reject) => {
        const outgoing = httpRequest(
          {
            host: "127.0.0.1",
            port,
            path: "/",
            headers: { [SOCKET_ADDRESS_HEADER]: "6.6.6.6", "x-forwarded-for": "6.6.6.6" },
          },
          (response) => {
            let text = "";
            response.on("data", (chunk: Buffer) => (text += chunk.toString()));
            response.on("end", () => resolve(text));
          },
        );
        outgoing.on("error", reject);
        outgoing.end();
      });
      expect(JSON.parse(body)).toMatch(/127\.0\.0\.1$/);
    } finally {
      server.close();
    }
  });
});
