import "server-only";
import { randomUUID } from "node:crypto";
import { context } from "@opentelemetry/api";
import { createUIMessageStream, createUIMessageStreamResponse, type UIMessage } from "ai";
import {
  describeProviderError,
  getChatModel,
  providerErrorMessage,
  providerMemoryTool,
  type ModelNotReady,
  unclonedFetch,
} from "@/lib/ai";
import { cairn } from "@/lib/cairn";
import { dirLimitValuesOf } from "@/lib/workspace-settings";
import {
  canWriteGlobal,
  streamHarness,
  type Actor,
  type HarnessDefinition,
  type Logger,
  type TurnResult,
} from "@/lib/harness";
import { harnessForTurn } from "@/lib/harness-for-actor";
import { suggestGlobalEntryChange } from "@/lib/review";
import { harnessStorageFor } from "@/lib/sql-storage";
import { getSql } from "@/lib/sql-storage/sql";
import { startTurnSpan, type TurnSpan } from "@/lib/observability/tracing";
import {
  getDurability,
  type AppExtraBody,
  type AppSession,
  type Durability,
} from "@/lib/workspace-dirs";
import {
  createRefineTool,
  maybeAutoRefine,
  parseRefineCommand,
  requestRefinement,
  scheduleRefinement,
} from "@/lib/refinement-runs";
import {
  createSearchTool,
  relevantPassagesSection,
  searchPromptPassages,
  type SearchHit,
} from "@/lib/search";
import { BASE_PROMPT } from "./base-prompt";
import {
  appendMessage,
  appendNewMessage,
  messagesForModel,
  toUIMessage,
  truncateChatAt,
  type TurnMode,
} from "./messages";
import {
  findChatForTurn,
  insertCommandTurn,
  insertRunningTurn,
  listRecentRefinements,
  loadTurnHistory,
  recordFinishedTurn,
  refreshTurnLease,
  setTurnAssistantMessage,
  type ChatForTurn,
} from "./queries";
import { TEMPORARY_CHAT_PROMPT, TEMPORARY_REFINE_REFUSED } from "./temporary-chats";
import { holdChatClaim, type HeldChatClaim } from "./turn-claim";

export type StartTurnResult =
  | {
      status: "started";
      turnId: string;
      response: Response;
      /** Settles when the turn has finished and been recorded (the browser may be long gone). */
      finished: Promise<void>;
      /** Settles when the harness turn itself has ended (its model work), recorded or not. */
      slotFreed?: Promise<void>;
    }
  | { status: "not_found" }
  | { status: "forbidden"; message: string }
  /** Another turn is running in this chat (any tab, any instance): answer 409, nothing stored. */
  | { status: "busy" }
  /**
   * No model can answer: the message was stored (`stored`) unless it was an edit or a resend,
   * and can be sent once a model is connected.
   */
  | { status: "model_unavailable"; model: ModelNotReady; stored: boolean };

/**
 * The turn's stream is sent as it is: `no-transform` keeps Next's response compression (and
 * proxies) off it. Gzip flushed after every small SSE chunk cost ~9% of a turn's server CPU and
 * saves little on a token stream (docs/decisions/0018).
 */
const STREAM_HEADERS = { "cache-control": "no-cache, no-transform" };

/**
 * The fetch the turn's model calls go through: Node's own, not Next's patched one, and without
 * undici's per-request copy (`unclonedFetch`, decision 0026). Next wraps `fetch` for its data
 * cache, request dedupe and tracing spans; a model call is a POST from a dynamic route, which it
 * never caches or dedupes, so the wrapper only cost CPU (~2% of a turn, bench/README.md).
 */
function modelFetch(): typeof fetch {
  const patched = globalThis.fetch as typeof fetch & { _nextOriginalFetch?: typeof fetch };
  return unclonedFetch(patched._nextOriginalFetch ?? patched);
}

/** Why a member's `/refine --global` is refused. */
export const GLOBAL_REFINE_FORBIDDEN =
  "Only editors and admins can refine company knowledge; type /refine without --global to refine this chat.";

