/**
 * The job queue port: durable background work shared by every app instance on one database.
 * Framework-free on purpose (no Next, no Prisma), so the harness's automatic commit retries
 * and any later background job can use it.
 *
 * Semantics, the same for both implementations (`createPgBossJobQueue` on PostgreSQL,
 * `createTableJobQueue` on SQLite):
 * - **Durable**: `enqueue` returns once the job is stored; it survives restarts of every process.
 * - **One worker at a time**: a job is claimed by exactly one worker of one instance.
 * - **Retries with backoff**: a handler that throws is retried after `retryDelaySeconds`,
 *   doubled per attempt with `retryBackoff`, at most `retryLimit` times; then the job is
 *   `failed`.
 * - **Expiry**: a claim lasts `expireInSeconds`; a job whose worker died (or outran it) then
 *   counts as a failed attempt and is retried. Delivery is therefore at least once: a handler
 *   must be idempotent (the refinement handler is: it claims its refinement row under the
 *   scope's lock, and a row that already has an outcome is left alone).
 * - **Singletons**: while a job with the same name and `singletonKey` waits to start, another
 *   `enqueue` with that key is dropped (returns `null`).
 */
export interface JobQueue {
  /**
   * Stores a job; returns its id, or `null` when a waiting job with the same `singletonKey`
   * already exists. The payload must be JSON.
   */
  enqueue<P>(name: string, payload: P, options?: EnqueueOptions): Promise<string | null>;
  /**
   * Runs `handler` for the jobs of `name` in this process until `stop()`. Resolves once the
   * worker is registered (it polls in the background). A handler that resolves completes the
   * job; one that throws fails this attempt (see retries).
   */
  work<P>(name: string, handler: JobHandler<P>, options?: WorkOptions): Promise<void>;
  /** A job's state, or `null` when unknown (never stored, or deleted after retention). */
  getJob(name: string, id: string): Promise<JobInfo | null>;
  /** Stops polling; waits up to `timeoutMs` (default 10 s) for running handlers, then abandons them. */
  stop(options?: { timeoutMs?: number }): Promise<void>;
}

/** Options of `enqueue`. */
export interface EnqueueOptions {
  /**
   * The job's id (a UUID), so a caller can find its job again from its own record (a refinement
   * uses its row's id). An `enqueue` whose id is already stored returns `null`. Default: random.
   */
  id?: string;
  /** See `JobQueue`: one waiting job per key. */
  singletonKey?: string;
  /** Retries after the first attempt. Default 3. */
  retryLimit?: number;
  /** Seconds before the first retry. Default 10. */
  retryDelaySeconds?: number;
  /** Double the delay on every retry. Default true. */
  retryBackoff?: boolean;
  /** How long one attempt may hold the job. Default 900 (15 minutes). */
  expireInSeconds?: number;
  /** Do not start before this many seconds from now (fractions allowed). Default 0. */
  startAfterSeconds?: number;
}

/** Options of `work`. */
export interface WorkOptions {
  /** How often an idle worker looks for jobs. Default 2 s (at least 0.5 s). */
  pollIntervalSeconds?: number;
  /** How many jobs of this name this process runs at once. Default 1. */
  concurrency?: number;
}

/** One job as a handler sees it. */
export interface Job<P> {
  id: string;
  name: string;
  payload: P;
  /** 0 on the first attempt, then the number of earlier failed attempts. */
  retryCount: number;
}

export type JobHandler<P> = (job: Job<P>) => Promise<unknown>;

/** A job's state: `created` (waiting), `retry` (waiting after a failed attempt), `active`, `completed`, `failed`, `cancelled`. */
export type JobState = "created" | "retry" | "active" | "completed" | "failed" | "cancelled";

/** What `getJob` tells. */
export interface JobInfo {
  id: string;
  name: string;
  state: JobState;
  retryCount: number;
  /** The last error (failed attempts) or the handler's result (completed), as stored. */
  output: unknown;
}

/** The defaults both implementations apply. */
export const JOB_DEFAULTS = {
  retryLimit: 3,
  retryDelaySeconds: 10,
  retryBackoff: true,
  expireInSeconds: 900,
  pollIntervalSeconds: 2,
} as const;

/** The delay before retry number `retryCount + 1`, in seconds. */
export function retryDelayOf(options: {
  retryDelaySeconds: number;
  retryBackoff: boolean;
  retryCount: number;
}): number {
  return options.retryBackoff
    ? options.retryDelaySeconds * 2 ** options.retryCount
    : options.retryDelaySeconds;
}
