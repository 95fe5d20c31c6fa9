// Rating a turn: the outcome stored, then the feedback trigger and the automatic verdicts.
import type { Actor } from "@/lib/harness";
import { getSql, toDate, type Sql, type SqlExecutor } from "@/lib/sql-storage/sql";
import type { WorkspaceSettingsValues } from "@/lib/workspace-settings";
import type { RateTurnInput } from "./tags";
import { maybeFeedbackRefine } from "./feedback-refine";
import { judgeRefinements } from "./outcome-overview";
import {
  OUTCOME_COLUMNS,
  toOutcome,
  turnProvenance,
  type FeedbackRefinementRequester,
  type OutcomeRow,
  type TurnOutcome,
} from "./turn-outcomes";

/** What `rateTurn` did. */
export type RateTurnResult =
  | {
      status: "rated";
      outcome: TurnOutcome;
      /** The refinement this rating started (the feedback trigger fired), if any. */
      refinementId: string | null;
    }
  | { status: "cleared" }
  /** No completed turn of that id in one of the actor's own chats. */
  | { status: "not_found" };

/**
 * Rates one answer: only the chat's owner may, only a completed turn of one of their chats in
 * this workspace (anything else is `not_found`, as if it did not exist). A second rating of the
 * same turn replaces the first; `rating: null` removes it. After a thumbs-down the feedback
 * trigger is checked; after any change the refinements it could decide are judged.
 */
export async function rateTurn(options: {
  actor: Actor;
  input: RateTurnInput;
  source: "chat" | "mcp";
  settings: WorkspaceSettingsValues;
  requestRefinement: FeedbackRefinementRequester;
  sql?: Sql;
  now?: Date;
  /** How long to wait for a turn still being recorded. Default 10 s. */
  waitForTurnMs?: number;
}): Promise<RateTurnResult> {
  const { actor, input } = options;
  const sql = options.sql ?? getSql();
  const now = options.now ?? new Date();
  // The answer's status part reaches the browser just before its turn is recorded: a rating
  // that arrives in between waits for the record (a few hundred milliseconds at most).
  const deadline = Date.now() + (options.waitForTurnMs ?? 10_000);
  let turn = await findRatableTurn(sql, actor, input.turnId);
  while (turn?.status === "running" && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    turn = await findRatableTurn(sql, actor, input.turnId);
  }
  if (turn?.status !== "completed" || turn.assistantMessageId === null) turn = undefined;
  if (!turn) return { status: "not_found" };
  if (input.rating === null) {
    await sql.run(`DELETE FROM "TurnOutcome" WHERE "turnId" = ?`, [turn.id]);
    return { status: "cleared" };
  }
  const provenance = turnProvenance(turn);
  const bad = input.rating === "bad";
  const comment = bad && input.comment ? input.comment : null;
  const tags = JSON.stringify(bad ? [...new Set(input.tags ?? [])] : []);
  // One row per turn: the first rating inserts it with the turn's provenance, a change updates
  // the rating, comment and tags only (and leaves `answeredBy` — a refinement cited it).
  await sql.run(
    `INSERT INTO "TurnOutcome" ("id", "workspaceId", "chatId", "turnId", "userId", "rating",
       "comment", "tags", "source", "harnessVersion", "entriesShown", "dirCursors", "model",
       "turnAt", "createdAt", "updatedAt")
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT ("turnId") DO UPDATE SET "rating" = excluded."rating",
       "comment" = excluded."comment", "tags" = excluded."tags", "source" = excluded."source",
       "userId" = excluded."userId", "updatedAt" = excluded."updatedAt"`,
    [
      globalThis.crypto.randomUUID(),
      actor.workspaceId,
      turn.chatId,
      turn.id,
      actor.userId,
      input.rating,
      comment,
      tags,
      options.source,
      provenance.harnessVersion,
      JSON.stringify(provenance.entriesShown),
      JSON.stringify(provenance.dirCursors),
      turn.model,
      toDate(turn.startedAt),
      now,
      now,
    ],
  );
  const row = await sql.get<OutcomeRow>(
    `SELECT ${OUTCOME_COLUMNS} FROM "TurnOutcome" o WHERE o."turnId" = ?`,
    [turn.id],
  );
  const outcome = toOutcome(row!);
  const refinementId = bad
    ? await maybeFeedbackRefine({
        actor,
        chatId: turn.chatId,
        settings: options.settings,
        requestRefinement: options.requestRefinement,
        sql,
      })
    : null;
  await judgeRefinements({
    workspaceId: actor.workspaceId,
    chatId: turn.chatId,
    settings: options.settings,
    sql,
    now,
  });
  return { status: "rated", outcome, refinementId };
}

/**
 * A turn of one of the actor's own chats in this workspace, with what a rating copies. A
 * temporary chat's turns are not ratable: ratings feed what Cairn remembers (decision 0055).
 */
function findRatableTurn(sql: SqlExecutor, actor: Actor, turnId: string) {
  return sql.get<{
    id: string;
    chatId: string;
    status: string;
    assistantMessageId: string | null;
    instructions: string | null;
    trace: string | null;
    model: string | null;
    startedAt: unknown;
  }>(
    `SELECT t."id", t."chatId", t."status", t."assistantMessageId", t."instructions", t."trace",
       t."model", t."startedAt"
     FROM "Turn" t JOIN "Chat" c ON c."id" = t."chatId"
     WHERE t."id" = ? AND c."userId" = ? AND c."workspaceId" = ? AND NOT c."temporary"`,
    [turnId, actor.userId, actor.workspaceId],
  );
}