function textOf(message: UIMessage): string {
  return message.parts.map((part) => (part.type === "text" ? part.text : "")).join("\n");
}

/** Share of the turn's token budget the prompt's relevant passages may take, and a cap. */
const RELEVANT_SHARE = 0.2;
const RELEVANT_MAX_TOKENS = 1500;

/**
 * The prompt's passages relevant to the person's message, from company knowledge, docs and
 * their own memory. Search failing never fails the turn: the prompt then goes without them.
 */
async function relevantPassages(actor: Actor, text: string, tokenBudget: number): Promise<string> {
  let hits: SearchHit[];
  try {
    // The membership was read for this request (getActor): the index is asked directly.
    hits = await searchPromptPassages(cairn().sql, {
      actor,
      message: text,
      kinds: ["company", "docs", "memory"],
      limit: 20,
    });
  } catch (error) {
    // The turn goes on without them (the database may be away: the spool keeps the turn's
    // changes); logged, never swallowed.
    cairn().logger.warn(
      { err: error, workspaceId: actor.workspaceId },
      "the prompt's relevant passages could not be read",
    );
    return "";
  }
  return relevantPassagesSection(hits, Math.min(RELEVANT_MAX_TOKENS, tokenBudget * RELEVANT_SHARE));
}

/**
 * Both kinds of turn's telemetry: a span per model step under the turn's, when traces are on
 * (decision 0038); nothing otherwise.
 */
function turnTelemetry(
  root: ReturnType<typeof cairn>,
  span: TurnSpan,
): Pick<HarnessDefinition<AppExtraBody, AppSession>, "telemetry"> {
  if (root.config.tracing.endpoint === null) return {};
  return {
    telemetry: {
      isEnabled: true,
      recordInputs: root.config.tracing.content,
      recordOutputs: root.config.tracing.content,
      functionId: "cairn.chat.turn",
      integrations: [span.modelSteps],
    },
  };
}

/**
 * The harness definition of a temporary chat's turn (issue 26, decision 0055): the model and
 * the chat's own messages only. No persistent dirs (so no memory, company knowledge, docs,
 * `memory` or `bash` tool), no harness store (no prompt notes, memories, skills or sub-agents in
 * the prompt, no harness or `delegate` tools), no recent refinements, no `search` or `refine`
 * tool, and no relevant passages: the prompt is the temporary chat's own base prompt.
 */
function temporaryHarness(
  chat: ChatForTurn,
  model: Extract<Awaited<ReturnType<typeof getChatModel>>, { status: "ready" }>,
  logger: Logger,
  span: TurnSpan,
): HarnessDefinition<AppExtraBody, AppSession> {
  const root = cairn();
  return {
    model: () => model.model,
    instructions: TEMPORARY_CHAT_PROMPT,
    tokenBudget: chat.settings.tokenBudget,
    compaction: {
      contextWindowTokens: model.contextWindow,
      threshold: root.config.compactionThreshold,
    },
    logger,
    ...turnTelemetry(root, span),
  };
}

