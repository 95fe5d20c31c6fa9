import path from "node:path";

import type { Db } from "@/lib/db";
import {
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
  type RetrySweepResult,
  type TurnJournal,
} from "@/lib/harness";
import { createTurnJournal, sqlForDb } from "@/lib/storage";
import type { AppExtraBody, AppSession } from "./app-dirs";

/**
 * Runs automatic commit retries. Today a sweep of the commit log on a timer (claims due records
 * by a conditional update); a job queue can implement the same interface later without the
 * turn or the pages noticing.
 */
export interface CommitRetryRunner {
  /** Retries every record that is due now; safe to call from several instances at once. */
  runDue(): Promise<RetrySweepResult>;
}

/** What one background pass did. */
export interface DurabilityPassResult {
  spool: DrainSpoolResult;
  /** Turns whose lease expired, closed as `interrupted` by this pass. */
  closedTurns: string[];
  /** Dead turns whose journal became `interrupted` records (or was found already applied). */
  recoveredTurns: string[];
  retries: RetrySweepResult;
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
  /** One pass: drain the spool, close dead turns and recover their journals, retry due commits. */
  runOnce(): Promise<DurabilityPassResult>;
  /** Runs a pass now and then every `intervalMs` (timers are unref'd). Idempotent. */
  start(): void;
  stop(): void;
}

/** Options for `createDurability`. */
export interface DurabilityOptions {
  db: Db;
  dirs: readonly PersistentDir<AppExtraBody, AppSession>[];
  commitLog: CommitLog;
  /** The spool lives in `<dataDir>/spool`. */
  dataDir: string;
  retryPolicy?: RetryPolicy;
  turnLeaseMs?: number;
  intervalMs?: number;
  now?: () => Date;
  log?: (message: string, detail?: unknown) => void;
}

export const DEFAULT_TURN_LEASE_MS = 60_000;
export const DEFAULT_DURABILITY_INTERVAL_MS = 5_000;

/**
 * Builds the app's durability on `db`. Several instances may share the database: closing a turn
 * is conditional on its lease having expired (a live process keeps refreshing it), recovery and
 * imports append under stable ids, and retries claim records by conditional update.
 */
export function createDurability(options: DurabilityOptions): Durability {
  const { db, dirs, commitLog } = options;
  const now = options.now ?? (() => new Date());
  const log =
    options.log ?? ((message, detail) => console.error(`cairn: ${message}`, detail ?? ""));
  const retryPolicy = options.retryPolicy ?? DEFAULT_RETRY_POLICY;
  const turnLeaseMs = options.turnLeaseMs ?? DEFAULT_TURN_LEASE_MS;
  const intervalMs = options.intervalMs ?? DEFAULT_DURABILITY_INTERVAL_MS;
  const journal = createTurnJournal({ sql: sqlForDb(db) });
  const spool = createFileSpool({
    directory: path.join(options.dataDir, "spool"),
    now,
    onCorrupt: (file, error) => log(`unreadable spool file kept as ${file}.corrupt`, error),
  });
  const clock = { now };

  const retryRunner: CommitRetryRunner = {
    runDue: () =>
      retryDueCommits({
        commitLog,
        dirs,
        policy: retryPolicy,
        clock,
        onRetried: ({ record, status }) => {
          if (status !== "succeeded") log(`automatic retry of ${record.id}: ${status}`);
        },
      }),
  };

  const expired = (at: Date) => ({
    status: "running",
    OR: [
      { leaseExpiresAt: { lt: at } },
      // Turns started before leases existed.
      { leaseExpiresAt: null, startedAt: { lt: new Date(at.getTime() - turnLeaseMs) } },
    ],
  });

  const closeDeadTurns = async (): Promise<string[]> => {
    const at = now();
    const candidates = await db.turn.findMany({
      where: expired(at),
      select: { id: true },
      take: 50,
    });
    const closed: string[] = [];
    for (const { id } of candidates) {
      // Conditional: a process that refreshed its lease meanwhile keeps its turn.
      const moved = await db.turn.updateMany({
        where: { id, ...expired(at) },
        data: {
          status: "interrupted",
          error: "The server stopped during this turn; nothing from it was saved.",
          finishedAt: at,
        },
      });
      if (moved.count === 1) closed.push(id);
    }
    return closed;
  };

  const recoverDeadJournals = async (): Promise<string[]> => {
    const turnIds = await journal.listTurns({ limit: 50 });
    if (turnIds.length === 0) return [];
    const running = new Set(
      (
        await db.turn.findMany({
          where: { id: { in: turnIds }, status: "running" },
          select: { id: true },
        })
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
    const retries = await step("retry", () => retryRunner.runDue(), {
      claimed: 0,
      succeeded: 0,
      rescheduled: 0,
      needsPerson: 0,
    });
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

function positiveNumber(value: string | undefined, fallback: number): number {
  const parsed = Number(value);
  return Number.isFinite(parsed) && parsed > 0 ? parsed : fallback;
}

/** The retry policy, lease and pass interval from the environment (documented in the README). */
export function durabilitySettingsFromEnv(env: NodeJS.ProcessEnv = process.env): {
  retryPolicy: RetryPolicy;
  turnLeaseMs: number;
  intervalMs: number;
} {
  return {
    retryPolicy: {
      maxAttempts: Math.floor(
        positiveNumber(env.CAIRN_COMMIT_RETRY_ATTEMPTS, DEFAULT_RETRY_POLICY.maxAttempts),
      ),
      baseDelayMs: positiveNumber(
        env.CAIRN_COMMIT_RETRY_DELAY_MS,
        DEFAULT_RETRY_POLICY.baseDelayMs,
      ),
      maxDelayMs: DEFAULT_RETRY_POLICY.maxDelayMs,
    },
    turnLeaseMs: positiveNumber(env.CAIRN_TURN_LEASE_MS, DEFAULT_TURN_LEASE_MS),
    intervalMs: positiveNumber(env.CAIRN_DURABILITY_INTERVAL_MS, DEFAULT_DURABILITY_INTERVAL_MS),
  };
}
