import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { TurnTraceEvent } from "@/lib/harness";
import { createMetrics, turnTimes } from "./metrics";

const at = (seconds: number) => new Date(Date.UTC(2026, 11, 1, 10, 0, seconds)).toISOString();

const trace: TurnTraceEvent[] = [
  { type: "turn.started", at: at(0), messageCount: 1 },
  { type: "instructions.built", at: at(1), sections: [], totalTokens: 10 },
  { type: "tool.call", at: at(2), toolCallId: "c1", toolName: "memory", input: {} },
  {
    type: "tool.result",
    at: at(2),
    toolCallId: "c1",
    toolName: "memory",
    output: "ok",
    isError: false,
    durationMs: 5,
  },
  {
    type: "tool.call",
    at: at(2),
    toolCallId: "c2",
    toolName: "mcp_user_supplied_tool_9",
    input: {},
  },
  {
    type: "tool.result",
    at: at(3),
    toolCallId: "c2",
    toolName: "mcp_user_supplied_tool_9",
    output: "Error: no",
    isError: true,
    durationMs: 5,
  },
  { type: "model.step", at: at(4), step: 0, finishReason: "stop" },
  {
    type: "commit.failed",
    at: at(5),
    harnessDir: "/persistent/user",
    mode: "after-turn",
    error: { code: "x", message: "y" },
  },
  { type: "turn.finished", at: at(6), status: "completed", durationMs: 6_000 },
] as TurnTraceEvent[];

describe("createMetrics", () => {
  it("counts a finished turn's status, time, model time, tools and commits with bounded labels", async () => {
    const metrics = createMetrics();
    metrics.turnsStarted.inc();
    metrics.observeTurn({ status: "completed", trace });
    const text = await metrics.registry.metrics();
    expect(text).toContain("cairn_chat_turns_started_total 1");
    expect(text).toContain('cairn_chat_turns_finished_total{status="completed"} 1');
    expect(text).toContain('cairn_tool_calls_total{tool="memory",outcome="ok"} 1');
    // A tool name outside the app's own set is not a label of its own.
    expect(text).toContain('cairn_tool_calls_total{tool="other",outcome="error"} 1');
    expect(text).not.toContain("mcp_user_supplied_tool_9");
    expect(text).toContain('cairn_commits_total{outcome="failed"} 1');
    expect(text).toContain('cairn_chat_turn_duration_seconds_count{status="completed"} 1');
    expect(text).toContain('cairn_chat_turn_duration_seconds_sum{status="completed"} 6');
    expect(text).toContain("cairn_chat_model_duration_seconds_sum 3");
    expect(text).toContain("cairn_process_");
  });

  it("reads the spool and the queue at scrape time", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "cairn-metrics-"));
    const spoolDir = path.join(dataDir, "spool");
    mkdirSync(spoolDir);
    writeFileSync(path.join(spoolDir, "a.json"), "12345");
    writeFileSync(path.join(spoolDir, "b.json.rejected"), "ignored");
    const metrics = createMetrics({
      spoolDir,
      queueDepth: async () => ({ refinement: 2, "commit-retry": 1 }),
    });
    const text = await metrics.registry.metrics();
    expect(text).toContain("cairn_spool_files 1");
    expect(text).toContain("cairn_spool_bytes 5");
    expect(text).toContain('cairn_job_queue_depth{job="refinement"} 2');
    expect(text).toContain('cairn_job_queue_depth{job="commit-retry"} 1');
  });

  it("answers a scrape when the queue cannot be read", async () => {
    const metrics = createMetrics({
      queueDepth: () => Promise.reject(new Error("database away")),
    });
    await expect(metrics.registry.metrics()).resolves.toContain("cairn_job_queue_depth");
  });

  it("turnTimes is null for a trace without the events", () => {
    expect(turnTimes([])).toEqual({ turnSeconds: null, modelSeconds: null });
  });
});