/** The harness definition the app runs a chat turn with. */
function appHarness(
  actor: Actor,
  chat: ChatForTurn,
  model: Extract<Awaited<ReturnType<typeof getChatModel>>, { status: "ready" }>,
  extraTools: ReturnType<typeof createRefineTool>["tools"],
  relevant: string,
  logger: Logger,
  span: TurnSpan,
) {
  const chatId = chat.id;
  const root = cairn();
  const dirs = root.persistentDirs;
  const durability = root.durability;
  const definition: HarnessDefinition<AppExtraBody, AppSession> = {
    model: () => model.model,
    instructions: relevant ? `${BASE_PROMPT}\n\n${relevant}` : BASE_PROMPT,
    persistentDirs: dirs.dirs,
    commitLog: dirs.commitLog,
    journal: durability.journal,
    spool: durability.spool,
    retryPolicy: durability.retryPolicy,
    // The chat was checked to be the actor's own when the turn started.
    store: () => harnessForTurn(actor, chatId, { chatChecked: true }),
    tokenBudget: chat.settings.tokenBudget,
    // A global write the person's role does not allow becomes a suggestion for review.
    suggestGlobalEntry: ({ proposal, turnId }) =>
      suggestGlobalEntryChange({
        sql: getSql(),
        harnessStorage: harnessStorageFor(),
        actor,
        proposal,
        source: "turn",
        chatId,
        turnId: turnId ?? null,
      }),
    compaction: {
      contextWindowTokens: model.contextWindow,
      threshold: root.config.compactionThreshold,
    },
    // Search runs as the turn's person, their membership read per call (lib/search).
    tools: () => ({
      ...extraTools,
      search: createSearchTool((input) => root.search.search(actor, input)),
    }),
    memoryTool: providerMemoryTool(model.provider),
    shell: root.shellLimits,
    recentRefinements: () =>
      listRecentRefinements(getSql(), { workspaceId: actor.workspaceId, chatId }),
    logger,
    ...turnTelemetry(root, span),
  };
  return definition;
}

/**
 * Stores what a finished turn produced — the assistant message, the turn record, a compaction —
 * and releases the chat's claim, in one transaction.
 */
async function recordTurn(options: {
  turnId: string;
  chatId: string;
  result: TurnResult;
  claim: HeldChatClaim;
}) {
  const { result, chatId, turnId } = options;
  const assistant = result.responseMessage;
  const stored =
    assistant && assistant.parts.some((part) => part.type !== "step-start") ? assistant : null;
  const removed = result.compaction?.removedMessageIds ?? [];
  await recordFinishedTurn(getSql(), {
    turnId,
    chatId,
    assistant: stored,
    turn: {
      status: result.status,
      error: result.error?.message ?? null,
      assistantMessageId: stored?.id ?? null,
      persistence: JSON.stringify(result.persistence),
      instructions: JSON.stringify(result.instructions.sections),
      trace: JSON.stringify(result.trace),
      compaction: result.compaction ? JSON.stringify(result.compaction) : null,
      inputTokens: result.usage?.inputTokens ?? null,
      outputTokens: result.usage?.outputTokens ?? null,
    },
    compaction:
      result.compaction && removed.length
        ? { summary: result.compaction.summary, throughId: removed.at(-1)! }
        : null,
  });
  options.claim.releasedWithTurn();
}

/**
 * Keeps a running turn's lease fresh while its process lives, so no instance closes it as
 * interrupted; a dead process stops refreshing and the lease expires. Returns the stop function.
 */
function keepLease(turnId: string, durability: Durability): () => void {
  const refresh = () =>
    refreshTurnLease(getSql(), turnId, new Date(Date.now() + durability.turnLeaseMs)).catch(
      () => undefined, // the database is away: the lease may lapse; recovery copes
    );
  const timer = setInterval(() => void refresh(), Math.max(250, durability.turnLeaseMs / 3));
  timer.unref?.();
  return () => clearInterval(timer);
}

/**
 * Records the finished turn, retrying while the database is away (the lease stays fresh so the
 * turn is not taken for dead). After ~10 minutes it gives up: the lease lapses and recovery
 * closes the turn as interrupted, its changes kept by the journal, spool or commit log.
 */
async function recordTurnDurably(options: {
  turnId: string;
  chatId: string;
  result: TurnResult;
  claim: HeldChatClaim;
}): Promise<void> {
  const deadline = Date.now() + 10 * 60_000;
  for (let attempt = 0; ; attempt += 1) {
    try {
      await recordTurn(options);
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      if (attempt === 0) {
        cairn().logger.error(
          { err: error, turnId: options.turnId },
          "recording a turn failed; retrying",
        );
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(15_000, 500 * 2 ** attempt)));
    }
  }
}

