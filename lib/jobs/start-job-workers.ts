import { getJobQueue, type JobHandler } from "@/lib/jobs";
import { inSpan } from "@/lib/observability/tracing";
import {
  COMMIT_RETRY_JOB,
  DIR_HISTORY_COMPACT_JOB,
  getDurability,
  historyCompactionJob,
  scheduleHistoryCompaction,
  type CommitRetryPayload,
} from "@/lib/workspace-dirs";
import { cairn } from "@/lib/cairn";
import {
  TEMPORARY_CHAT_DELETE_JOB,
  temporaryChatDeletionJob,
  type TemporaryChatDeletePayload,
} from "@/lib/chat/temporary-chats";
import { DATA_EXPORT_JOB, dataExportJob, type DataExportJobPayload } from "@/lib/data-export";
import { RETENTION_JOB, retentionJob, scheduleRetention } from "@/lib/erasure";
import { getSql } from "@/lib/sql-storage";
import { DOCUMENT_CONVERT_JOB, getUploads, type DocumentConvertPayload } from "@/lib/uploads";
import {
  REFINEMENT_JOB,
  runRefinementJob,
  sweepStuckRefinements,
  type RefinementJobPayload,
} from "@/lib/refinement-runs";

/** How often a worker instance settles refinements whose job ended without an outcome. */
const REFINEMENT_SWEEP_MS = 60_000;
/** The first history compaction after a start (later ones every 6 h, decision 0030). */
const FIRST_COMPACTION_AFTER_SECONDS = 60;
/** The first retention run after a start (later ones every hour). */
const FIRST_RETENTION_AFTER_SECONDS = 90;
/** How long to wait before trying again when the workers could not start (the database is away). */
const START_RETRY_MS = 10_000;

let started: Promise<void> | null = null;
let sweeper: ReturnType<typeof setInterval> | null = null;
/** Queues this process works already (a start that failed halfway does not register twice). */
const working = new Set<string>();

/**
 * A job handler with its span (`cairn.job`), its failures logged and counted by job name
 * (`cairn_job_failures_total`) and then rethrown, so the queue retries as before: a background
 * job's error is never swallowed.
 */
function observed<P>(name: string, handler: JobHandler<P>): JobHandler<P> {
  return (job) =>
    inSpan("cairn.job", { "cairn.job.name": name, "cairn.job.retry": job.retryCount }, async () => {
      try {
        const result = await handler(job);
        if (name === COMMIT_RETRY_JOB && result !== "settled" && result !== "not-due") {
          cairn().metrics.commits.inc({ outcome: "retried" });
        }
        // A refinement's outcome (applied, skipped, failed, …); a job that found its row
        // already settled ("done", "missing") ran nothing.
        if (
          name === REFINEMENT_JOB &&
          typeof result === "string" &&
          result !== "done" &&
          result !== "missing"
        ) {
          cairn().metrics.refinements.inc({ outcome: result });
        }
        return result;
      } catch (error) {
        cairn().metrics.jobFailures.inc({ job: name });
        cairn().logger.error(
          { err: error, job: name, jobId: job.id, retryCount: job.retryCount },
          "a background job failed; the queue retries it",
        );
        throw error;
      }
    });
}

