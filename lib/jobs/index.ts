import { getDb, resolveDatabaseTarget } from "@/lib/db";
import type { JobQueue } from "./job-queue";
import { createPgBossJobQueue } from "./pg-boss-job-queue";
import { createTableJobQueue } from "./table-job-queue";

export {
  JOB_DEFAULTS,
  retryDelayOf,
  type EnqueueOptions,
  type Job,
  type JobHandler,
  type JobInfo,
  type JobQueue,
  type JobState,
  type WorkOptions,
} from "./job-queue";
export { createPgBossJobQueue, type PgBossJobQueueOptions } from "./pg-boss-job-queue";
export { createTableJobQueue } from "./table-job-queue";

const globalForJobs = globalThis as unknown as { cairnJobQueue?: { queue: JobQueue; url: string } };

/**
 * The process-wide job queue for `DATABASE_URL`: pg-boss on PostgreSQL, the `Job` table on
 * SQLite. Every instance on the database shares its jobs.
 */
export function getJobQueue(): JobQueue {
  const target = resolveDatabaseTarget();
  if (globalForJobs.cairnJobQueue?.url !== target.url) {
    globalForJobs.cairnJobQueue = {
      queue:
        target.provider === "postgresql"
          ? createPgBossJobQueue({
              url: target.url,
              maintenanceIntervalSeconds: Math.min(30, Math.max(1, jobExpirySeconds() / 3)),
            })
          : createTableJobQueue(getDb()),
      url: target.url,
    };
  }
  return globalForJobs.cairnJobQueue.queue;
}

/** `CAIRN_JOB_EXPIRE_SECONDS`: how long one attempt may hold a job before it counts as dead. Default 300. */
export function jobExpirySeconds(): number {
  const value = Number(process.env.CAIRN_JOB_EXPIRE_SECONDS ?? 300);
  return Number.isFinite(value) && value >= 1 ? Math.floor(value) : 300;
}