/**
 * Runs one chat turn for `actor`: checks the chat is theirs, stores the user's message, streams
 * the harness turn, and records the turn (messages, trace, commits) when it finishes — also when
 * the browser goes away mid-stream. `abortSignal` is the request's: the stop button aborts the
 * turn and nothing is committed.
 */
export async function startChatTurn(options: {
  actor: Actor;
  chatId: string;
  message: UIMessage;
  /** `submit` (default) appends the message; `edit` and `regenerate` rewrite the chat's tail. */
  mode?: TurnMode;
  abortSignal?: AbortSignal;
  /** The request's id (`x-request-id`), carried on the turn's log lines. */
  requestId?: string;
}): Promise<StartTurnResult> {
  const { actor, chatId } = options;
  const sql = getSql();
  const chat = await findChatForTurn(sql, {
    chatId,
    userId: actor.userId,
    workspaceId: actor.workspaceId,
  });
  if (!chat) return { status: "not_found" };
  // The workspace's dir limits came with the chat: the turn's dirs use them, no statement more.
  cairn().workspaceDirLimits.remember(actor.workspaceId, dirLimitValuesOf(chat.settings));
  // A temporary chat is not remembered: there is nothing to refine, in this chat or globally.
  if (chat.temporary && parseRefineCommand(textOf(options.message))) {
    return { status: "forbidden", message: TEMPORARY_REFINE_REFUSED };
  }
  // `/refine --global` is refused up front for members, as the Refine button's action is: it
  // is not stored, and no failed global refinement is recorded with the member's text.
  if (parseRefineCommand(textOf(options.message))?.global && !canWriteGlobal(actor)) {
    return { status: "forbidden", message: GLOBAL_REFINE_FORBIDDEN };
  }
  const model = await getChatModel({
    fetch: modelFetch(),
    workspaceId: actor.workspaceId,
    settingsVersion: chat.modelSettingsVersion,
  });
  if (model.status !== "ready") {
    // Nothing typed is lost: a new message is kept and shown as not sent (issue 26).
    const stored =
      (options.mode ?? "submit") === "submit" && (await keepUnsent(chatId, options.message));
    return { status: "model_unavailable", model, stored };
  }

  // One turn at a time per chat: claim it before storing anything, so a refused turn leaves no
  // trace and a running turn's prompt never picks up another turn's message.
  const turnId = randomUUID();
  const logger = cairn().logger.child({
    ...(options.requestId && { requestId: options.requestId }),
    turnId,
    workspaceId: actor.workspaceId,
  });
  const claim = await holdChatClaim(sql, { chatId, turnId });
  if (!claim) return { status: "busy" };
  try {
    return await runClaimedTurn({ ...options, chat, turnId, claim, model, logger });
  } catch (error) {
    await claim.release();
    throw error;
  }
}

/** The longest the answer's stream waits, after its last part, for the turn to be recorded. */
const RECORD_WAIT_MS = 15_000;

/**
 * The turn's response, whose stream closes only once the turn is recorded and the chat released
 * (or after RECORD_WAIT_MS, when the database is away): a message sent the moment the answer
 * ends is then never refused as busy (issue 26).
 */
function endsWhenRecorded(response: Response, recorded: Promise<void>): Response {
  if (!response.body) return response;
  const body = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      async flush() {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          recorded,
          new Promise<void>((resolve) => {
            timer = setTimeout(resolve, RECORD_WAIT_MS);
            timer.unref?.();
          }),
        ]);
        clearTimeout(timer);
      },
    }),
  );
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

/** Stores a message no model can answer yet, holding the chat's claim while it does. */
async function keepUnsent(chatId: string, message: UIMessage): Promise<boolean> {
  const sql = getSql();
  const claim = await holdChatClaim(sql, { chatId, turnId: randomUUID() });
  if (!claim) return false;
  try {
    await appendNewMessage(sql, chatId, message);
    return true;
  } finally {
    await claim.release();
  }
}

