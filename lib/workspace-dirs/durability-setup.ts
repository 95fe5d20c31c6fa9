import path from "node:path";

import {
  createStderrLogger,
  DEFAULT_RETRY_POLICY,
  createFileSpool,
  drainSpool,
  recoverInterruptedTurn,
  retryDueCommits,
  type CommitLog,
  type CommitSpool,
  type DrainSpoolResult,
  type PersistentDir,
  type RetryPolicy,
  type TurnJournal,
} from "@/lib/harness";
import type { EnqueueOptions, Job, JobQueue } from "@/lib/jobs";
import { createTurnJournal } from "@/lib/sql-storage";
import { placeholders, type Sql } from "@/lib/sql-storage/sql";
import type { AppExtraBody, AppSession } from "./app-dirs";

/** The job queue's name for automatic commit retries. */
export const COMMIT_RETRY_JOB = "commit-retry";

/** What a commit retry job carries: the commit record it retries. */
export interface CommitRetryPayload {
  recordId: string;
}

/** What the safety-net sweep did: failed records found due, and retry jobs it stored for them. */
export interface RetryScheduleResult {
  due: number;
  enqueued: number;
}

/**
 * Runs automatic commit retries on the durable job queue (decision 0021). A retry is a
 * `commit-retry` job per record (singleton key: the record id) that starts at the record's
 * `nextAttemptAt`; the job claims its record by the same conditional update the sweep used,
 * retries it once, and when the retry fails again stores the next job for the new
 * `nextAttemptAt` (the policy's backoff). The durability pass only enqueues due records that
 * have no waiting job — a safety net for records whose job was never stored (a spooled commit
 * imported, a job lost to an outage) — and runs nothing inline.
 */
export interface CommitRetryRunner {
  /** Stores a retry job for every due `failed` record that has none waiting. Safe on several instances. */
  scheduleDue(): Promise<RetryScheduleResult>;
  /** Stores the retry job of one record, to start at `at`. Null when one is already waiting. */
  schedule(recordId: string, at: Date): Promise<string | null>;
  /**
   * The job's handler: retries the record if it is due and still `failed`; a record resolved
   * meanwhile (a person, another attempt) is left alone, so a job delivered twice retries once.
   * Returns what happened (`succeeded`, `failed`, `conflict`, `not-due`, `settled`, `taken`, …).
   */
  runJob(job: Job<CommitRetryPayload>): Promise<string>;
}

/** What one background pass did. */
export interface DurabilityPassResult {
  spool: DrainSpoolResult;
  /** Turns whose lease expired, closed as `interrupted` by this pass. */
  closedTurns: string[];
  /** Dead turns whose journal became `interrupted` records (or was found already applied). */
  recoveredTurns: string[];
  /** Retry jobs the pass stored for due records (the jobs themselves run on the queue's workers). */
  retries: RetryScheduleResult;
  /** Steps that failed (the database is away): retried on the next pass. */
  errors: string[];
}

/** The app's durability: the journal and spool turns write to, and the recovery loop. */
export interface Durability {
  readonly journal: TurnJournal;
  readonly spool: CommitSpool;
  readonly retryPolicy: RetryPolicy;
  /** How long a running turn's lease lasts; its process refreshes it at a third of that. */
  readonly turnLeaseMs: number;
  readonly retryRunner: CommitRetryRunner;
  /** One pass: drain the spool, close dead turns and recover their journals, enqueue due retries. */
  runOnce(): Promise<DurabilityPassResult>;
  /** Runs a pass now and then every `intervalMs` (timers are unref'd). Idempotent. */
  start(): void;
  stop(): void;
}

