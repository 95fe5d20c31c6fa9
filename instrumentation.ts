/**
 * Runs once per server process at start (Next.js instrumentation): starts this instance's
 * background workers on the durable job queue. Every instance runs them; the queue hands each
 * job to one worker. `CAIRN_WORKERS=off` keeps an instance out (e.g. a web-only instance).
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  if (process.env.CAIRN_WORKERS === "off") return;
  // `next build` loads this file in its workers too: no queue there.
  if (process.env.NEXT_PHASE === "phase-production-build") return;
  const { startJobWorkers } = await import("./lib/jobs/start-job-workers");
  await startJobWorkers();
}