/** The rest of `startChatTurn`, once the chat is claimed; the claim is released when the turn is recorded. */
async function runClaimedTurn(options: {
  actor: Actor;
  chatId: string;
  message: UIMessage;
  mode?: TurnMode;
  abortSignal?: AbortSignal;
  chat: ChatForTurn;
  turnId: string;
  claim: HeldChatClaim;
  model: Extract<Awaited<ReturnType<typeof getChatModel>>, { status: "ready" }>;
  logger: Logger;
}): Promise<StartTurnResult> {
  const { actor, chatId, turnId, claim, model, logger } = options;
  const sql = getSql();
  const mode = options.mode ?? "submit";
  const rewritten =
    mode !== "submit" &&
    (await truncateChatAt(sql, {
      chatId,
      messageId: options.message.id,
      inclusive: mode === "edit",
    }));
  // A regenerate answers the stored message again: nothing to append. A message id that is
  // stored already (a resent message) gets a fresh one.
  const reuse = rewritten && mode === "regenerate";
  let message: UIMessage = options.message;
  if (!reuse && !(await appendNewMessage(sql, chatId, message))) {
    message = { ...options.message, id: randomUUID() };
    await appendMessage(sql, chatId, message);
  }
  // Read once the turn holds the chat (truncateChatAt may have dropped a compaction).
  const { compaction, messages } = await loadTurnHistory(sql, chatId);
  const history = messages.map(toUIMessage);
  const command = parseRefineCommand(
    message.parts.map((part) => (part.type === "text" ? part.text : "")).join("\n"),
  );
  if (command) return refineCommandTurn({ actor, chatId, message, command, turnId, claim, logger });

  const refine = createRefineTool({ actor });
  await insertRunningTurn(sql, {
    id: turnId,
    chatId,
    userId: actor.userId,
    userMessageId: message.id,
    model: `${model.provider}:${model.modelId}`,
    leaseExpiresAt: new Date(Date.now() + getDurability().turnLeaseMs),
  });
  const turnRow = { id: turnId };
  const stopLease = keepLease(turnRow.id, getDurability());

  const temporary = options.chat.temporary;
  // A temporary chat reads nothing of memory or company knowledge, passages included.
  const relevant = temporary
    ? ""
    : await relevantPassages(actor, textOf(message), options.chat.settings.tokenBudget);
  const { metrics, config } = cairn();
  metrics.turnsStarted.inc();
  metrics.activeTurns.inc();
  logger.info({ model: `${model.provider}:${model.modelId}` }, "turn started");
  const span = startTurnSpan({
    turnId,
    workspaceId: actor.workspaceId,
    model: `${model.provider}:${model.modelId}`,
    recordContent: config.tracing.content,
  });

  // In the turn span's context: the AI SDK's model spans become its children.
  const turn = context.with(span.context, () =>
    streamHarness({
      harness: temporary
        ? temporaryHarness(options.chat, model, logger, span)
        : appHarness(actor, options.chat, model, refine.tools, relevant, logger, span),
      messages: messagesForModel(history, compaction),
      session: { chatId },
      extraBody: { actor },
      abortSignal: options.abortSignal,
      describeError: (error) => {
        const described = describeProviderError(error);
        // An error that is not a provider's answer is the server's own: keep its cause in the log.
        if (described.code === "provider_error" && !described.retryable) {
          logger.warn(
            {
              err:
                error instanceof Error
                  ? { name: error.name, message: error.message, stack: error.stack }
                  : String(error),
            },
            "turn failed on an error that is not the model provider's",
          );
        }
        return providerErrorMessage(described, actor.role);
      },
      turnData: { turnId: turnRow.id },
      turnId: turnRow.id,
      onTrace: span.onTrace,
    }),
  );
  let markRecorded!: () => void;
  const recorded = new Promise<void>((resolve) => (markRecorded = resolve));
  const finished = turn.finished
    .then(async (result) => {
      metrics.activeTurns.dec();
      metrics.observeTurn(result);
      span.end(result.status);
      logger.info(
        { status: result.status, persistence: result.persistence.status },
        result.error ? `turn ${result.status}: ${result.error.message}` : `turn ${result.status}`,
      );
      try {
        await recordTurnDurably({ turnId: turnRow.id, chatId, result, claim });
      } finally {
        stopLease();
        // The next turn may start once this one's messages are stored.
        await claim.release();
        markRecorded();
      }
      // Refinements run after the response, never during it — and outside the turn: `finished`
      // (which holds the person's turn slot) settles once the turn is recorded, whatever a
      // refinement's request does afterwards (it may wait on a database coming back).
      // A temporary chat is never refined, by request or automatically.
      if (result.status !== "completed" || temporary) return;
      const requested = refine.take();
      if (requested) scheduleRefinement({ actor, chatId, request: requested });
      else
        void maybeAutoRefine({
          actor,
          chatId,
          compacted: Boolean(result.compaction),
          settings: options.chat.settings,
        }).catch((error: unknown) =>
          logger.error({ err: error }, "checking the automatic refinement triggers failed"),
        );
    })
    .catch((error: unknown) => logger.error({ err: error }, "recording a turn failed"))
    .finally(() => {
      markRecorded();
      return claim.release();
    });
  return {
    status: "started",
    turnId: turnRow.id,
    response: endsWhenRecorded(
      turn.toUIMessageStreamResponse({ headers: STREAM_HEADERS }),
      recorded,
    ),
    finished,
    // The person's turn slot is for model work: it is free once the harness turn ends, even
    // while the record waits for the database (see withTurnSlot).
    slotFreed: turn.finished.then(
      () => undefined,
      () => undefined,
    ),
  };
}

