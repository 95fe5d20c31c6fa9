/**
 * Runs once per server process at start (Next.js instrumentation hook).
 *
 * - The sign-in limiter needs each request's socket address, which Next 16 does not hand to
 *   route handlers or server actions: stamp it on every request (lib/auth/client-address.ts).
 * - The configuration is parsed first (lib/config): a bad value of any documented variable
 *   stops the start with a message naming it, instead of failing a request later or falling
 *   back silently (decision 0033).
 * - The durability loop begins at once, so changes spooled while the database was away are
 *   imported and turns a dead process left running are closed as interrupted before anyone asks
 *   (docs/persistent-dirs.md, "Nothing lost").
 * - Starts this instance's background workers on the durable job queue. Every instance runs
 *   them; the queue hands each job to one worker. `CAIRN_WORKERS=off` keeps an instance out.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  // `next build` loads this file in its workers too: nothing to start there.
  if (process.env.NEXT_PHASE === "phase-production-build") return;
  // Every variable is parsed now: a bad value stops the start with a message naming it.
  const { cairnConfig, ConfigError } = await import("@/lib/config");
  let config: ReturnType<typeof cairnConfig>;
  try {
    config = cairnConfig();
  } catch (error) {
    if (!ConfigError.isInstance(error)) throw error;
    // No logger without a configuration: the operator reads this one line as it is.
    process.stderr.write(`cairn: ${error.message}\n`);
    process.exit(1);
  }
  // Traces only when an OTLP endpoint is configured (decision 0038): spans of requests (Next's
  // own), chat turns and their steps, model calls (the AI SDK's) and background jobs.
  if (config.tracing.endpoint) {
    const { registerOTel, OTLPHttpJsonTraceExporter } = await import("@vercel/otel");
    registerOTel({
      serviceName: "cairn",
      traceExporter: new OTLPHttpJsonTraceExporter({
        url: `${config.tracing.endpoint.replace(/\/+$/, "")}/v1/traces`,
      }),
    });
  }
  const { cairn } = await import("@/lib/cairn");
  const { logger } = cairn();
  // The AI SDK's warnings (a provider ignoring a setting) as JSON lines of this log, once each.
  const { installAiSdkWarningLogger } = await import("@/lib/observability/ai-sdk-warnings");
  installAiSdkWarningLogger(logger);
  const { installSocketAddressStamp } = await import("./lib/auth/client-address");
  installSocketAddressStamp();
  const { getDurability } = await import("@/lib/workspace-dirs");
  try {
    getDurability();
  } catch (error) {
    logger.error({ err: error }, "durability did not start; it starts with the first chat turn");
  }
  // The docs folder's passages (and, once, everything indexed before search existed).
  void cairn()
    .search.ready()
    .catch((error: unknown) => logger.error({ err: error }, "search index did not start"));
  logger.info(
    { traces: config.tracing.endpoint !== null, metrics: config.metricsToken !== null },
    "server started",
  );
  const workers = config.workers;
  if (!workers) return;
  const { startJobWorkers } = await import("./lib/jobs/start-job-workers");
  await startJobWorkers();
}