/** Options for `createDurability`. */
export interface DurabilityOptions {
  /** The database of the turns, the journal and the commit records. */
  sql: Sql;
  dirs: readonly PersistentDir<AppExtraBody, AppSession>[];
  commitLog: CommitLog;
  /** Where automatic commit retries run (`getJobQueue()` in the app). */
  jobQueue: JobQueue;
  /** Options of each retry job; the defaults suit production. */
  retryJob?: Pick<EnqueueOptions, "retryLimit" | "retryDelaySeconds" | "expireInSeconds">;
  /** The spool lives in `<dataDir>/spool`. */
  dataDir: string;
  /**
   * Signs the spool's records and verifies them before they are imported
   * (`spoolKeyFromSecret(AUTH_SECRET)` in the app): a record without a valid signature is set
   * aside as `*.json.rejected` and logged, never imported.
   */
  spoolKey: Uint8Array;
  retryPolicy?: RetryPolicy;
  turnLeaseMs?: number;
  intervalMs?: number;
  now?: () => Date;
  log?: (message: string, detail?: unknown) => void;
  /** After each pass of the loop (`start()`): the instance counts the turns it closed. */
  onPass?: (result: DurabilityPassResult) => void;
}

export const DEFAULT_TURN_LEASE_MS = 60_000;
export const DEFAULT_DURABILITY_INTERVAL_MS = 5_000;

/**
 * Builds the app's durability on `sql`'s database. Several instances may share the database: closing a turn
 * is conditional on its lease having expired (a live process keeps refreshing it), recovery and
 * imports append under stable ids, and retry jobs claim their record by conditional update.
 */
