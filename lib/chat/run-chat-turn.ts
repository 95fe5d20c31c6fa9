import "server-only";
import { randomUUID } from "node:crypto";
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
import { getDb } from "@/lib/db";
import {
  canWriteGlobal,
  streamHarness,
  type Actor,
  type HarnessDefinition,
  type TurnResult,
} from "@/lib/harness";
import { harnessForTurn } from "@/lib/harness-service";
import {
  getDurability,
  type AppExtraBody,
  type AppSession,
  type Durability,
} from "@/lib/persistent-dirs";
import {
  createRefineTool,
  maybeAutoRefine,
  parseRefineCommand,
  requestRefinement,
  scheduleRefinement,
} from "@/lib/refinements";
import {
  createSearchTool,
  relevantPassagesSection,
  searchPassages,
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
  sqlOf,
  type ChatForTurn,
} from "./queries";
import { holdChatClaim, type HeldChatClaim } from "./turn-claim";

export type StartTurnResult =
  | {
      status: "started";
      turnId: string;
      response: Response;
      /** Settles when the turn has finished and been recorded (the browser may be long gone). */
      finished: Promise<void>;
    }
  | { status: "not_found" }
  | { status: "forbidden"; message: string }
  /** Another turn is running in this chat (any tab, any instance): answer 409, nothing stored. */
  | { status: "busy" }
  | { status: "model_unavailable"; model: ModelNotReady };

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
    hits = await searchPassages(cairn().sql, {
      actor,
      query: text,
      kinds: ["company", "docs", "memory"],
      limit: 20,
    });
  } catch {
    return "";
  }
  return relevantPassagesSection(hits, Math.min(RELEVANT_MAX_TOKENS, tokenBudget * RELEVANT_SHARE));
}

/** The harness definition the app runs a chat turn with. */
function appHarness(
  actor: Actor,
  chat: ChatForTurn,
  model: Extract<Awaited<ReturnType<typeof getChatModel>>, { status: "ready" }>,
  extraTools: ReturnType<typeof createRefineTool>["tools"],
  relevant: string,
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
      listRecentRefinements(sqlOf(), { workspaceId: actor.workspaceId, chatId }),
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
  await recordFinishedTurn(sqlOf(), {
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
    refreshTurnLease(sqlOf(), turnId, new Date(Date.now() + durability.turnLeaseMs)).catch(
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
      if (attempt === 0) console.error("cairn: recording a turn failed; retrying", error);
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
}): Promise<StartTurnResult> {
  const { actor, chatId } = options;
  const db = getDb();
  const chat = await findChatForTurn(sqlOf(), {
    chatId,
    userId: actor.userId,
    workspaceId: actor.workspaceId,
  });
  if (!chat) return { status: "not_found" };
  // `/refine --global` is refused up front for members, as the Refine button's action is: it
  // is not stored, and no failed global refinement is recorded with the member's text.
  if (parseRefineCommand(textOf(options.message))?.global && !canWriteGlobal(actor)) {
    return { status: "forbidden", message: GLOBAL_REFINE_FORBIDDEN };
  }
  const model = await getChatModel({ fetch: modelFetch() });
  if (model.status !== "ready") return { status: "model_unavailable", model };

  // One turn at a time per chat: claim it before storing anything, so a refused turn leaves no
  // trace and a running turn's prompt never picks up another turn's message.
  const turnId = randomUUID();
  const claim = await holdChatClaim(db, { chatId, turnId });
  if (!claim) return { status: "busy" };
  try {
    return await runClaimedTurn({ ...options, chat, turnId, claim, model });
  } catch (error) {
    await claim.release();
    throw error;
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
}): Promise<StartTurnResult> {
  const { actor, chatId, turnId, claim, model } = options;
  const db = getDb();
  const sql = sqlOf();
  const mode = options.mode ?? "submit";
  const rewritten =
    mode !== "submit" &&
    (await truncateChatAt(db, {
      chatId,
      messageId: options.message.id,
      inclusive: mode === "edit",
    }));
  // A regenerate answers the stored message again: nothing to append. A message id that is
  // stored already (a resent message) gets a fresh one.
  const reuse = rewritten && mode === "regenerate";
  let message: UIMessage = options.message;
  if (!reuse && !(await appendNewMessage(db, chatId, message))) {
    message = { ...options.message, id: randomUUID() };
    await appendMessage(db, chatId, message);
  }
  // Read once the turn holds the chat (truncateChatAt may have dropped a compaction).
  const { compaction, messages } = await loadTurnHistory(sql, chatId);
  const history = messages.map(toUIMessage);
  const command = parseRefineCommand(
    message.parts.map((part) => (part.type === "text" ? part.text : "")).join("\n"),
  );
  if (command) return refineCommandTurn({ actor, chatId, message, command, turnId, claim });

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

  const relevant = await relevantPassages(
    actor,
    textOf(message),
    options.chat.settings.tokenBudget,
  );
  const turn = streamHarness({
    harness: appHarness(actor, options.chat, model, refine.tools, relevant),
    messages: messagesForModel(history, compaction),
    session: { chatId },
    extraBody: { actor },
    abortSignal: options.abortSignal,
    describeError: (error) => providerErrorMessage(describeProviderError(error), actor.role),
    turnData: { turnId: turnRow.id },
    turnId: turnRow.id,
  });
  const finished = turn.finished
    .then(async (result) => {
      try {
        await recordTurnDurably({ turnId: turnRow.id, chatId, result, claim });
      } finally {
        stopLease();
        // The next turn may start once this one's messages are stored.
        await claim.release();
      }
      // Refinements run after the response, never during it.
      if (result.status !== "completed") return;
      const requested = refine.take();
      if (requested) scheduleRefinement({ actor, chatId, request: requested });
      else
        await maybeAutoRefine({
          actor,
          chatId,
          compacted: Boolean(result.compaction),
          settings: options.chat.settings,
        });
    })
    .catch((error: unknown) => console.error("cairn: recording a turn failed", error))
    .finally(() => claim.release());
  return {
    status: "started",
    turnId: turnRow.id,
    response: turn.toUIMessageStreamResponse({ headers: STREAM_HEADERS }),
    finished,
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
}): Promise<StartTurnResult> {
  const db = getDb();
  await insertCommandTurn(sqlOf(), {
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
    console.error("cairn: requesting a refinement failed", error);
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
      await appendMessage(db, options.chatId, responseMessage).catch((error: unknown) =>
        console.error(error),
      );
      await options.claim.release();
      await setTurnAssistantMessage(sqlOf(), turnRow.id, responseMessage.id);
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
