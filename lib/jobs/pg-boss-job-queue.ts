import { randomUUID } from "node:crypto";
import PgBoss from "pg-boss";
import { createStderrLogger, type Logger } from "@/lib/harness";
import {
  JOB_DEFAULTS,
  type EnqueueOptions,
  type JobHandler,
  type JobInfo,
  type JobQueue,
  type WorkOptions,
} from "./job-queue";

/** Options of `createPgBossJobQueue`. */
export interface PgBossJobQueueOptions {
  /** The application's PostgreSQL URL; pg-boss keeps its tables in the `pgboss` schema there. */
  url: string;
  /** Connections of pg-boss's own pool. Default 4. */
  maxConnections?: number;
  /**
   * How often expired claims (workers that died) are turned into failed attempts, archived and
   * deleted; one instance does it per interval. Default 30 s.
   */
  maintenanceIntervalSeconds?: number;
  /** Where pg-boss's own errors go. Default: JSON lines on stderr. */
  logger?: Logger;
}

/**
 * The job queue on PostgreSQL: pg-boss 10 (`SKIP LOCKED` fetches, retries with backoff,
 * expiry, archiving). Queues are created on first use with the `short` policy, which gives
 * `singletonKey` its meaning here: one waiting job per key. A job without a key gets a random
 * one, so it never collides. Started lazily; `stop()` closes its pool.
 */
export function createPgBossJobQueue(options: PgBossJobQueueOptions): JobQueue {
  const create = () => {
    const created = new PgBoss({
      connectionString: options.url,
      schema: "pgboss",
      application_name: "cairn-jobs",
      max: options.maxConnections ?? 4,
      // No cron schedules: nothing uses them, and the scheduler would poll.
      schedule: false,
      supervise: true,
      maintenanceIntervalSeconds: options.maintenanceIntervalSeconds ?? 30,
    });
    created.on("error", (error) =>
      (options.logger ?? createStderrLogger()).error({ err: error }, "job queue (pg-boss) error"),
    );
    return created;
  };
  let boss = create();
  let started: Promise<unknown> | null = null;
  const queues = new Map<string, Promise<void>>();

  // A start that failed (the database was away) leaves pg-boss half started, and it never tries
  // again: drop that instance and start a fresh one on the next call.
  const start = () =>
    (started ??= boss.start().catch(async (error: unknown) => {
      const failed = boss;
      boss = create();
      started = null;
      queues.clear();
      await failed.stop({ graceful: false, close: true, wait: false }).catch(() => undefined);
      throw error;
    }));
  const ensureQueue = async (name: string): Promise<void> => {
    await start();
    let created = queues.get(name);
    if (!created) {
      created = boss.createQueue(name, { name, policy: "short" });
      queues.set(name, created);
      created.catch(() => queues.delete(name));
    }
    await created;
  };

  /** This process's workers per job name (pg-boss worker ids), woken in turn after a send. */
  const workers = new Map<string, string[]>();
  const workersOf = (name: string): string[] => {
    let ids = workers.get(name);
    if (!ids) workers.set(name, (ids = []));
    return ids;
  };
  const notifyOne = (name: string): void => {
    const ids = workersOf(name);
    const id = ids.shift();
    if (id === undefined) return;
    ids.push(id);
    boss.notifyWorker(id);
  };

  return {
    async enqueue<P>(name: string, payload: P, enqueueOptions: EnqueueOptions = {}) {
      await ensureQueue(name);
      const id = await boss.send(name, (payload ?? null) as object, {
        ...(enqueueOptions.id ? { id: enqueueOptions.id } : {}),
        singletonKey: enqueueOptions.singletonKey ?? randomUUID(),
        retryLimit: enqueueOptions.retryLimit ?? JOB_DEFAULTS.retryLimit,
        retryDelay: enqueueOptions.retryDelaySeconds ?? JOB_DEFAULTS.retryDelaySeconds,
        retryBackoff: enqueueOptions.retryBackoff ?? JOB_DEFAULTS.retryBackoff,
        expireInSeconds: enqueueOptions.expireInSeconds ?? JOB_DEFAULTS.expireInSeconds,
        ...(enqueueOptions.startAfterSeconds
          ? // A number of seconds, fractions kept (pg-boss adds it to now() as an interval).
            {
              startAfter: Math.max(
                0.001,
                Math.round(enqueueOptions.startAfterSeconds * 1000) / 1000,
              ),
            }
          : {}),
      });
      // This process's worker takes it at once (or when it is due) instead of at its next poll;
      // other instances' workers find it by polling.
      if (id) {
        const delayMs = 1000 * (enqueueOptions.startAfterSeconds ?? 0);
        if (delayMs <= 0) notifyOne(name);
        else setTimeout(() => notifyOne(name), delayMs + 50).unref?.();
      }
      return id;
    },

    async work<P>(name: string, handler: JobHandler<P>, workOptions: WorkOptions = {}) {
      await ensureQueue(name);
      const pollingIntervalSeconds = Math.max(
        0.5,
        workOptions.pollIntervalSeconds ?? JOB_DEFAULTS.pollIntervalSeconds,
      );
      for (let i = 0; i < Math.max(1, workOptions.concurrency ?? 1); i++) {
        const workerId = await boss.work<P>(
          name,
          { batchSize: 1, includeMetadata: true, pollingIntervalSeconds },
          async ([job]) => {
            if (!job) return;
            return handler({ id: job.id, name, payload: job.data, retryCount: job.retryCount });
          },
        );
        workersOf(name).push(workerId);
      }
    },

    async getJob(name: string, id: string): Promise<JobInfo | null> {
      await start();
      const job = await boss.getJobById(name, id, { includeArchive: true });
      if (!job) return null;
      return {
        id: job.id,
        name: job.name,
        state: job.state,
        retryCount: job.retryCount,
        output: job.output ?? null,
      };
    },

    async stop(stopOptions = {}) {
      if (!started) return;
      await started.catch(() => undefined);
      const timeout = stopOptions.timeoutMs ?? 10_000;
      // pg-boss fails the jobs still running when it stops, so they are retried elsewhere.
      workers.clear();
      await boss.stop({ graceful: timeout > 0, wait: true, close: true, timeout });
    },
  };
}
