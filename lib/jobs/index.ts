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
export * from "./process-job-queue";