async function registerWorkers(): Promise<void> {
  const queue = getJobQueue();
  // Refinements, two at a time per instance (the scope lock still runs one per chat and one
  // global at a time across all instances).
  if (!working.has(REFINEMENT_JOB)) {
    // An idle worker polls every 2 s (JOB_DEFAULTS); a job this instance enqueues wakes it at once.
    await queue.work<RefinementJobPayload>(
      REFINEMENT_JOB,
      observed(REFINEMENT_JOB, runRefinementJob),
      { concurrency: 2 },
    );
    working.add(REFINEMENT_JOB);
  }
  // Automatic commit retries (decision 0021): each job retries one record once.
  if (!working.has(COMMIT_RETRY_JOB)) {
    await queue.work<CommitRetryPayload>(
      COMMIT_RETRY_JOB,
      observed<CommitRetryPayload>(COMMIT_RETRY_JOB, (job) =>
        getDurability().retryRunner.runJob(job),
      ),
      { concurrency: 2 },
    );
    working.add(COMMIT_RETRY_JOB);
  }
  // Dir history compaction past the retention window (decision 0030): one job at a time across
  // instances, each run scheduling the next.
  if (!working.has(DIR_HISTORY_COMPACT_JOB)) {
    await queue.work(
      DIR_HISTORY_COMPACT_JOB,
      observed(
        DIR_HISTORY_COMPACT_JOB,
        historyCompactionJob({
          sql: getSql,
          queue: getJobQueue,
          settings: () => cairn().config.dirHistory,
          log: (line) => cairn().logger.info({ job: DIR_HISTORY_COMPACT_JOB }, line),
        }),
      ),
    );
    working.add(DIR_HISTORY_COMPACT_JOB);
    await scheduleHistoryCompaction({ queue, startAfterSeconds: FIRST_COMPACTION_AFTER_SECONDS });
  }
  // Uploaded documents' conversion (issue 25, decision 0050): one at a time per instance, since
  // a large PDF holds its text in memory while it converts.
  if (!working.has(DOCUMENT_CONVERT_JOB)) {
    await queue.work<DocumentConvertPayload>(DOCUMENT_CONVERT_JOB, (job) =>
      getUploads().runConversionJob(job.payload),
    );
    working.add(DOCUMENT_CONVERT_JOB);
  }
  // "Download my data" (Settings → Your data): one build at a time per instance.
  if (!working.has(DATA_EXPORT_JOB)) {
    await queue.work<DataExportJobPayload>(DATA_EXPORT_JOB, dataExportJob({ sql: getSql }));
    working.add(DATA_EXPORT_JOB);
  }
  // Temporary chats past their 24 hours (issue 26, decision 0055): each chat's own job, enqueued
  // when it was started, deletes it and any other expired one.
  if (!working.has(TEMPORARY_CHAT_DELETE_JOB)) {
    await queue.work<TemporaryChatDeletePayload>(
      TEMPORARY_CHAT_DELETE_JOB,
      observed(TEMPORARY_CHAT_DELETE_JOB, temporaryChatDeletionJob({ sql: getSql })),
    );
    working.add(TEMPORARY_CHAT_DELETE_JOB);
  }
  // Chat and audit retention per workspace (Admin → Settings): one run at a time across
  // instances, each scheduling the next an hour later.
  if (!working.has(RETENTION_JOB)) {
    await queue.work(
      RETENTION_JOB,
      observed(RETENTION_JOB, retentionJob({ sql: getSql, queue: getJobQueue })),
    );
    working.add(RETENTION_JOB);
    await scheduleRetention({ queue, startAfterSeconds: FIRST_RETENTION_AFTER_SECONDS });
  }
  sweeper ??= setInterval(() => {
    void sweepStuckRefinements().catch((error: unknown) =>
      cairn().logger.error({ err: error }, "sweeping stuck refinements failed"),
    );
  }, REFINEMENT_SWEEP_MS);
  sweeper.unref?.();
}

/**
 * Registers this process's workers (once): refinements, automatic commit retries, data exports,
 * the deletion of temporary chats and dir history compaction (the first run a minute after start, then every 6 h), plus the
 * sweep that settles refinements whose job ended without an outcome. A failure to start (the
 * database is away) is logged and tried again every 10 s; jobs wait in the queue meanwhile.
 */
export function startJobWorkers(): Promise<void> {
  started ??= registerWorkers().catch((error: unknown) => {
    cairn().logger.error({ err: error }, "starting the job workers failed; trying again in 10 s");
    setTimeout(() => {
      started = null;
      void startJobWorkers();
    }, START_RETRY_MS).unref?.();
  });
  return started;
}
