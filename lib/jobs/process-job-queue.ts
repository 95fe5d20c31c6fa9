import { cairn } from "@/lib/cairn";
import type { JobQueue } from "./job-queue";

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