export function createDurability(options: DurabilityOptions): Durability {
  const { sql, dirs, commitLog } = options;
  const now = options.now ?? (() => new Date());
  const log =
    options.log ?? ((message, detail) => createStderrLogger().error({ err: detail }, message));
  const retryPolicy = options.retryPolicy ?? DEFAULT_RETRY_POLICY;
  const turnLeaseMs = options.turnLeaseMs ?? DEFAULT_TURN_LEASE_MS;
  const intervalMs = options.intervalMs ?? DEFAULT_DURABILITY_INTERVAL_MS;
  const journal = createTurnJournal({ sql });
  const spool = createFileSpool({
    directory: path.join(options.dataDir, "spool"),
    key: options.spoolKey,
    now,
    onRejected: ({ file, reason, error }) =>
      log(`spool file not imported (${reason}); kept as ${file}`, error),
  });
  const clock = { now };

  const { jobQueue } = options;
  const retryJob = {
    retryLimit: 5,
    retryDelaySeconds: 5,
    retryBackoff: true,
    expireInSeconds: 300,
    ...options.retryJob,
  };
  const schedule = (recordId: string, at: Date): Promise<string | null> =>
    jobQueue.enqueue<CommitRetryPayload>(
      COMMIT_RETRY_JOB,
      { recordId },
      {
        ...retryJob,
        singletonKey: recordId,
        startAfterSeconds: Math.max(0, (at.getTime() - now().getTime()) / 1000),
      },
    );

  const retryRunner: CommitRetryRunner = {
    schedule,
    async scheduleDue() {
      const due = await sql.all<{ id: string }>(
        `SELECT "id" FROM "DirCommitRecord" WHERE "status" = 'failed' AND "nextAttemptAt" <= ?
         ORDER BY "nextAttemptAt" ASC LIMIT 50`,
        [now()],
      );
      let enqueued = 0;
      for (const { id } of due) if ((await schedule(id, now())) !== null) enqueued += 1;
      return { due: due.length, enqueued };
    },
    async runJob(job) {
      const { recordId } = job.payload;
      const record = await commitLog.getCommit({ id: recordId });
      if (!record || record.status !== "failed" || record.nextAttemptAt === null) return "settled";
      // Not due: another attempt holds the record's claim (it stores the next job itself if it
      // fails), or this job started early. Storing a job here could hold the record's one
      // waiting slot at the wrong time; the pass enqueues the record once it is due.
      if (record.nextAttemptAt.getTime() > now().getTime()) return "not-due";
      let status = "taken";
      const sweep = await retryDueCommits({
        commitLog,
        dirs,
        policy: retryPolicy,
        clock,
        ids: [recordId],
        limit: 1,
        onRetried: (event) => {
          status = event.status;
        },
      });
      // Another attempt claimed it between the read and the claim: that attempt goes on.
      if (sweep.claimed === 0) return "taken";
      if (status !== "succeeded") log(`automatic retry of ${recordId}: ${status}`);
      // Failed again (or the database failed mid-attempt): the next attempt is a new job.
      const after = await commitLog.getCommit({ id: recordId });
      if (after?.status === "failed" && after.nextAttemptAt !== null)
        await schedule(recordId, after.nextAttemptAt);
      return status;
    },
  };

  const closeDeadTurns = async (): Promise<string[]> => {
    const at = now();
    // A running turn whose lease ran out, or one started before leases existed.
    const expired = `"status" = 'running'
      AND ("leaseExpiresAt" < ? OR ("leaseExpiresAt" IS NULL AND "startedAt" < ?))`;
    const expiredParams = [at, new Date(at.getTime() - turnLeaseMs)];
    const candidates = await sql.all<{ id: string }>(
      `SELECT "id" FROM "Turn" WHERE ${expired} LIMIT 50`,
      expiredParams,
    );
    const closed: string[] = [];
    for (const { id } of candidates) {
      // Conditional: a process that refreshed its lease meanwhile keeps its turn.
      const moved = await sql.run(
        `UPDATE "Turn" SET "status" = 'interrupted', "error" = ?, "finishedAt" = ?
         WHERE "id" = ? AND ${expired}`,
        [
          "The server stopped during this turn; nothing from it was saved.",
          at,
          id,
          ...expiredParams,
        ],
      );
      if (moved.changes === 1) closed.push(id);
    }
    return closed;
  };

  const recoverDeadJournals = async (): Promise<string[]> => {
    const turnIds = await journal.listTurns({ limit: 50 });
    if (turnIds.length === 0) return [];
    const running = new Set(
      (
        await sql.all<{ id: string }>(
          `SELECT "id" FROM "Turn" WHERE "status" = 'running' AND "id" IN (${placeholders(turnIds.length)})`,
          turnIds,
        )
      ).map((turn) => turn.id),
    );
    const recovered: string[] = [];
    for (const turnId of turnIds) {
      if (running.has(turnId)) continue;
      await recoverInterruptedTurn({ turnId, journal, commitLog, dirs });
      recovered.push(turnId);
    }
    return recovered;
  };

  let timer: ReturnType<typeof setInterval> | null = null;
  let inFlight: Promise<DurabilityPassResult> | null = null;

  const pass = async (): Promise<DurabilityPassResult> => {
    const errors: string[] = [];
    const step = async <T>(name: string, work: () => Promise<T>, fallback: T): Promise<T> => {
      try {
        return await work();
      } catch (error) {
        errors.push(`${name}: ${error instanceof Error ? error.message : String(error)}`);
        return fallback;
      }
    };
    // Spool first: a completed turn's spooled commit must land before its journal is recovered.
    const spoolResult = await step(
      "spool",
      () => drainSpool({ spool, commitLog, journal, clock }),
      { imported: 0, remaining: -1, error: null },
    );
    if (spoolResult.error) errors.push(`spool: ${spoolResult.error.message}`);
    const spoolDone = spoolResult.error === null && spoolResult.remaining <= 0;
    const closedTurns = await step("turns", closeDeadTurns, [] as string[]);
    // While this instance still holds spooled items, their journals may be stale: wait.
    const recoveredTurns = spoolDone
      ? await step("journal", recoverDeadJournals, [] as string[])
      : [];
    const retries = await step("retry", () => retryRunner.scheduleDue(), { due: 0, enqueued: 0 });
    return { spool: spoolResult, closedTurns, recoveredTurns, retries, errors };
  };

  const runOnce = (): Promise<DurabilityPassResult> => {
    inFlight ??= pass().finally(() => {
      inFlight = null;
    });
    return inFlight;
  };

  return {
    journal,
    spool,
    retryPolicy,
    turnLeaseMs,
    retryRunner,
    runOnce,
    start() {
      if (timer) return;
      const tick = () => {
        void runOnce().then(
          (result) => {
            options.onPass?.(result);
            if (result.errors.length > 0) log("durability pass incomplete", result.errors);
          },
          (error: unknown) => log("durability pass failed", error),
        );
      };
      tick();
      timer = setInterval(tick, intervalMs);
      timer.unref?.();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = null;
    },
  };
}
