import { randomBytes } from "node:crypto";
import { hashPassword, verifyPassword } from "@/lib/accounts";
import { cairn } from "@/lib/cairn";
import { cairnConfig } from "@/lib/config";
import type { SqlExecutor } from "@/lib/sql-storage/sql";
import {
  countWindowAttempt,
  deleteBucket,
  isRecent,
  KNOWN_ADDRESS_MS,
  pruneBuckets,
  refundWindowAttempt,
  SIGN_IN_WINDOW_MS,
  signInBuckets,
  signInLimitsOf,
  takeBackoffSlot,
  touchBucket,
  type SignInLimits,
} from "./rate-limit";

/** What a sign-in attempt came to. */
export type SignInCheck =
  | { status: "ok"; user: { id: string; email: string; name: string | null } }
  | { status: "invalid" }
  | { status: "limited"; retryAfterSeconds: number; reason: "address" | "pair" | "email" }
  | { status: "unavailable"; cause: unknown };

let dummyHash: Promise<string> | undefined;

/**
 * A bcrypt hash of a random password at the configured cost, made once per process: an unknown
 * email (or a user without a password) is checked against it, so the answer takes as long as a
 * wrong password for a real account and timing does not tell which emails exist.
 */
function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword(randomBytes(24).toString("base64url"));
  return dummyHash;
}

/**
 * Checks an email and password under the sign-in limits. Every attempt is counted before the
 * password is checked (see rate-limit.ts):
 *
 * 1. per client address (across emails) — `limits.perAddress` per 15 minutes;
 * 2. per email from that address — `limits.perEmailAndAddress` per 15 minutes, so an attacker
 *    elsewhere cannot use up the owner's attempts;
 * 3. per email, from addresses where that email has not signed in during the last 30 days — an
 *    exponential backoff after `limits.backoffAfter` attempts, which slows guessing spread over
 *    many addresses without ever stopping the owner at an address they used before.
 *
 * When the client address is unknown (`null`), rules 1 and 2 are skipped (no shared bucket
 * that anyone could fill) and rule 3 applies. If the limiter's database work fails the answer
 * is `unavailable`: the password is not checked (fail closed).
 */
export async function checkSignIn(options: {
  /** The database the limiter and the user live in (`getSql()` in the app). */
  sql: SqlExecutor;
  email: string;
  password: string;
  address: string | null;
  limits?: SignInLimits;
  now?: number;
}): Promise<SignInCheck> {
  const { sql, password, address } = options;
  const email = options.email.trim().toLowerCase();
  const limits = options.limits ?? signInLimitsOf(cairnConfig().signIn);
  const now = options.now ?? Date.now();
  const buckets = signInBuckets({ email, address });

  const countAttempt = (bucket: string, limit: number) =>
    countWindowAttempt(sql, { bucket, limit, windowMs: SIGN_IN_WINDOW_MS, now });
  let addressWindow: number | null = null;
  let throughBackoff = false;
  try {
    if (buckets.address) {
      const counted = await countAttempt(buckets.address, limits.perAddress);
      if (!counted.allowed) return { status: "limited", reason: "address", ...retry(counted) };
      addressWindow = counted.windowStart;
    }
    if (buckets.pair) {
      const counted = await countAttempt(buckets.pair, limits.perEmailAndAddress);
      if (!counted.allowed) return { status: "limited", reason: "pair", ...retry(counted) };
    }
    const known = buckets.known
      ? await isRecent(sql, { bucket: buckets.known, withinMs: KNOWN_ADDRESS_MS, now })
      : false;
    if (!known) {
      const slot = await takeBackoffSlot(sql, { bucket: buckets.email, limits, now });
      if (!slot.allowed) return { status: "limited", reason: "email", ...retry(slot) };
      throughBackoff = true;
    }
  } catch (cause) {
    return { status: "unavailable", cause };
  }

  let user: { id: string; email: string; name: string | null; passwordHash: string | null } | null;
  let valid: boolean;
  try {
    user =
      (await sql.get<{
        id: string;
        email: string;
        name: string | null;
        passwordHash: string | null;
      }>(`SELECT "id", "email", "name", "passwordHash" FROM "User" WHERE "email" = ?`, [email])) ??
      null;
    valid = await verifyPassword(password, user?.passwordHash ?? (await dummyPasswordHash()));
  } catch (cause) {
    return { status: "unavailable", cause };
  }
  if (!user?.passwordHash || !valid) return { status: "invalid" };

  // The owner is in: forgive this address's failures for the email, remember the address, and
  // give back the attempt counted against the address (a success is not a failure).
  try {
    if (buckets.pair) await deleteBucket(sql, buckets.pair);
    if (buckets.known) await touchBucket(sql, { bucket: buckets.known, now });
    if (throughBackoff) await deleteBucket(sql, buckets.email);
    if (buckets.address && addressWindow !== null) {
      await refundWindowAttempt(sql, { bucket: buckets.address, windowStart: addressWindow });
    }
    await pruneBuckets(sql, now);
  } catch (error) {
    // The password was right; bookkeeping that failed only leaves stricter counts behind.
    cairn().logger.error({ err: error }, "sign-in limiter bookkeeping failed");
  }
  return { status: "ok", user: { id: user.id, email: user.email, name: user.name } };
}

function retry(admission: { allowed: boolean; retryAfterSeconds?: number }) {
  return { retryAfterSeconds: admission.retryAfterSeconds ?? 1 };
}
