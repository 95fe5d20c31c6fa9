import type { Logger } from "../logger";
import type { LanguageModel, TelemetryOptions, Tool, ToolSet, UIMessage } from "ai";
import type {
  CommitLog,
  PersistenceErrorEvent,
  CommitSpool,
  RetryPolicy,
  TurnJournal,
  PersistenceResult,
  PersistentDir,
  PersistentDirTraceEvent,
  SessionFiles,
} from "../persistent";
import type { Harness, RecentRefinement } from "../store";
import type { GlobalEntryProposal } from "./harness-tools";
import type { MemoryToolInput } from "./memory-tool";
import type { ShellLimits } from "./shell-sandbox";
import type { SseResponseOptions } from "./turn-stream";

/** What the host hands every hook: its per-turn data and the chat. */
export interface TurnContext<TExtraBody, TSession> {
  extraBody: TExtraBody;
  session: TSession;
}

/**
 * What a turn's `onPersistenceError` receives: `openTurnCheckout`'s event (the commit result,
 * its commit-log record — `null` when the log itself failed — and the underlying error for
 * `failed`) plus the turn's `extraBody` and `session`.
 */
export type TurnPersistenceErrorEvent<
  TExtraBody = unknown,
  TSession = unknown,
> = PersistenceErrorEvent & TurnContext<TExtraBody, TSession>;

/** Context compaction: when the conversation outgrows a share of the window, summarize older messages. */
export interface CompactionOptions {
  /** The model's context window in tokens. */
  contextWindowTokens: number;
  /** Compact when the conversation exceeds this share of the window. Default 0.7. */
  threshold?: number;
  /** The most recent messages kept verbatim. Default 6. */
  keepRecentMessages?: number;
}

/**
 * A harness definition: everything a turn needs besides its messages. Define it once; call
 * `streamHarness` per turn. All hooks receive the turn's `extraBody` (host data — the app puts the
 * server-derived Actor there) and `session` (the chat).
 */
export interface HarnessDefinition<TExtraBody = unknown, TSession = unknown> {
  /** The model for this turn. */
  model(context: TurnContext<TExtraBody, TSession>): LanguageModel | Promise<LanguageModel>;
  /** The base system prompt. It is not a harness entry and cannot be edited through the harness. */
  instructions: string;
  /** Persistent dirs, memory dirs (from `memory(...)`) included. */
  persistentDirs?: readonly PersistentDir<TExtraBody, TSession>[];
  /** Required when there are persistent dirs: where failed commits are kept. */
  commitLog?: CommitLog;
  /**
   * Fires once per commit (after-turn or `commitManual()`) that ended `conflict` or `failed`,
   * after it was recorded in `commitLog`: for alerting or queueing a `retryCommit`. Errors it
   * throws are ignored. Never part of the model's context. `streamHarness` options take one
   * too; both fire.
   */
  onPersistenceError?: (
    event: TurnPersistenceErrorEvent<TExtraBody, TSession>,
  ) => void | Promise<void>;
  /**
   * Where each write is journaled as it happens (after every tool call), so a crash loses
   * nothing a tool reported as written. Used when the turn has a `turnId`.
   */
  journal?: TurnJournal;
  /** The durable local fallback when the database does not answer (see `openTurnCheckout`). */
  spool?: CommitSpool;
  /** Failed (not conflicting) commits are retried automatically under this policy. */
  retryPolicy?: RetryPolicy;
  /** The harness store as this turn sees it (this chat's merged view, this actor's permissions). */
  store?(context: TurnContext<TExtraBody, TSession>): Harness | Promise<Harness>;
  /** Token budget of the harness view. Default 4,000. */
  tokenBudget?: number | ((context: TurnContext<TExtraBody, TSession>) => number | Promise<number>);
  /** The most recent refinements, shown in the harness view. */
  recentRefinements?(context: TurnContext<TExtraBody, TSession>): Promise<RecentRefinement[]>;
  /** The model for a sub-agent that names one; default: the turn's model. */
  subagentModel?(
    options: TurnContext<TExtraBody, TSession> & { model: string },
  ): LanguageModel | undefined;
  /** A provider's own memory-tool definition (Anthropic's), given the executor. */
  memoryTool?: (execute: (input: MemoryToolInput) => Promise<string>) => Tool;
  /** More tools (e.g. `refine`). They see the same context. */
  tools?(context: TurnContext<TExtraBody, TSession> & { harness: Harness | null }): ToolSet;
  /**
   * A global harness write the turn's actor may not make becomes a suggestion for review through
   * this (the tool result says "suggested for review"); it returns the suggestion's id. Recorded
   * when the tool runs. Absent: the write is refused as before.
   */
  suggestGlobalEntry?(
    context: TurnContext<TExtraBody, TSession> & {
      proposal: GlobalEntryProposal;
      turnId?: string;
    },
  ): Promise<{ id: string }>;
  compaction?: CompactionOptions;
  /** Time, memory and output limits of each `bash` call. Defaults: `DEFAULT_SHELL_LIMITS`. */
  shell?: ShellLimits;
  /**
   * Characters of one tool result kept before it reaches the model, the trace and the stored
   * message; the rest is cut with a marker. Default `DEFAULT_MAX_TOOL_OUTPUT_CHARS` (50,000).
   */
  maxToolOutputChars?: number;
  /** Model steps per turn (tool round trips included). Default 12. */
  maxSteps?: number;
  maxOutputTokens?: number;
  /** Default: the system clock. */
  now?: () => Date;
  /**
   * Where the turn reports what it cannot hand back (a failing `onPersistenceError` hook).
   * Default: JSON lines on stderr (`createStderrLogger`).
   */
  logger?: Logger;
  /**
   * The AI SDK's telemetry options for the turn's model calls (its `telemetry`: integrations
   * that observe each step, `recordInputs` / `recordOutputs`). Default: none.
   */
  telemetry?: TelemetryOptions;
}

