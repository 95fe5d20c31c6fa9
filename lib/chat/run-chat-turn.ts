import "server-only";
import { randomUUID } from "node:crypto";
import { createUIMessageStream, createUIMessageStreamResponse, type UIMessage } from "ai";
import {
  describeProviderError,
  getChatModel,
  providerErrorMessage,
  providerMemoryTool,
  type ModelNotReady,
} from "@/lib/ai";
import { getDb } from "@/lib/db";
import { streamHarness, type Actor, type HarnessDefinition, type TurnResult } from "@/lib/harness";
import { getOwnChat, harnessFor } from "@/lib/harness-service";
import { getPersistentDirs, type AppExtraBody, type AppSession } from "@/lib/persistent-dirs";
import {
  createRefineTool,
  maybeAutoRefine,
  parseRefineCommand,
  scheduleRefinement,
} from "@/lib/refinements";
import { getWorkspaceSettings } from "@/lib/workspace-settings";
import { BASE_PROMPT } from "./base-prompt";
import {
  appendMessage,
  loadChatMessages,
  messagesForModel,
  truncateChatAt,
  type TurnMode,
} from "./messages";

export type StartTurnResult =
  | { status: "started"; turnId: string; response: Response }
  | { status: "not_found" }
  | { status: "model_unavailable"; model: ModelNotReady };

/** The share of the context window after which older messages are summarized. */
function compactionThreshold(): number {
  const value = Number(process.env.CAIRN_COMPACTION_THRESHOLD ?? 0.7);
  return Number.isFinite(value) && value > 0 && value <= 1 ? value : 0.7;
}

/** The harness definition the app runs a chat turn with. */
async function appHarness(
  actor: Actor,
  chatId: string,
  model: Extract<Awaited<ReturnType<typeof getChatModel>>, { status: "ready" }>,
  extraTools: ReturnType<typeof createRefineTool>["tools"],
) {
  const db = getDb();
  const dirs = getPersistentDirs();
  const settings = await getWorkspaceSettings(db, actor.workspaceId);
  const definition: HarnessDefinition<AppExtraBody, AppSession> = {
    model: () => model.model,
    instructions: BASE_PROMPT,
    persistentDirs: dirs.dirs,
    commitLog: dirs.commitLog,
    store: () => harnessFor(actor, chatId),
    tokenBudget: settings.tokenBudget,
    compaction: { contextWindowTokens: model.contextWindow, threshold: compactionThreshold() },
    tools: () => extraTools,
    memoryTool: providerMemoryTool(model.provider),
    recentRefinements: async () =>
      (
        await db.refinement.findMany({
          where: {
            workspaceId: actor.workspaceId,
            OR: [{ scope: "global" }, { chatId }],
            status: { not: "imported" },
          },
          orderBy: { createdAt: "desc" },
          take: 3,
          select: { id: true, summary: true, status: true, createdAt: true },
        })
      ).map((row) => ({
        id: row.id,
        summary: row.summary,
        status: row.status,
        createdAt: row.createdAt.toISOString(),
      })),
  };
  return definition;
}

