import { describe, expect, it } from "vitest";
import { SessionClaimsCache, sessionCacheKey, type SessionClaims } from "./session-claims";

const claims = (expiresAt: number): SessionClaims => ({
  userId: "u1",
  workspaceId: "w1",
  sessionVersion: 3,
  expiresAt,
});

describe("sessionCacheKey", () => {
  it("keys on the session cookie(s) and the protocol only", () => {
    const key = sessionCacheKey("a=1; authjs.session-token=abc; authjs.csrf-token=x", "http");
    expect(key).toMatch(/^[\w-]{43}$/);
    // Other cookies do not matter; the token's bytes and the protocol do.
    expect(sessionCacheKey("authjs.session-token=abc; theme=dark", "http")).toBe(key);
    expect(sessionCacheKey("authjs.session-token=abd", "http")).not.toBe(key);
    expect(sessionCacheKey("authjs.session-token=abc", "https")).not.toBe(key);
    expect(sessionCacheKey("__Secure-authjs.session-token=abc", "http")).not.toBe(key);
    // Chunked tokens: every chunk counts.
    const chunked = sessionCacheKey(
      "authjs.session-token.0=ab; authjs.session-token.1=cd",
      "https",
    );
    expect(
      sessionCacheKey("authjs.session-token.0=ab; authjs.session-token.1=ce", "https"),
    ).not.toBe(chunked);
  });

  it("is null without a session cookie", () => {
    expect(sessionCacheKey(null, "https")).toBeNull();
    expect(sessionCacheKey("authjs.csrf-token=x; next-auth.session-token=y", "https")).toBeNull();
  });
});

describe("SessionClaimsCache", () => {
  it("keeps an entry until its TTL or the token's expiry, whichever is first", () => {
    let now = 1_000_000;
    const cache = new SessionClaimsCache(10, 60_000, () => now);
    cache.set("long", claims(now + 3_600_000));
    cache.set("short", claims(now + 5_000));
    expect(cache.get("long")).toEqual(claims(1_000_000 + 3_600_000));
    now += 5_000;
    expect(cache.get("short")).toBeNull();
    expect(cache.get("long")).not.toBeNull();
    now += 55_000;
    expect(cache.get("long")).toBeNull();
    expect(cache.size).toBe(0);
  });

  it("does not keep an expired token, and drops the least recently used past its size", () => {
    const now = 1_000_000;
    const cache = new SessionClaimsCache(2, 60_000, () => now);
    cache.set("expired", claims(now));
    expect(cache.get("expired")).toBeNull();
    cache.set("a", claims(now + 10_000));
    cache.set("b", claims(now + 10_000));
    cache.get("a");
    cache.set("c", claims(now + 10_000));
    expect(cache.get("b")).toBeNull();
    expect(cache.get("a")).not.toBeNull();
    expect(cache.get("c")).not.toBeNull();
  });
});
