import { readdir, stat } from "node:fs/promises";
import path from "node:path";
import {
  collectDefaultMetrics,
  Counter,
  Gauge,
  Histogram,
  Registry,
  type CounterConfiguration,
} from "prom-client";
import type { TurnResult, TurnTraceEvent } from "@/lib/harness";

/**
 * What `createMetrics` reads at scrape time, each optional: a source that fails leaves its gauge
 * at its last value rather than failing the scrape.
 */
export interface MetricsSources {
  /** The spool folder (`<dataDir>/spool`): its files and bytes. */
  spoolDir?: string;
  /** Jobs waiting or running, by job name. */
  queueDepth?: () => Promise<Record<string, number>>;
}

/** Tool names outside this set are counted as `other`: labels stay bounded. */
const KNOWN_TOOLS = new Set([
  "memory",
  "bash",
  "create_entry",
  "update_entry",
  "delete_entry",
  "load_skill",
  "delegate",
  "refine",
]);

/**
 * The instance's Prometheus metrics (prom-client, one registry per Cairn so tests scrape their
 * own). Labels are bounded — outcomes, tool and job names, never user, chat or workspace ids.
 * Names and meanings: docs/observability.md.
 */
export function createMetrics(sources: MetricsSources = {}) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "cairn_process_" });
  const counter = <T extends string>(config: Omit<CounterConfiguration<T>, "registers">) =>
    new Counter<T>({ ...config, registers: [registry] });

  const turnsStarted = counter({
    name: "cairn_chat_turns_started_total",
    help: "Chat turns started (model turns; /refine commands not counted).",
  });
  const turnsFinished = counter({
    name: "cairn_chat_turns_finished_total",
    help: "Chat turns by how they ended: completed, failed, aborted (stop button), interrupted (process died; counted by the instance that closed it).",
    labelNames: ["status"] as const,
  });
  const turnSeconds = new Histogram({
    name: "cairn_chat_turn_duration_seconds",
    help: "Wall time of a chat turn, from start to its last commit.",
    labelNames: ["status"] as const,
    buckets: [0.25, 0.5, 1, 2, 5, 10, 20, 40, 80, 160, 300],
    registers: [registry],
  });
  const modelSeconds = new Histogram({
    name: "cairn_chat_model_duration_seconds",
    help: "Time of a turn spent in model steps (from the prompt being built to the last step).",
    buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 40, 80, 160, 300],
    registers: [registry],
  });
  const toolCalls = counter({
    name: "cairn_tool_calls_total",
    help: "Agent tool calls by tool and outcome (ok, error).",
    labelNames: ["tool", "outcome"] as const,
  });
  const commits = counter({
    name: "cairn_commits_total",
    help: "Persistent-dir commits by outcome: succeeded, failed, conflicted, retried (an automatic retry ran).",
    labelNames: ["outcome"] as const,
  });
  const jobFailures = counter({
    name: "cairn_job_failures_total",
    help: "Background job attempts that threw, by job name.",
    labelNames: ["job"] as const,
  });
  const refinements = counter({
    name: "cairn_refinements_total",
    help: "Refinements by outcome (applied, skipped, failed, …).",
    labelNames: ["outcome"] as const,
  });
  const signIns = counter({
    name: "cairn_sign_in_attempts_total",
    help: "Sign-in attempts by method (password, oidc, github) and outcome (ok, invalid, limited, unavailable, refused).",
    labelNames: ["method", "outcome"] as const,
  });
  const lockouts = counter({
    name: "cairn_sign_in_lockouts_total",
    help: "Password sign-ins refused by the sign-in limits, by rule (address, pair, email).",
    labelNames: ["rule"] as const,
  });
  new Gauge({
    name: "cairn_spool_files",
    help: "Changes waiting in this instance's spool (the database did not take them yet).",
    registers: [registry],
    async collect() {
      if (sources.spoolDir) this.set((await spoolSize(sources.spoolDir)).files);
    },
  });
  new Gauge({
    name: "cairn_spool_bytes",
    help: "Bytes in this instance's spool.",
    registers: [registry],
    async collect() {
      if (sources.spoolDir) this.set((await spoolSize(sources.spoolDir)).bytes);
    },
  });
  new Gauge({
    name: "cairn_job_queue_depth",
    help: "Jobs waiting or running, by job name (the whole queue, shared by every instance).",
    labelNames: ["job"] as const,
    registers: [registry],
    async collect() {
      if (!sources.queueDepth) return;
      try {
        this.reset();
        for (const [job, count] of Object.entries(await sources.queueDepth())) {
          this.set({ job }, count);
        }
      } catch {
        // The database is away: /api/ready says so; the scrape still answers.
      }
    },
  });
  const activeTurns = new Gauge({
    name: "cairn_active_chat_turns",
    help: "Chat turns running in this instance.",
    registers: [registry],
  });

  return {
    registry,
    turnsStarted,
    turnsFinished,
    activeTurns,
    jobFailures,
    refinements,
    signIns,
    lockouts,
    commits,
    /** Counts what a finished turn's trace says: its status, time, model time, tools, commits. */
    observeTurn(result: Pick<TurnResult, "status" | "trace">): void {
      turnsFinished.inc({ status: result.status });
      const times = turnTimes(result.trace);
      if (times.turnSeconds !== null)
        turnSeconds.observe({ status: result.status }, times.turnSeconds);
      if (times.modelSeconds !== null) modelSeconds.observe(times.modelSeconds);
      for (const event of result.trace) {
        if (event.type === "tool.result") {
          const tool = KNOWN_TOOLS.has(event.toolName) ? event.toolName : "other";
          toolCalls.inc({ tool, outcome: event.isError ? "error" : "ok" });
        } else if (event.type === "commit.succeeded") commits.inc({ outcome: "succeeded" });
        else if (event.type === "commit.failed") commits.inc({ outcome: "failed" });
        else if (event.type === "commit.conflict") commits.inc({ outcome: "conflicted" });
      }
    },
  };
}

/** The instance's metrics (`cairn().metrics`). */
export type Metrics = ReturnType<typeof createMetrics>;

/** Turn and model seconds from a turn's trace (`null` when the events are missing). */
export function turnTimes(trace: readonly TurnTraceEvent[]): {
  turnSeconds: number | null;
  modelSeconds: number | null;
} {
  const time = (event: TurnTraceEvent | undefined) =>
    event ? new Date(event.at).getTime() : Number.NaN;
  const finished = trace.find((event) => event.type === "turn.finished");
  const built = trace.find((event) => event.type === "instructions.built");
  const lastModel = trace.findLast(
    (event) => event.type === "model.step" || event.type === "model.error",
  );
  const model = (time(lastModel) - time(built)) / 1000;
  return {
    turnSeconds: finished?.type === "turn.finished" ? finished.durationMs / 1000 : null,
    modelSeconds: Number.isFinite(model) && model >= 0 ? model : null,
  };
}

async function spoolSize(directory: string): Promise<{ files: number; bytes: number }> {
  let names: string[];
  try {
    names = await readdir(directory);
  } catch {
    return { files: 0, bytes: 0 };
  }
  let files = 0;
  let bytes = 0;
  for (const name of names) {
    if (!name.endsWith(".json")) continue;
    try {
      bytes += (await stat(path.join(directory, name))).size;
      files += 1;
    } catch {
      // Imported meanwhile.
    }
  }
  return { files, bytes };
}
