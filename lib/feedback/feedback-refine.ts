// Feedback fed back into refinement: the `feedback` trigger and the evidence a refinement reads.
import { canWriteGlobal, type Actor } from "@/lib/harness";
import { getSql, placeholders, toDateOrNull, type Sql, type SqlExecutor } from "@/lib/sql-storage/sql";
import type { WorkspaceSettingsValues } from "@/lib/workspace-settings";
import { FEEDBACK_TAG_LABELS, type FeedbackTag } from "./tags";
import {
  jsonOr,
  OUTCOME_COLUMNS,
  toOutcome,
  type FeedbackRefinementRequester,
  type OutcomeRow,
} from "./turn-outcomes";

/**
 * N thumbs-down (`feedbackRefineThreshold`) in this chat since its last local refinement start a
 * local review of the chat; failing that, N across the workspace since the last global
 * refinement start a global review — only when the person rating may refine globally (editors
 * and admins). The thumbs-down are claimed for the new refinement (`answeredBy`) in the same
 * statement that counts them, so each is evidence for one refinement only and concurrent ratings
 * fire the trigger once. Returns the new refinement's id, or null.
 */
export async function maybeFeedbackRefine(options: {
  actor: Actor;
  chatId: string;
  settings: WorkspaceSettingsValues;
  requestRefinement: FeedbackRefinementRequester;
  sql?: Sql;
}): Promise<string | null> {
  const threshold = options.settings.feedbackRefineThreshold;
  if (threshold <= 0) return null;
  const sql = options.sql ?? getSql();
  const { actor, chatId } = options;
  const scopes: { global: boolean }[] = [{ global: false }];
  if (canWriteGlobal(actor)) scopes.push({ global: true });
  for (const scope of scopes) {
    const id = globalThis.crypto.randomUUID();
    const claimed = await sql
      .transaction(async (tx) => {
        const since = await tx.get<{ at: unknown }>(
          scope.global
            ? `SELECT MAX("createdAt") AS "at" FROM "Refinement"
             WHERE "workspaceId" = ? AND "scope" = 'global' AND "status" <> 'imported'`
            : `SELECT MAX("createdAt") AS "at" FROM "Refinement"
             WHERE "workspaceId" = ? AND "scope" = 'local' AND "chatId" = ? AND "status" <> 'imported'`,
          scope.global ? [actor.workspaceId] : [actor.workspaceId, chatId],
        );
        const after = toDateOrNull(since?.at) ?? new Date(0);
        const candidates = await tx.all<{ id: string }>(
          `SELECT "id" FROM "TurnOutcome"
         WHERE "workspaceId" = ? ${scope.global ? "" : `AND "chatId" = ?`}
           AND "rating" = 'bad' AND "answeredBy" IS NULL AND "updatedAt" > ?
         ORDER BY "updatedAt" ASC`,
          scope.global ? [actor.workspaceId, after] : [actor.workspaceId, chatId, after],
        );
        if (candidates.length < threshold) return [];
        const ids = candidates.map((row) => row.id);
        // `answeredBy IS NULL` again: a concurrent claim that won leaves this one short.
        const { changes } = await tx.run(
          `UPDATE "TurnOutcome" SET "answeredBy" = ?
         WHERE "id" IN (${placeholders(ids.length)}) AND "answeredBy" IS NULL`,
          [id, ...ids],
        );
        if (changes < threshold) throw new ClaimLost();
        return ids;
      })
      .catch((error: unknown) => {
        if (error instanceof ClaimLost) return [];
        throw error;
      });
    if (claimed.length === 0) continue;
    const requested = await options
      .requestRefinement({ actor, chatId, id, global: scope.global })
      .catch((error: unknown) => {
        console.error("cairn: feedback refinement request failed", error);
        return null;
      });
    if (requested === null) {
      // Nothing was queued (no model configured): the thumbs-down stay unanswered.
      await sql.run(`UPDATE "TurnOutcome" SET "answeredBy" = NULL WHERE "answeredBy" = ?`, [id]);
      return null;
    }
    return id;
  }
  return null;
}

class ClaimLost extends Error {}

/** The feedback a refinement answers, for its page: text only from the viewer's own chats. */
export interface AnsweredFeedback {
  outcomeId: string;
  turnId: string;
  chatId: string;
  rating: "good" | "bad";
  tags: FeedbackTag[];
  /** Null when the rating is not the viewer's (counted, not shown). */
  comment: string | null;
  /** Whether the viewer rated it (and may open its turn). */
  own: boolean;
}

