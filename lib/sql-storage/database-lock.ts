import { randomUUID } from "node:crypto";
import type { DatabaseTarget } from "@/lib/db/database-url";
import { createStderrLogger, type Logger, type RefinementLock } from "@/lib/harness";
import type { SqlExecutor } from "./sql";

/** Every key is prefixed, so Cairn's locks never collide with another application's on the same database. */
const NAMESPACE = "cairn:";

/** Options of the SQLite lock row (the defaults suit refinements). */
export interface RowLockOptions {
  /** Where failed renewals and releases are reported. Default: JSON lines on stderr. */
  logger?: Logger;
  /** How long a claim lasts without renewal; a holder that died frees the lock after this. Default 30 s. */
  ttlMs?: number;
  /** How often the holder renews its claim. Default a third of `ttlMs`. */
  renewEveryMs?: number;
  /** Waiting: first poll delay; doubles up to `maxPollMs` (with jitter). Default 25 ms. */
  minPollMs?: number;
  /** Default 500 ms. */
  maxPollMs?: number;
  /** Called when a renewal finds the claim gone (expired and taken by another process). */
  onLost?: (key: string) => void;
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("The operation was aborted", "AbortError");
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortReason(signal));
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal!));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * A lock that holds across every process using one database, as a row of `ResourceLock`:
 * claimed by ONE conditional upsert (insert, or take over a row whose claim expired), which
 * SQLite and PostgreSQL both execute atomically; renewed by its holder every `renewEveryMs`;
 * released by deleting the row. A holder that dies stops renewing, and the lock is free again
 * after `ttlMs`. Waiters poll with a growing, jittered delay.
 *
 * It is the lock Cairn uses on SQLite (several processes on one file); on PostgreSQL
 * `createAdvisoryLock` is preferred (released by the server the moment the holder's
 * connection drops).
 */
export function createRowLock(sql: SqlExecutor, options: RowLockOptions = {}): RefinementLock {
  const logger = options.logger ?? createStderrLogger();
  const ttlMs = options.ttlMs ?? 30_000;
  const renewEveryMs = options.renewEveryMs ?? Math.max(10, Math.floor(ttlMs / 3));
  const minPollMs = options.minPollMs ?? 25;
  const maxPollMs = options.maxPollMs ?? 500;

  async function tryClaim(key: string, owner: string): Promise<boolean> {
    const now = Date.now();
    const expiresAt = now + ttlMs;
    const { changes } = await sql.run(
      `INSERT INTO "ResourceLock" ("key", "owner", "expiresAt") VALUES (?, ?, ?)
       ON CONFLICT ("key") DO UPDATE SET "owner" = excluded."owner", "expiresAt" = excluded."expiresAt"
       WHERE "ResourceLock"."expiresAt" < ?`,
      [key, owner, expiresAt, now],
    );
    return changes > 0;
  }

  return {
    runExclusive: async (key, task, runOptions) => {
      const signal = runOptions?.abortSignal;
      const lockKey = NAMESPACE + key;
      const owner = randomUUID();
      for (let delay = minPollMs; !(await tryClaim(lockKey, owner));) {
        await sleep(delay / 2 + Math.random() * delay, signal);
        delay = Math.min(maxPollMs, delay * 2);
      }
      let renewing: Promise<unknown> = Promise.resolve();
      const timer = setInterval(() => {
        renewing = sql
          .run(`UPDATE "ResourceLock" SET "expiresAt" = ? WHERE "key" = ? AND "owner" = ?`, [
            Date.now() + ttlMs,
            lockKey,
            owner,
          ])
          .then(({ changes }) => {
            if (changes === 0) options.onLost?.(key);
          })
          .catch((error: unknown) =>
            logger.error({ err: error, lock: key }, "renewing a lock failed"),
          );
      }, renewEveryMs);
      timer.unref?.();
      try {
        return await task();
      } finally {
        clearInterval(timer);
        await renewing;
        await sql
          .run(`DELETE FROM "ResourceLock" WHERE "key" = ? AND "owner" = ?`, [lockKey, owner])
          .catch((error: unknown) =>
            logger.error({ err: error, lock: key }, "releasing a lock failed (it expires)"),
          );
      }
    },
  };
}

/**
 * A PostgreSQL advisory lock per key (`pg_advisory_lock(hashtextextended(key, 0))`), held on a
 * connection of its own for the task's duration: the server queues waiters, and releases the
 * lock when the task ends or the moment the holding process dies (its connection closes).
 * Aborting while waiting closes the waiting connection, which withdraws the request.
 */
export function createAdvisoryLock(options: { url: string; logger?: Logger }): RefinementLock {
  const logger = options.logger ?? createStderrLogger();
  return {
    runExclusive: async (key, task, runOptions) => {
      const signal = runOptions?.abortSignal;
      signal?.throwIfAborted();
      const { default: pg } = await import("pg");
      const client = new pg.Client({
        connectionString: options.url,
        application_name: "cairn-lock",
      });
      // A dropped connection surfaces on the next query; never as an unhandled 'error' event.
      client.on("error", (error) =>
        logger.error({ err: error, lock: key }, "lock connection failed"),
      );
      await client.connect();
      const onAbort = () => void client.end().catch(() => undefined);
      signal?.addEventListener("abort", onAbort, { once: true });
      const lockKey = NAMESPACE + key;
      try {
        try {
          await client.query("SELECT pg_advisory_lock(hashtextextended($1, 0))", [lockKey]);
        } catch (error) {
          if (signal?.aborted) throw abortReason(signal);
          throw error;
        } finally {
          signal?.removeEventListener("abort", onAbort);
        }
        return await task();
      } finally {
        // Closing the session releases the lock; the explicit unlock just says so sooner.
        await client
          .query("SELECT pg_advisory_unlock(hashtextextended($1, 0))", [lockKey])
          .catch(() => undefined);
        await client.end().catch(() => undefined);
      }
    },
  };
}

/** The lock for a database: advisory locks on PostgreSQL, the lock row on SQLite. */
export function createDatabaseLock(options: {
  sql: SqlExecutor;
  target: DatabaseTarget;
  row?: RowLockOptions;
  logger?: Logger;
}): RefinementLock {
  return options.target.provider === "postgresql"
    ? createAdvisoryLock({ url: options.target.url, logger: options.logger })
    : createRowLock(options.sql, { ...options.row, logger: options.row?.logger ?? options.logger });
}
