export * from "./job-queue";
export { createPgBossJobQueue, type PgBossJobQueueOptions } from "./pg-boss-job-queue";
export { createTableJobQueue } from "./table-job-queue";
export * from "./process-job-queue";
