import { cairn } from "@/lib/cairn";
import type { JobQueue } from "./job-queue";

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

/**
 * The process's job queue (`cairn().jobQueue`): pg-boss on PostgreSQL, the `Job` table on
 * SQLite. Every instance on the database shares its jobs.
 */
export function getJobQueue(): JobQueue {
  return cairn().jobQueue;
}

/** `CAIRN_JOB_EXPIRE_SECONDS`: how long one attempt may hold a job before it counts as dead. Default 300. */
export function jobExpirySeconds(): number {
  return cairn().config.jobExpireSeconds;
}
