import type { SqlExecutor, SqlValue } from "@/lib/sql-storage/sql";

/**
 * Sign-in limits, kept in the database (`RateLimitBucket`) so every instance shares them. Every
 * attempt is counted by one UPSERT ... RETURNING before the password is checked: concurrent
 * attempts serialize on the bucket's row, each sees its own count, and at most `limit` of them
 * go on to the password check. See docs/decisions/0010-sign-in-limiter.md.
 */

/** The window of the per-address and per-email+address limits. */
export const SIGN_IN_WINDOW_MS = 15 * 60 * 1000;
/** How long a successful sign-in makes an address "known" for that email (exempt from backoff). */
export const KNOWN_ADDRESS_MS = 30 * 24 * 3600 * 1000;
/** A backoff run resets after this long without attempts. */
export const BACKOFF_RESET_MS = 24 * 3600 * 1000;

/** The limits, with their defaults; `signInLimitsOf` makes them from the configuration. */
export interface SignInLimits {
  /** Attempts per client address per window, across emails. Default 20. */
  perAddress: number;
  /** Attempts per email from one address per window. Default 5. */
  perEmailAndAddress: number;
  /** Attempts per email from addresses not known for it before backoff starts. Default 10. */
  backoffAfter: number;
  /** The first backoff delay, doubled per further attempt. Default 1 s. */
  backoffBaseMs: number;
  /** The longest backoff delay. Default 15 minutes. */
  backoffMaxMs: number;
}

/** The limits from the configuration's `CAIRN_SIGNIN_LIMIT_IP` and `CAIRN_SIGNIN_LIMIT_EMAIL`. */
export function signInLimitsOf(config: {
  perEmailAndAddress: number;
  perAddress: number;
}): SignInLimits {
  const perEmailAndAddress = config.perEmailAndAddress;
  return {
    perAddress: config.perAddress,
    perEmailAndAddress,
    backoffAfter: 2 * perEmailAndAddress,
    backoffBaseMs: 1000,
    backoffMaxMs: SIGN_IN_WINDOW_MS,
  };
}

/** What a counted attempt was told. */
export type Admission = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** The limiter's buckets for one attempt. `address` is null when the client address is unknown. */
export function signInBuckets(options: { email: string; address: string | null }) {
  const email = options.email.toLowerCase();
  const address = options.address;
  return {
    address: address === null ? null : `sign-in:address:${address}`,
    pair: address === null ? null : `sign-in:pair:${email}|${address}`,
    email: `sign-in:email:${email}`,
    known: address === null ? null : `sign-in:known:${email}|${address}`,
  };
}

/** A piece of SQL with `?` placeholders and the values they bind. */
interface Fragment {
  text: string;
  params: SqlValue[];
}

/** Builds a fragment: values become `?` placeholders, fragments are inlined with their values. */
function q(strings: TemplateStringsArray, ...values: (SqlValue | Fragment)[]): Fragment {
  let text = strings[0]!;
  const params: SqlValue[] = [];
  values.forEach((value, index) => {
    if (isFragment(value)) {
      text += value.text;
      params.push(...value.params);
    } else {
      text += "?";
      params.push(value);
    }
    text += strings[index + 1]!;
  });
  return { text, params };
}

function isFragment(value: SqlValue | Fragment): value is Fragment {
  return typeof value === "object" && value !== null && "text" in value && "params" in value;
}

/** Fragments joined with `separator`. */
function joinFragments(fragments: Fragment[], separator: string): Fragment {
  return {
    text: fragments.map((fragment) => fragment.text).join(separator),
    params: fragments.flatMap((fragment) => fragment.params),
  };
}

/** An epoch-millisecond value as a typed SQL BIGINT (PostgreSQL types a bare parameter inside CASE as text). */
function ms(value: number): Fragment {
  return q`CAST(${BigInt(Math.floor(value))} AS BIGINT)`;
}

function all<T>(sql: SqlExecutor, fragment: Fragment): Promise<T[]> {
  return sql.all<T>(fragment.text, fragment.params);
}

function get<T>(sql: SqlExecutor, fragment: Fragment): Promise<T | undefined> {
  return sql.get<T>(fragment.text, fragment.params);
}

async function run(sql: SqlExecutor, fragment: Fragment): Promise<void> {
  await sql.run(fragment.text, fragment.params);
}

/**
 * Counts one attempt in a fixed-window bucket and says whether it is within `limit`. The window
 * starts at the first attempt after the previous one ended. One statement: the attempt is counted
 * even when it is then refused, and two concurrent attempts never see the same count.
 */
export async function countWindowAttempt(
  db: SqlExecutor,
  options: { bucket: string; limit: number; windowMs: number; now: number },
): Promise<Admission & { count: number; windowStart: number }> {
  const { bucket, limit, windowMs, now } = options;
  const cutoff = ms(now - windowMs);
  const row = await get<{ count: number | bigint; windowStart: number | bigint }>(
    db,
    q`
    INSERT INTO "RateLimitBucket" ("bucket", "windowStart", "count", "nextAllowedAt", "updatedAt")
    VALUES (${bucket}, ${ms(now)}, 1, 0, ${ms(now)})
    ON CONFLICT ("bucket") DO UPDATE SET
      "count" = CASE WHEN "RateLimitBucket"."windowStart" <= ${cutoff} THEN 1
                     ELSE "RateLimitBucket"."count" + 1 END,
      "windowStart" = CASE WHEN "RateLimitBucket"."windowStart" <= ${cutoff} THEN ${ms(now)}
                           ELSE "RateLimitBucket"."windowStart" END,
      "updatedAt" = ${ms(now)}
    RETURNING "count", "windowStart"`,
  );
  const count = Number(row!.count);
  const windowStart = Number(row!.windowStart);
  if (count <= limit) return { allowed: true, count, windowStart };
  return {
    allowed: false,
    count,
    windowStart,
    retryAfterSeconds: Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000)),
  };
}