/** Stores what a finished turn produced: the assistant message, the turn record, a compaction. */
async function recordTurn(options: { turnId: string; chatId: string; result: TurnResult }) {
  const db = getDb();
  const { result, chatId, turnId } = options;
  const assistant = result.responseMessage;
  const hasContent = assistant && assistant.parts.some((part) => part.type !== "step-start");
  if (assistant && hasContent) await appendMessage(db, chatId, assistant);
  await db.turn.update({
    where: { id: turnId },
    data: {
      status: result.status,
      error: result.error?.message ?? null,
      assistantMessageId: hasContent ? assistant.id : null,
      persistence: JSON.stringify(result.persistence),
      instructions: JSON.stringify(result.instructions.sections),
      trace: JSON.stringify(result.trace),
      compaction: result.compaction ? JSON.stringify(result.compaction) : null,
      inputTokens: result.usage?.inputTokens ?? null,
      outputTokens: result.usage?.outputTokens ?? null,
      finishedAt: new Date(),
    },
  });
  if (result.compaction?.removedMessageIds.length) {
    await db.chat.update({
      where: { id: chatId },
      data: {
        compactionSummary: result.compaction.summary,
        compactedThroughId: result.compaction.removedMessageIds.at(-1)!,
      },
    });
  } else {
    await db.chat.update({ where: { id: chatId }, data: { updatedAt: new Date() } });
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
  const chat = await getOwnChat(actor, chatId);
  if (!chat) return { status: "not_found" };
  const model = await getChatModel();
  if (model.status !== "ready") return { status: "model_unavailable", model };

  const full = await db.chat.findUniqueOrThrow({
    where: { id: chatId },
    select: { compactionSummary: true, compactedThroughId: true },
  });
  const mode = options.mode ?? "submit";
  const rewritten =
    mode !== "submit" &&
    (await truncateChatAt(db, {
      chatId,
      messageId: options.message.id,
      inclusive: mode === "edit",
    }));
  // A regenerate answers the stored message again: nothing to append.
  const reuse = rewritten && mode === "regenerate";
  const message: UIMessage =
    !reuse && (await db.chatMessage.findUnique({ where: { id: options.message.id } }))
      ? { ...options.message, id: randomUUID() }
      : options.message;
  if (!reuse) await appendMessage(db, chatId, message);
  const history = await loadChatMessages(db, chatId);
  const command = parseRefineCommand(
    message.parts.map((part) => (part.type === "text" ? part.text : "")).join("\n"),
  );
  if (command) return refineCommandTurn({ actor, chatId, message, command });

  const refine = createRefineTool();
  const turnRow = await db.turn.create({
    data: {
      chatId,
      userId: actor.userId,
      status: "running",
      userMessageId: message.id,
      model: `${model.provider}:${model.modelId}`,
    },
  });

  const turn = streamHarness({
    harness: await appHarness(actor, chatId, model, refine.tools),
    messages: messagesForModel(history, full),
    session: { chatId },
    extraBody: { actor },
    abortSignal: options.abortSignal,
    describeError: (error) => providerErrorMessage(describeProviderError(error), actor.role),
    turnData: { turnId: turnRow.id },
  });
  void turn.finished
    .then(async (result) => {
      await recordTurn({ turnId: turnRow.id, chatId, result });
      // Refinements run after the response, never during it.
      if (result.status !== "completed") return;
      const requested = refine.take();
      if (requested) scheduleRefinement({ actor, chatId, request: requested });
      else await maybeAutoRefine({ actor, chatId, compacted: Boolean(result.compaction) });
    })
    .catch((error: unknown) => console.error("cairn: recording a turn failed", error));
  return { status: "started", turnId: turnRow.id, response: turn.toUIMessageStreamResponse() };
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
}): Promise<StartTurnResult> {
  const db = getDb();
  const turnRow = await db.turn.create({
    data: {
      chatId: options.chatId,
      userId: options.actor.userId,
      status: "completed",
      userMessageId: options.message.id,
      finishedAt: new Date(),
      persistence: JSON.stringify({ status: "not-configured" }),
    },
  });
  const scope = options.command.global ? "global" : "local";
  const stream = createUIMessageStream({
    originalMessages: [options.message],
    execute: ({ writer }) => {
      writer.write({
        type: "data-refine",
        data: { requested: true, scope, instructions: options.command.instructions ?? null },
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
      await db.turn.update({
        where: { id: turnRow.id },
        data: { assistantMessageId: responseMessage.id },
      });
      scheduleRefinement({
        actor: options.actor,
        chatId: options.chatId,
        request: {
          kind: "explicit",
          instructions: options.command.instructions,
          global: options.command.global,
        },
      });
    },
  });
  return {
    status: "started",
    turnId: turnRow.id,
    response: createUIMessageStreamResponse({ stream }),
  };
}
