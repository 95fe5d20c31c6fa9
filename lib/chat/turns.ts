import type { Actor, InstructionsSection, PersistenceResult, TurnTraceEvent } from "@/lib/harness";
import { getDb } from "@/lib/db";

export interface TurnView {
  id: string;
  chatId: string;
  status: string;
  error: string | null;
  model: string | null;
  startedAt: Date;
  finishedAt: Date | null;
  inputTokens: number | null;
  outputTokens: number | null;
  sections: InstructionsSection[];
  trace: TurnTraceEvent[];
  persistence: PersistenceResult | null;
  compaction: { summary: string; removedMessageIds: string[] } | null;
}

function parse<T>(text: string | null, fallback: T): T {
  return text ? (JSON.parse(text) as T) : fallback;
}

/** A turn of one of the actor's own chats, or null. */
export async function getTurnForActor(actor: Actor, turnId: string): Promise<TurnView | null> {
  const row = await getDb().turn.findFirst({
    where: { id: turnId, chat: { userId: actor.userId, workspaceId: actor.workspaceId } },
  });
  if (!row) return null;
  return {
    id: row.id,
    chatId: row.chatId,
    status: row.status,
    error: row.error,
    model: row.model,
    startedAt: row.startedAt,
    finishedAt: row.finishedAt,
    inputTokens: row.inputTokens,
    outputTokens: row.outputTokens,
    sections: parse(row.instructions, []),
    trace: parse(row.trace, []),
    persistence: parse(row.persistence, null),
    compaction: parse(row.compaction, null),
  };
}

/**
 * The id of a chat's latest turn that reached the model (a `/refine` command turn has no prompt to
 * show in the Context panel), or null.
 */
export async function latestTurnId(chatId: string): Promise<string | null> {
  const row = await getDb().turn.findFirst({
    where: { chatId, instructions: { not: null } },
    orderBy: { startedAt: "desc" },
    select: { id: true },
  });
  return row?.id ?? null;
}

/**
 * A chat's interrupted turns (their process died mid-turn), keyed by the user message that
 * started each, with how many change sets of theirs wait on Commit failures.
 */
export async function listInterruptedTurns(
  chatId: string,
): Promise<Record<string, { turnId: string; keptChanges: number; savedChanges: number }>> {
  const db = getDb();
  const turns = await db.turn.findMany({
    where: { chatId, status: "interrupted", userMessageId: { not: null } },
    select: { id: true, userMessageId: true },
    take: 200,
  });
  if (turns.length === 0) return {};
  const records = await db.dirCommitRecord.groupBy({
    by: ["turnId", "status"],
    where: { turnId: { in: turns.map((turn) => turn.id) } },
    _count: { _all: true },
  });
  const count = (turnId: string, open: boolean) =>
    records
      .filter((row) => row.turnId === turnId && (row.status !== "resolved") === open)
      .reduce((sum, row) => sum + row._count._all, 0);
  // A turn can finish its answer and still lose its process before recording it: its spooled
  // commit is then applied by the retry, and the chat says so rather than "nothing was saved".
  return Object.fromEntries(
    turns.map((turn) => [
      turn.userMessageId!,
      { turnId: turn.id, keptChanges: count(turn.id, true), savedChanges: count(turn.id, false) },
    ]),
  );
}

/**
 * The chat's latest turn when it failed or was stopped without storing an answer: the chat page
 * shows the same failed-reply state (with Retry) after a reload as during the turn.
 */
export async function lastUnansweredTurn(
  chatId: string,
): Promise<{ userMessageId: string; status: "failed" | "aborted"; error: string | null } | null> {
  const turn = await getDb().turn.findFirst({
    where: { chatId },
    orderBy: { startedAt: "desc" },
    select: { status: true, error: true, userMessageId: true, assistantMessageId: true },
  });
  if (!turn?.userMessageId || turn.assistantMessageId) return null;
  if (turn.status !== "failed" && turn.status !== "aborted") return null;
  return { userMessageId: turn.userMessageId, status: turn.status, error: turn.error };
}