/** Gives back an attempt counted in the current window (a successful sign-in is no failure). */
export async function refundWindowAttempt(
  db: SqlExecutor,
  options: { bucket: string; windowStart: number },
): Promise<void> {
  await run(
    db,
    q`
    UPDATE "RateLimitBucket" SET "count" = "count" - 1
    WHERE "bucket" = ${options.bucket} AND "windowStart" = ${ms(options.windowStart)}
      AND "count" > 0`,
  );
}

/** The delay after the `n`-th attempt of a backoff run: none for the first `after`, then doubling. */
export function backoffDelayMs(n: number, limits: SignInLimits): number {
  if (n <= limits.backoffAfter) return 0;
  const doublings = n - limits.backoffAfter - 1;
  if (doublings >= 40) return limits.backoffMaxMs;
  return Math.min(limits.backoffMaxMs, limits.backoffBaseMs * 2 ** doublings);
}

/**
 * Takes the next slot of an exponential backoff bucket: allowed when its `nextAllowedAt` has
 * passed (or the run went quiet for `BACKOFF_RESET_MS`), and then moves `nextAllowedAt` on by
 * the delay for the new count. One conditional UPSERT, so of several concurrent attempts at an
 * open slot exactly one takes it once backoff has started.
 */
export async function takeBackoffSlot(
  db: SqlExecutor,
  options: { bucket: string; limits: SignInLimits; now: number },
): Promise<Admission> {
  const { bucket, limits, now } = options;
  const stale = q`"RateLimitBucket"."updatedAt" <= ${ms(now - BACKOFF_RESET_MS)}`;
  const next = q`CASE WHEN ${stale} THEN 1 ELSE "RateLimitBucket"."count" + 1 END`;
  // The delay per count, as a CASE over the few counts where it still grows.
  const steps: Fragment[] = [];
  let n = limits.backoffAfter + 1;
  for (; backoffDelayMs(n, limits) < limits.backoffMaxMs; n++) {
    steps.push(q`WHEN ${n} THEN ${ms(now + backoffDelayMs(n, limits))}`);
  }
  const capped = ms(now + limits.backoffMaxMs);
  const delayed = q`CASE WHEN (${next}) <= ${limits.backoffAfter} THEN ${ms(now)}
    ELSE ${steps.length > 0 ? q`CASE (${next}) ${joinFragments(steps, " ")} ELSE ${capped} END` : capped}
    END`;
  const rows = await all<{ count: number | bigint }>(
    db,
    q`
    INSERT INTO "RateLimitBucket" ("bucket", "windowStart", "count", "nextAllowedAt", "updatedAt")
    VALUES (${bucket}, ${ms(now)}, 1, ${ms(now + backoffDelayMs(1, limits))}, ${ms(now)})
    ON CONFLICT ("bucket") DO UPDATE SET
      "count" = ${next},
      "windowStart" = CASE WHEN ${stale} THEN ${ms(now)} ELSE "RateLimitBucket"."windowStart" END,
      "nextAllowedAt" = ${delayed},
      "updatedAt" = ${ms(now)}
    WHERE ${stale} OR "RateLimitBucket"."nextAllowedAt" <= ${ms(now)}
      -- Below the threshold nobody waits, whatever order concurrent clock readings arrive in.
      OR (${next}) <= ${limits.backoffAfter}
    RETURNING "count"`,
  );
  if (rows.length > 0) return { allowed: true };
  const row = await get<{ nextAllowedAt: number | bigint }>(
    db,
    q`
    SELECT "nextAllowedAt" FROM "RateLimitBucket" WHERE "bucket" = ${bucket}`,
  );
  const wait = row ? Number(row.nextAllowedAt) - now : 1000;
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(wait / 1000)) };
}

/** Whether `bucket` (a "known address" marker) was touched within `withinMs`. */
export async function isRecent(
  db: SqlExecutor,
  options: { bucket: string; withinMs: number; now: number },
): Promise<boolean> {
  const rows = await all<{ one: number }>(
    db,
    q`
    SELECT 1 AS "one" FROM "RateLimitBucket"
    WHERE "bucket" = ${options.bucket} AND "updatedAt" > ${ms(options.now - options.withinMs)}`,
  );
  return rows.length > 0;
}

/** Marks `bucket` as touched now (creates it when missing). */
export async function touchBucket(
  db: SqlExecutor,
  options: { bucket: string; now: number },
): Promise<void> {
  await run(
    db,
    q`
    INSERT INTO "RateLimitBucket" ("bucket", "windowStart", "count", "nextAllowedAt", "updatedAt")
    VALUES (${options.bucket}, ${ms(options.now)}, 0, 0, ${ms(options.now)})
    ON CONFLICT ("bucket") DO UPDATE SET "updatedAt" = ${ms(options.now)}`,
  );
}

export async function deleteBucket(db: SqlExecutor, bucket: string): Promise<void> {
  await run(db, q`DELETE FROM "RateLimitBucket" WHERE "bucket" = ${bucket}`);
}

/**
 * Removes buckets no rule looks at any more: window and backoff buckets quiet for a day (their
 * windows and backoff runs are over), known-address markers older than 30 days.
 */
export async function pruneBuckets(db: SqlExecutor, now: number): Promise<void> {
  await run(
    db,
    q`
    DELETE FROM "RateLimitBucket"
    WHERE ("updatedAt" < ${ms(now - BACKOFF_RESET_MS)} AND "bucket" NOT LIKE 'sign-in:known:%')
       OR "updatedAt" < ${ms(now - KNOWN_ADDRESS_MS)}`,
  );
}
