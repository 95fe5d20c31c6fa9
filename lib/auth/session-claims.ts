import { createHash } from "node:crypto";

/**
 * What a session token says once Auth.js has decrypted and accepted it: who, in which
 * workspace, at which session version, and until when (the token's own `exp`). No role: the
 * role is read from the membership row on every request (getActor).
 */
export interface SessionClaims {
  userId: string;
  workspaceId: string;
  sessionVersion: number;
  /** The token's expiry, ms since the epoch. */
  expiresAt: number;
}

/** Auth.js's session cookie, plain or `__Secure-`, whole or chunked (`.0`, `.1`, …). */
const SESSION_COOKIE = /^(?:__Secure-)?authjs\.session-token(?:\.\d+)?$/;

/**
 * The cache key of a request's session: a SHA-256 of the session cookie(s) exactly as sent,
 * with the forwarded protocol (which picks the plain or the `__Secure-` cookie). `null` when
 * the request carries no session cookie.
 */
export function sessionCacheKey(
  cookieHeader: string | null,
  forwardedProto: string | null,
): string | null {
  if (!cookieHeader) return null;
  const parts: string[] = [];
  for (const pair of cookieHeader.split(";")) {
    const at = pair.indexOf("=");
    if (at < 0) continue;
    const name = pair.slice(0, at).trim();
    if (SESSION_COOKIE.test(name)) parts.push(`${name}=${pair.slice(at + 1).trim()}`);
  }
  if (parts.length === 0) return null;
  return createHash("sha256")
    .update(`${forwardedProto ?? ""}\n${parts.join("\n")}`)
    .digest("base64url");
}

/**
 * Decrypted session tokens of this process, by `sessionCacheKey`: a request that presents the
 * same cookie bytes again skips Auth.js's decrypt (and its re-encryption of a refreshed token
 * that a route handler throws away). The claims are a pure function of the cookie bytes and
 * the server's secret, so a hit is exactly what Auth.js would return — except after the token
 * expires, which `expiresAt` bounds. Revocation (sign-out, removal) and role changes are not
 * cached: getActor reads the membership and session version on every request. See
 * docs/decisions/0025-chat-turn-stream-and-session-cache.md.
 */
export class SessionClaimsCache {
  private readonly entries = new Map<string, { claims: SessionClaims; until: number }>();

  constructor(
    /** Most entries kept (least recently used out first). */
    readonly maxEntries = 1_000,
    /** How long an entry is kept at most. */
    readonly ttlMs = 10 * 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  get(key: string): SessionClaims | null {
    const entry = this.entries.get(key);
    if (!entry) return null;
    this.entries.delete(key);
    if (entry.until <= this.now()) return null;
    this.entries.set(key, entry);
    return entry.claims;
  }

  set(key: string, claims: SessionClaims): void {
    const until = Math.min(this.now() + this.ttlMs, claims.expiresAt);
    if (until <= this.now()) return;
    this.entries.delete(key);
    this.entries.set(key, { claims, until });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
  }

  get size(): number {
    return this.entries.size;
  }
}