/** One section of the system prompt and its size. */
export interface InstructionsSection {
  name: "base" | "harness" | "dirs" | "memory" | "tools";
  title: string;
  tokens: number;
  /** Details for the Context panel: entries shown, files listed, what was cut. */
  details?: Record<string, unknown>;
}

/** Everything recorded about a turn, in order. Host-facing: none of it enters the model's context. */
export type TurnTraceEvent =
  | PersistentDirTraceEvent
  | { type: "turn.started"; at: string; messageCount: number }
  | {
      type: "compaction";
      at: string;
      removedMessages: number;
      tokensBefore: number;
      tokensAfter: number;
      summary: string;
    }
  | { type: "instructions.built"; at: string; sections: InstructionsSection[]; totalTokens: number }
  | { type: "tool.call"; at: string; toolCallId: string; toolName: string; input: unknown }
  | {
      type: "tool.result";
      at: string;
      toolCallId: string;
      toolName: string;
      output: unknown;
      isError: boolean;
      durationMs: number;
    }
  | { type: "delegate"; at: string; subagent: string; tools: string[] }
  | {
      type: "model.step";
      at: string;
      step: number;
      finishReason: string;
      inputTokens?: number;
      outputTokens?: number;
    }
  | { type: "model.error"; at: string; message: string }
  | { type: "turn.finished"; at: string; status: TurnResultStatus; durationMs: number };

export type TurnResultStatus = "completed" | "failed" | "aborted";

/** What `finished` resolves to. */
export interface TurnResult {
  status: TurnResultStatus;
  /** Set when `status` is `failed`: the provider or runtime error, for the host to show. */
  error?: { message: string; cause?: unknown };
  /** What the commit boundary did. Never shown to the model. */
  persistence: PersistenceResult;
  /** Every event in order. Host file events after the turn (`result.files`) are appended as they happen. */
  trace: TurnTraceEvent[];
  /** The system prompt sections of this turn, for the Context panel. */
  instructions: { text: string; sections: InstructionsSection[] };
  /** Set when older messages were summarized this turn. */
  compaction?: { summary: string; removedMessageIds: string[] };
  /** The assistant message as streamed to the UI. */
  responseMessage?: UIMessage;
  usage?: { inputTokens?: number; outputTokens?: number };
  /** The turn's host-staged files, after the turn (the same object as `HarnessTurn.files`). */
  files: SessionFiles;
  /** Commits the manual dirs: once, after a completed turn, before the next turn starts. */
  commitManual(): Promise<PersistenceResult>;
}

/** What `streamHarness` returns. */
export interface HarnessTurn {
  /** The UI message stream (AI SDK), including a final `data-turn` part with the host status. */
  toUIMessageStream(): ReadableStream;
  /**
   * The stream as an SSE `Response` for a route handler (the AI SDK's format and headers).
   * Events that come in quick succession are written together (`flushIntervalMs`).
   */
  toUIMessageStreamResponse(init?: ResponseInit, options?: SseResponseOptions): Response;
  /**
   * Host-staged files in this turn's checkout (see `SessionFiles` for the durability rule).
   * Usable at once: calls made before the dirs have loaded wait for them, and writes made
   * before the model starts are in the checkout the model sees. A write into an `after-turn`
   * dir made before the turn's commit boundary is committed with the turn (if it completes);
   * into a `manual` dir, by `commitManual()`. Rejects with `not_found:dir` when the harness has
   * no persistent dirs and `conflict:turn` when they failed to load.
   */
  files: SessionFiles;
  /** Resolves when the turn and its commits are done. Never rejects. */
  finished: Promise<TurnResult>;
}

/** The host status the UI shows after a turn (a `data-turn` part); the model never sees it. */
export interface TurnStatusData {
  status: TurnResultStatus;
  error?: string;
  persistence: {
    status: PersistenceResult["status"];
    savedFiles: number;
    /** Commits that need a person (conflicts, failures not retried automatically). */
    failedCommits: number;
    /** Commits not saved yet but kept and retried automatically (the host tracks them). */
    pendingCommits: number;
    /**
     * Commits held because they copy the person's private memory into a shared dir: kept until
     * the person confirms or discards them (docs/decisions/0031). Not counted in `failedCommits`.
     */
    awaitingConfirmation: number;
    /**
     * Commits refused for a reason that would repeat (a limit, a quota) and not kept either,
     * because the person's Commit failures already hold their bound (`DirCommitResult.notKept`).
     * Not counted in `failedCommits`: nothing of them waits anywhere.
     */
    notKeptCommits: number;
    /**
     * Files of dirs this turn could not write that were kept as suggestions for review (the
     * dir's `suggest`): nothing applied, nothing refused.
     */
    suggestedFiles: number;
    /** Why, in plain words (the first such commit's error), when `notKeptCommits` > 0. */
    notKept?: string;
  };
}
