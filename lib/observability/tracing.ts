import {
  context,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
} from "@opentelemetry/api";
import type { Telemetry } from "ai";
import type { TurnResultStatus, TurnTraceEvent } from "@/lib/harness";

/**
 * Cairn's OpenTelemetry spans (decision 0038). Without a registered tracer provider (traces
 * are off unless `OTEL_EXPORTER_OTLP_ENDPOINT` is set, instrumentation.ts) every call here is the
 * API's no-op. Span attributes carry names, counts, outcomes and ids — never message text, file
 * contents or tool inputs unless `CAIRN_TRACE_CONTENT=on`.
 */
export const tracer = () => trace.getTracer("cairn");

/** Runs `work` inside a span named `name`; the span ends (with the error recorded) when it settles. */
export async function inSpan<T>(
  name: string,
  attributes: Attributes,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  return tracer().startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.recordException(error instanceof Error ? error : String(error));
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** A chat turn's span and the context its children (and the AI SDK's model spans) run in. */
export interface TurnSpan {
  span: Span;
  context: Context;
  /** Turns the turn's trace events into child spans as they happen (`streamHarness`'s `onTrace`). */
  onTrace(event: TurnTraceEvent): void;
  /**
   * The AI SDK telemetry integration of this turn's model calls: a `cairn.model.step` span per
   * step (provider, model, finish reason, tokens; never the prompt or the answer).
   */
  modelSteps: Telemetry;
  /** Ends the turn span (and any child a failed turn left open) with the turn's status. */
  end(status: TurnResultStatus | "error"): void;
}

/** Starts `cairn.chat.turn` under the active context (the request's span). */
export function startTurnSpan(options: {
  turnId: string;
  workspaceId: string;
  model: string;
  recordContent: boolean;
}): TurnSpan {
  const span = tracer().startSpan("cairn.chat.turn", {
    attributes: {
      "cairn.turn.id": options.turnId,
      "cairn.workspace.id": options.workspaceId,
      "cairn.model": options.model,
    },
  });
  const turnContext = trace.setSpan(context.active(), span);
  const child = (name: string, attributes: Attributes) =>
    tracer().startSpan(name, { attributes }, turnContext);
  let dirs: Span | null = null;
  let prompt: Span | null = null;
  const tools = new Map<string, Span>();
  const commits = new Map<string, Span>();

  let step: Span | null = null;
  const modelSteps: Telemetry = {
    onStepStart(event) {
      step?.end();
      step = child("cairn.model.step", {
        "gen_ai.system": event.provider,
        "gen_ai.request.model": event.modelId,
        "cairn.model.step": event.stepNumber,
      });
    },
    onStepEnd(event) {
      if (!step) return;
      step.setAttributes({
        "gen_ai.response.finish_reasons": [event.finishReason],
        ...(event.usage.inputTokens !== undefined && {
          "gen_ai.usage.input_tokens": event.usage.inputTokens,
        }),
        ...(event.usage.outputTokens !== undefined && {
          "gen_ai.usage.output_tokens": event.usage.outputTokens,
        }),
      });
      step.end();
      step = null;
    },
    onStepError() {
      step?.setStatus({ code: SpanStatusCode.ERROR }).end();
      step = null;
    },
  };

  const endPhases = () => {
    if (dirs) {
      dirs.end();
      dirs = null;
    }
  };
  return {
    span,
    context: turnContext,
    modelSteps,
    onTrace(event) {
      switch (event.type) {
        case "turn.started":
          dirs = child("cairn.dirs.load", {});
          break;
        case "dir.loaded":
          dirs?.setAttribute(`cairn.dir.${event.harnessDir}.files`, event.fileCount);
          break;
        case "compaction":
          endPhases();
          prompt ??= child("cairn.prompt.build", {});
          prompt.setAttribute("cairn.compaction.removed_messages", event.removedMessages);
          break;
        case "instructions.built":
          endPhases();
          (prompt ?? child("cairn.prompt.build", {}))
            .setAttribute("cairn.prompt.tokens", event.totalTokens)
            .end();
          prompt = null;
          break;
        case "tool.call":
          tools.set(
            event.toolCallId,
            child("cairn.tool_call", {
              "cairn.tool.name": event.toolName,
              "cairn.tool.call_id": event.toolCallId,
              ...(options.recordContent && { "cairn.tool.input": safeJson(event.input) }),
            }),
          );
          break;
        case "tool.result": {
          const toolSpan = tools.get(event.toolCallId);
          if (!toolSpan) break;
          toolSpan.setAttribute("cairn.tool.outcome", event.isError ? "error" : "ok");
          if (event.isError) toolSpan.setStatus({ code: SpanStatusCode.ERROR });
          toolSpan.end();
          tools.delete(event.toolCallId);
          break;
        }
        case "commit.started":
          commits.get(event.harnessDir)?.end();
          commits.set(
            event.harnessDir,
            child("cairn.commit", {
              "cairn.dir": event.harnessDir,
              "cairn.commit.mode": event.mode,
              "cairn.commit.files": event.changes.counts.total,
            }),
          );
          break;
        case "commit.succeeded":
        case "commit.failed":
        case "commit.conflict": {
          const commitSpan = commits.get(event.harnessDir);
          if (!commitSpan) break;
          const outcome = event.type.slice("commit.".length);
          commitSpan.setAttribute("cairn.commit.outcome", outcome);
          if (event.type !== "commit.succeeded")
            commitSpan.setStatus({ code: SpanStatusCode.ERROR });
          commitSpan.end();
          commits.delete(event.harnessDir);
          break;
        }
        default:
          break;
      }
    },
    end(status) {
      endPhases();
      prompt?.end();
      step?.end();
      for (const open of [...tools.values(), ...commits.values()]) open.end();
      span.setAttribute("cairn.turn.status", status);
      if (status === "failed" || status === "error") span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    },
  };
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value).slice(0, 4_000);
  } catch {
    return String(value);
  }
}
