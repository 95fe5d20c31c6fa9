import { getJobQueue } from "@/lib/jobs";
import { REFINEMENT_JOB, runRefinementJob, type RefinementJobPayload } from "@/lib/refinements";

let started: Promise<void> | null = null;

/**
 * Registers this process's workers (once): refinements, two at a time per instance (the scope
 * lock still runs one per chat and one global at a time across all instances). A failure to
 * start is logged and retried on the next call; requests are queued meanwhile and wait.
 */
export function startJobWorkers(): Promise<void> {
  started ??= getJobQueue()
    .work<RefinementJobPayload>(REFINEMENT_JOB, runRefinementJob, {
      concurrency: 2,
      pollIntervalSeconds: 1,
    })
    .catch((error: unknown) => {
      started = null;
      console.error("cairn: starting the job workers failed", error);
    });
  return started;
}
