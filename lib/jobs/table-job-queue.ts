import { randomUUID } from "node:crypto";
import { createStderrLogger, type Logger } from "@/lib/harness";
import type { Sql } from "@/lib/sql-storage/sql";
import {
  JOB_DEFAULTS,
  retryDelayOf,
  type EnqueueOptions,
  type JobHandler,
  type JobInfo,
  type JobQueue,
  type JobState,
  type WorkOptions,
} from "./job-queue";

interface ClaimedRow {
  id: string;
  payload: string;
  retryCount: number | bigint;
}

interface StateRow {
  id: string;
  name: string;
  state: string;
  retryCount: number | bigint;
  retryLimit: number | bigint;
  retryDelay: number | bigint;
  retryBackoff: number | bigint | boolean;
  output: string | null;
}

/** Completed and failed jobs are deleted after this long. */
const RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

function errorInfo(error: unknown): string {
  return JSON.stringify(
    error instanceof Error
      ? { name: error.name, message: error.message }
      : { message: String(error) },
  );
}

function parseOutput(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * The job queue on SQLite: the `Job` table, polled by each process's workers, and an enqueue
 * wakes an idle worker of the same process at once (or when the job is due), so a job started
 * here does not wait for the next poll. Every state change is ONE conditional
 * statement (SQLite runs each write statement alone, so two processes on one file never claim
 * the same job): a claim is `UPDATE … SET state = 'active' WHERE id = (the oldest due job) AND
 * state IN ('created', 'retry') RETURNING …`; completing and failing an attempt check the
 * claim's owner. Expired claims (a worker that died) are turned into failed attempts by
 * whichever worker polls next. Same semantics as pg-boss on PostgreSQL (see `JobQueue`).
 */
export function createTableJobQueue(
  sql: Sql,
  options: { now?: () => number; logger?: Logger } = {},
): JobQueue {
  const logger = options.logger ?? createStderrLogger();
  const now = options.now ?? Date.now;
  const workerId = randomUUID();
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const running = new Set<Promise<unknown>>();
  let stopped = false;
  let polls = 0;
  /** Idle workers per job name, each a function that ends its sleep and polls now. */
  const sleepers = new Map<string, Set<() => void>>();
  const sleepersOf = (name: string): Set<() => void> => {
    let set = sleepers.get(name);
    if (!set) sleepers.set(name, (set = new Set()));
    return set;
  };
  const wakeOne = (name: string): void => {
    const [first] = sleepersOf(name);
    first?.();
  };

  async function failAttempt(row: StateRow, error: string, owner: string | null): Promise<void> {
    const retryCount = Number(row.retryCount);
    const retry = retryCount < Number(row.retryLimit);
    const at = now();
    const startAfter =
      at +
      1000 *
        retryDelayOf({
          retryDelaySeconds: Number(row.retryDelay),
          retryBackoff: Boolean(Number(row.retryBackoff)),
          retryCount,
        });
    const state = retry ? "retry" : "failed";
    // An expired claim: only if it is still that claim; a held one: only if this owner holds it.
    const [claimIsStill, claim] =
      owner === null ? [`"lockedUntil" < ?`, at] : [`"lockedBy" = ?`, owner];
    await sql.run(
      `UPDATE "Job" SET "state" = ?, "retryCount" = ?,
        "startAfter" = ?, "output" = ?, "lockedBy" = NULL, "lockedUntil" = NULL,
        "completedAt" = ?
      WHERE "id" = ? AND "state" = 'active' AND ${claimIsStill}`,
      [
        state,
        retry ? retryCount + 1 : retryCount,
        startAfter,
        error,
        retry ? null : at,
        row.id,
        claim,
      ],
    );
  }

  async function expireClaims(name: string): Promise<void> {
    const rows = await sql.all<StateRow>(
      `SELECT "id", "name", "state", "retryCount", "retryLimit", "retryDelay", "retryBackoff", "output"
      FROM "Job" WHERE "name" = ? AND "state" = 'active' AND "lockedUntil" < ?`,
      [name, now()],
    );
    for (const row of rows) {
      await failAttempt(
        row,
        JSON.stringify({
          message: "The job's claim expired (its worker stopped or outran expireInSeconds)",
        }),
        null,
      );
    }
  }

  async function claim(
    name: string,
  ): Promise<{ id: string; payload: string; retryCount: number } | null> {
    const at = now();
    // A read first: an idle poll never takes SQLite's write lock.
    const due = await sql.all<{ id: string }>(
      `SELECT "id" FROM "Job"
      WHERE "name" = ? AND "state" IN ('created', 'retry') AND "startAfter" <= ? LIMIT 1`,
      [name, at],
    );
    if (due.length === 0) return null;
    const rows = await sql.all<ClaimedRow & { expireIn: number | bigint }>(
      `UPDATE "Job" SET "state" = 'active', "lockedBy" = ?, "startedAt" = ?,
        "lockedUntil" = ? + 1000 * "expireIn"
      WHERE "id" = (
        SELECT "id" FROM "Job"
        WHERE "name" = ? AND "state" IN ('created', 'retry') AND "startAfter" <= ?
        ORDER BY "startAfter", "createdAt", "id" LIMIT 1
      ) AND "state" IN ('created', 'retry')
      RETURNING "id", "payload", "retryCount", "expireIn"`,
      [workerId, at, at, name, at],
    );
    const row = rows[0];
    return row ? { id: row.id, payload: row.payload, retryCount: Number(row.retryCount) } : null;
  }

  async function runOne<P>(name: string, handler: JobHandler<P>): Promise<boolean> {
    const job = await claim(name);
    if (!job) return false;
    try {
      const result = await handler({
        id: job.id,
        name,
        payload: JSON.parse(job.payload) as P,
        retryCount: job.retryCount,
      });
      const output = result === undefined ? null : JSON.stringify(result);
      await sql.run(
        `UPDATE "Job" SET "state" = 'completed', "completedAt" = ?, "output" = ?,
          "lockedBy" = NULL, "lockedUntil" = NULL
        WHERE "id" = ? AND "state" = 'active' AND "lockedBy" = ?`,
        [now(), output, job.id, workerId],
      );
    } catch (error) {
      const rows = await sql.all<StateRow>(
        `SELECT "id", "name", "state", "retryCount", "retryLimit", "retryDelay", "retryBackoff", "output"
        FROM "Job" WHERE "id" = ?`,
        [job.id],
      );
      if (rows[0]) await failAttempt(rows[0], errorInfo(error), workerId);
    }
    return true;
  }

  async function cleanUp(): Promise<void> {
    await sql.run(
      `DELETE FROM "Job" WHERE "state" IN ('completed', 'failed', 'cancelled')
        AND "completedAt" < ?`,
      [now() - RETENTION_MS],
    );
  }

  return {
    async enqueue<P>(name: string, payload: P, enqueueOptions: EnqueueOptions = {}) {
      const id = enqueueOptions.id ?? randomUUID();
      const at = now();
      const key = enqueueOptions.singletonKey ?? null;
      const inserted = await sql.run(
        `INSERT INTO "Job" ("id", "name", "payload", "state", "singletonKey", "retryLimit",
          "retryCount", "retryDelay", "retryBackoff", "expireIn", "startAfter", "createdAt")
        SELECT ?, ?, ?, 'created', ?,
          ?, 0,
          ?,
          ?,
          ?,
          ?, ?
        WHERE NOT EXISTS (
          SELECT 1 FROM "Job" WHERE "name" = ? AND "singletonKey" = ? AND "state" = 'created'
        ) AND NOT EXISTS (SELECT 1 FROM "Job" WHERE "id" = ?)`,
        [
          id,
          name,
          JSON.stringify(payload ?? null),
          key,
          enqueueOptions.retryLimit ?? JOB_DEFAULTS.retryLimit,
          enqueueOptions.retryDelaySeconds ?? JOB_DEFAULTS.retryDelaySeconds,
          (enqueueOptions.retryBackoff ?? JOB_DEFAULTS.retryBackoff) ? 1 : 0,
          enqueueOptions.expireInSeconds ?? JOB_DEFAULTS.expireInSeconds,
          at + 1000 * (enqueueOptions.startAfterSeconds ?? 0),
          at,
          name,
          key,
          id,
        ],
      );
      if (inserted.changes === 0) return null;
      // This process's idle worker takes it at once (or when it is due) instead of at its next
      // poll; workers of other processes find it by polling.
      const delayMs = 1000 * (enqueueOptions.startAfterSeconds ?? 0);
      if (delayMs <= 0) wakeOne(name);
      else {
        const timer = setTimeout(() => {
          timers.delete(timer);
          wakeOne(name);
        }, delayMs);
        timer.unref?.();
        timers.add(timer);
      }
      return id;
    },

    async work<P>(name: string, handler: JobHandler<P>, workOptions: WorkOptions = {}) {
      const interval =
        1000 * Math.max(0.5, workOptions.pollIntervalSeconds ?? JOB_DEFAULTS.pollIntervalSeconds);
      const loop = async (): Promise<void> => {
        if (stopped) return;
        let worked = false;
        try {
          if (polls++ % 500 === 0) await cleanUp();
          await expireClaims(name);
          const attempt = runOne(name, handler);
          running.add(attempt);
          worked = await attempt.finally(() => running.delete(attempt));
        } catch (error) {
          logger.error({ err: error, job: name }, "a job worker failed to poll");
        }
        if (stopped) return;
        // After a job, look again at once: more may be waiting. An idle worker sleeps until the
        // next poll, or until this process enqueues a job of this name (`wakeOne`).
        let awake = false;
        const next = (): void => {
          if (awake) return;
          awake = true;
          clearTimeout(timer);
          timers.delete(timer);
          sleepersOf(name).delete(next);
          void loop();
        };
        const timer = setTimeout(next, worked ? 0 : interval);
        // Polling alone never keeps a process alive.
        timer.unref?.();
        timers.add(timer);
        if (!worked) sleepersOf(name).add(next);
      };
      for (let i = 0; i < Math.max(1, workOptions.concurrency ?? 1); i++) void loop();
    },

    async getJob(name: string, id: string): Promise<JobInfo | null> {
      const rows = await sql.all<StateRow>(
        `SELECT "id", "name", "state", "retryCount", "retryLimit", "retryDelay", "retryBackoff", "output"
        FROM "Job" WHERE "name" = ? AND "id" = ?`,
        [name, id],
      );
      const row = rows[0];
      if (!row) return null;
      return {
        id: row.id,
        name: row.name,
        state: row.state as JobState,
        retryCount: Number(row.retryCount),
        output: parseOutput(row.output),
      };
    },

    async stop(stopOptions = {}) {
      stopped = true;
      sleepers.clear();
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      const timeoutMs = stopOptions.timeoutMs ?? 10_000;
      if (running.size > 0 && timeoutMs > 0) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const timeout = new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)));
        await Promise.race([Promise.allSettled([...running]), timeout]);
        clearTimeout(timer);
      }
      // Jobs still running here are given up: failed attempts, retried by another worker.
      const abandoned = await sql.all<StateRow>(
        `SELECT "id", "name", "state", "retryCount", "retryLimit", "retryDelay", "retryBackoff", "output"
        FROM "Job" WHERE "state" = 'active' AND "lockedBy" = ?`,
        [workerId],
      );
      for (const row of abandoned) {
        await failAttempt(
          row,
          JSON.stringify({ message: "The worker stopped while the job ran" }),
          workerId,
        );
      }
    },
  };
}
