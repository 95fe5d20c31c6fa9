import { trace } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TurnTraceEvent } from "@/lib/harness";
import { startTurnSpan } from "./tracing";

const at = "2026-12-01T10:00:00.000Z";
const exporter = new InMemorySpanExporter();

describe("startTurnSpan", () => {
  beforeAll(() => {
    trace.setGlobalTracerProvider(
      new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
    );
  });
  afterAll(() => {
    trace.disable();
  });

  it("makes the turn's child spans from its trace events and model steps, without content", () => {
    const turn = startTurnSpan({
      turnId: "turn-1",
      workspaceId: "ws-1",
      model: "openai:gpt",
      recordContent: false,
    });
    const events = [
      { type: "turn.started", at, messageCount: 1 },
      {
        type: "dir.loaded",
        at,
        harnessDir: "/persistent/user",
        mode: "after-turn",
        fileCount: 2,
        bytes: 9,
        readOnly: false,
      },
      { type: "instructions.built", at, sections: [], totalTokens: 120 },
      {
        type: "tool.call",
        at,
        toolCallId: "c1",
        toolName: "memory",
        input: { file_text: "secret words" },
      },
      {
        type: "tool.result",
        at,
        toolCallId: "c1",
        toolName: "memory",
        output: "ok",
        isError: false,
        durationMs: 1,
      },
      {
        type: "commit.started",
        at,
        harnessDir: "/persistent/user",
        mode: "after-turn",
        changes: { counts: { total: 1 } },
      },
      {
        type: "commit.failed",
        at,
        harnessDir: "/persistent/user",
        mode: "after-turn",
        error: { code: "x", message: "y" },
      },
    ] as unknown as TurnTraceEvent[];
    turn.onTrace(events[0]!);
    turn.onTrace(events[1]!);
    turn.onTrace(events[2]!);
    void turn.modelSteps.onStepStart?.({
      provider: "openai",
      modelId: "gpt",
      stepNumber: 0,
    } as never);
    turn.onTrace(events[3]!);
    turn.onTrace(events[4]!);
    void turn.modelSteps.onStepEnd?.({
      finishReason: "tool-calls",
      usage: { inputTokens: 10, outputTokens: 3 },
    } as never);
    turn.onTrace(events[5]!);
    turn.onTrace(events[6]!);
    turn.end("completed");

    const spans = exporter.getFinishedSpans();
    const root = spans.find((span) => span.name === "cairn.chat.turn")!;
    const children = spans.filter(
      (span) => span.parentSpanContext?.spanId === root.spanContext().spanId,
    );
    expect(children.map((span) => span.name).sort()).toEqual([
      "cairn.commit",
      "cairn.dirs.load",
      "cairn.model.step",
      "cairn.prompt.build",
      "cairn.tool_call",
    ]);
    expect(root.attributes).toMatchObject({
      "cairn.turn.id": "turn-1",
      "cairn.turn.status": "completed",
    });
    const commit = spans.find((span) => span.name === "cairn.commit")!;
    expect(commit.attributes["cairn.commit.outcome"]).toBe("failed");
    const step = spans.find((span) => span.name === "cairn.model.step")!;
    expect(step.attributes["gen_ai.usage.input_tokens"]).toBe(10);
    expect(JSON.stringify(spans.map((span) => span.attributes))).not.toContain("secret words");
  });
});