/**
 * `/refine [--global] [instructions]` typed in the chat: an explicit refinement request. It runs
 * right after this (model-less) turn, skips the review gate, and its outcome card appears in the
 * chat when it is recorded.
 */
async function refineCommandTurn(options: {
  actor: Actor;
  chatId: string;
  message: UIMessage;
  command: { instructions?: string; global: boolean };
  turnId: string;
  claim: HeldChatClaim;
  logger: Logger;
}): Promise<StartTurnResult> {
  const sql = getSql();
  await insertCommandTurn(sql, {
    id: options.turnId,
    chatId: options.chatId,
    userId: options.actor.userId,
    userMessageId: options.message.id,
  });
  const turnRow = { id: options.turnId };
  const scope = options.command.global ? "global" : "local";
  // Stored in the durable queue before the answer starts: once the user sees the response, the
  // request survives a restart of this instance, and a worker on any instance runs it.
  const refinementId = await requestRefinement({
    actor: options.actor,
    chatId: options.chatId,
    request: {
      kind: "explicit",
      instructions: options.command.instructions,
      global: options.command.global,
    },
  }).catch((error: unknown) => {
    options.logger.error({ err: error }, "requesting a refinement failed");
    return null;
  });
  const stream = createUIMessageStream({
    originalMessages: [options.message],
    execute: ({ writer }) => {
      writer.write({
        type: "data-refine",
        data: {
          requested: refinementId !== null,
          refinementId,
          scope,
          instructions: options.command.instructions ?? null,
        },
      });
      writer.write({
        type: "data-turn",
        data: {
          status: "completed",
          persistence: { status: "not-configured", savedFiles: 0, failedCommits: 0 },
          turnId: turnRow.id,
          refine: true,
        },
      });
    },
    onEnd: async ({ responseMessage }) => {
      await appendMessage(sql, options.chatId, responseMessage).catch((error: unknown) =>
        options.logger.error({ err: error }, "storing the refinement command's answer failed"),
      );
      await options.claim.release();
      await setTurnAssistantMessage(sql, turnRow.id, responseMessage.id);
    },
  });
  return {
    status: "started",
    turnId: turnRow.id,
    response: createUIMessageStreamResponse({ stream, headers: STREAM_HEADERS }),
    // Model-less: nothing runs after the response that a slot should count.
    finished: Promise.resolve(),
  };
}