/** The ratings refinement `refinementId` took as its evidence, as `viewer` may see them. */
export async function listAnsweredFeedback(options: {
  viewer: Actor;
  refinementId: string;
  sql?: SqlExecutor;
}): Promise<AnsweredFeedback[]> {
  const sql = options.sql ?? getSql();
  const rows = await sql.all<OutcomeRow>(
    `SELECT ${OUTCOME_COLUMNS} FROM "TurnOutcome" o
     WHERE o."answeredBy" = ? AND o."workspaceId" = ? ORDER BY o."updatedAt" ASC`,
    [options.refinementId, options.viewer.workspaceId],
  );
  return rows.map((row) => {
    const outcome = toOutcome(row);
    const own = outcome.userId === options.viewer.userId;
    return {
      outcomeId: outcome.id,
      turnId: outcome.turnId,
      chatId: outcome.chatId,
      rating: outcome.rating,
      tags: outcome.tags,
      comment: own ? outcome.comment : null,
      own,
    };
  });
}

/** How many ratings each of `ids` answers (refinements absent: none). */
export async function countAnsweredFeedback(
  ids: readonly string[],
  sql: SqlExecutor = getSql(),
): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const rows = await sql.all<{ answeredBy: string; count: number | bigint }>(
    `SELECT "answeredBy", COUNT(*) AS "count" FROM "TurnOutcome"
     WHERE "answeredBy" IN (${placeholders(ids.length)}) GROUP BY "answeredBy"`,
    [...ids],
  );
  return new Map(rows.map((row) => [row.answeredBy, Number(row.count)]));
}

/**
 * The evidence a feedback-triggered refinement shows its review gate and planner: each rated
 * answer it answers with the question, the answer, the comment and the tags. Text comes only
 * from chats of the person the refinement runs as; other people's ratings are counted by tag.
 */
export async function feedbackEvidence(options: {
  actor: Actor;
  refinementId: string;
  sql?: SqlExecutor;
}): Promise<string> {
  const sql = options.sql ?? getSql();
  const rows = await sql.all<
    OutcomeRow & { userText: string | null; assistantText: string | null }
  >(
    `SELECT ${OUTCOME_COLUMNS},
       (SELECT m."parts" FROM "ChatMessage" m WHERE m."id" = t."userMessageId") AS "userText",
       (SELECT m."parts" FROM "ChatMessage" m WHERE m."id" = t."assistantMessageId") AS "assistantText"
     FROM "TurnOutcome" o LEFT JOIN "Turn" t ON t."id" = o."turnId"
     WHERE o."answeredBy" = ? AND o."workspaceId" = ? ORDER BY o."turnAt" ASC`,
    [options.refinementId, options.actor.workspaceId],
  );
  const textOf = (parts: string | null, max: number) => {
    const text = jsonOr<{ type: string; text?: string }[]>(parts, [])
      .filter((part) => part.type === "text" && typeof part.text === "string")
      .map((part) => part.text)
      .join("\n")
      .trim();
    return text.length > max ? `${text.slice(0, max)} …` : text;
  };
  const lines: string[] = [
    `${rows.length} answer(s) were rated down since the last refinement. Find what they have in common and change the harness so the next answers avoid it.`,
  ];
  const others = new Map<string, number>();
  let index = 0;
  for (const row of rows) {
    const outcome = toOutcome(row);
    if (outcome.userId !== options.actor.userId) {
      for (const tag of outcome.tags.length > 0 ? outcome.tags : ["(no reason given)"])
        others.set(tag, (others.get(tag) ?? 0) + 1);
      continue;
    }
    index += 1;
    lines.push(
      "",
      `### Rated answer ${index} (turn ${outcome.turnId}, harness version ${outcome.harnessVersion ?? "?"})`,
      `Reasons: ${outcome.tags.map((tag) => FEEDBACK_TAG_LABELS[tag] ?? tag).join(", ") || "(none given)"}`,
      `Comment: ${outcome.comment ?? "(none)"}`,
      `Entries shown in its prompt: ${outcome.entriesShown.join(", ") || "(none)"}`,
      `User asked: ${textOf(row.userText, 1500) || "(no text)"}`,
      `Assistant answered: ${textOf(row.assistantText, 3000) || "(no text)"}`,
    );
  }
  if (others.size > 0)
    lines.push(
      "",
      `Other people's rated-down answers (their text is private), by reason: ${[...others]
        .map(([tag, count]) => `${FEEDBACK_TAG_LABELS[tag as FeedbackTag] ?? tag} × ${count}`)
        .join(", ")}`,
    );
  return lines.join("\n");
}

// ---------------------------------------------------------------------------------------
// Aggregation and judgement
