import type { Actor, InstructionsSection, PersistenceResult, TurnTraceEvent } from "@/lib/harness";
import { getSql, placeholders, toDate, toDateOrNull } from "@/lib/sql-storage/sql";

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
  const row = await getSql().get<{
    id: string;
    chatId: string;
    status: string;
    error: string | null;
    model: string | null;
    startedAt: unknown;
    finishedAt: unknown;
    inputTokens: number | null;
    outputTokens: number | null;
    instructions: string | null;
    trace: string | null;
    persistence: string | null;
    compaction: string | null;
  }>(
    `SELECT t."id", t."chatId", t."status", t."error", t."model", t."startedAt", t."finishedAt",
       t."inputTokens", t."outputTokens", t."instructions", t."trace", t."persistence", t."compaction"
     FROM "Turn" t JOIN "Chat" c ON c."id" = t."chatId"
     WHERE t."id" = ? AND c."userId" = ? AND c."workspaceId" = ?`,
    [turnId, actor.userId, actor.workspaceId],
  );
  if (!row) return null;
  return {
    id: row.id,
    chatId: row.chatId,
    status: row.status,
    error: row.error,
    model: row.model,
    startedAt: toDate(row.startedAt),
    finishedAt: toDateOrNull(row.finishedAt),
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
  const row = await getSql().get<{ id: string }>(
    `SELECT "id" FROM "Turn" WHERE "chatId" = ? AND "instructions" IS NOT NULL
     ORDER BY "startedAt" DESC LIMIT 1`,
    [chatId],
  );
  return row?.id ?? null;
}

/**
 * A chat's interrupted turns (their process died mid-turn), keyed by the user message that
 * started each, with how many change sets of theirs wait on Commit failures.
 */
export async function listInterruptedTurns(
  chatId: string,
): Promise<Record<string, { turnId: string; keptChanges: number; savedChanges: number }>> {
  const sql = getSql();
  const turns = await sql.all<{ id: string; userMessageId: string }>(
    `SELECT "id", "userMessageId" FROM "Turn"
     WHERE "chatId" = ? AND "status" = 'interrupted' AND "userMessageId" IS NOT NULL LIMIT 200`,
    [chatId],
  );
  if (turns.length === 0) return {};
  const records = await sql.all<{ turnId: string; status: string; count: number }>(
    `SELECT "turnId", "status", COUNT(*) AS "count" FROM "DirCommitRecord"
     WHERE "turnId" IN (${placeholders(turns.length)}) GROUP BY "turnId", "status"`,
    turns.map((turn) => turn.id),
  );
  const count = (turnId: string, open: boolean) =>
    records
      .filter((row) => row.turnId === turnId && (row.status !== "resolved") === open)
      .reduce((sum, row) => sum + Number(row.count), 0);
  // A turn can finish its answer and still lose its process before recording it: its spooled
  // commit is then applied by the retry, and the chat says so rather than "nothing was saved".
  return Object.fromEntries(
    turns.map((turn) => [
      turn.userMessageId,
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
  const turn = await getSql().get<{
    status: string;
    error: string | null;
    userMessageId: string | null;
    assistantMessageId: string | null;
  }>(
    `SELECT "status", "error", "userMessageId", "assistantMessageId" FROM "Turn"
     WHERE "chatId" = ? ORDER BY "startedAt" DESC LIMIT 1`,
    [chatId],
  );
  if (!turn?.userMessageId || turn.assistantMessageId) return null;
  if (turn.status !== "failed" && turn.status !== "aborted") return null;
  return { userMessageId: turn.userMessageId, status: turn.status, error: turn.error };
}
