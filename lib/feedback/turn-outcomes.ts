// A person's thumbs up / down on an assistant turn, stored with what produced the answer.
import type { Actor, TurnTraceEvent } from "@/lib/harness";
import { getSql, toDate, type SqlExecutor } from "@/lib/sql-storage/sql";
import type { ChatRating, FeedbackTag } from "./tags";

/** One stored rating. */
export interface TurnOutcome {
  id: string;
  workspaceId: string;
  chatId: string;
  turnId: string;
  userId: string;
  rating: "good" | "bad";
  comment: string | null;
  tags: FeedbackTag[];
  source: "chat" | "mcp";
  harnessVersion: number | null;
  entriesShown: string[];
  dirCursors: Record<string, string | number>;
  model: string | null;
  turnAt: string;
  answeredBy: string | null;
  updatedAt: string;
}

export interface OutcomeRow {
  id: string;
  workspaceId: string;
  chatId: string;
  turnId: string;
  userId: string;
  rating: string;
  comment: string | null;
  tags: string;
  source: string;
  harnessVersion: number | null;
  entriesShown: string;
  dirCursors: string;
  model: string | null;
  turnAt: unknown;
  answeredBy: string | null;
  updatedAt: unknown;
}

export const OUTCOME_COLUMNS = `o."id", o."workspaceId", o."chatId", o."turnId", o."userId", o."rating",
  o."comment", o."tags", o."source", o."harnessVersion", o."entriesShown", o."dirCursors",
  o."model", o."turnAt", o."answeredBy", o."updatedAt"`;

export function jsonOr<T>(text: string | null | undefined, fallback: T): T {
  if (!text) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

export function toOutcome(row: OutcomeRow): TurnOutcome {
  return {
    id: row.id,
    workspaceId: row.workspaceId,
    chatId: row.chatId,
    turnId: row.turnId,
    userId: row.userId,
    rating: row.rating === "good" ? "good" : "bad",
    comment: row.comment,
    tags: jsonOr<FeedbackTag[]>(row.tags, []),
    source: row.source === "mcp" ? "mcp" : "chat",
    harnessVersion: row.harnessVersion === null ? null : Number(row.harnessVersion),
    entriesShown: jsonOr<string[]>(row.entriesShown, []),
    dirCursors: jsonOr<Record<string, string | number>>(row.dirCursors, {}),
    model: row.model,
    turnAt: toDate(row.turnAt).toISOString(),
    answeredBy: row.answeredBy,
    updatedAt: toDate(row.updatedAt).toISOString(),
  };
}

/** What a turn's record says produced its answer: harness version, entries shown, dirs' cursors. */
export function turnProvenance(turn: { instructions: string | null; trace: string | null }): {
  harnessVersion: number | null;
  entriesShown: string[];
  dirCursors: Record<string, string | number>;
} {
  const sections = jsonOr<{ name: string; details?: Record<string, unknown> }[]>(
    turn.instructions,
    [],
  );
  const harness = sections.find((section) => section.name === "harness")?.details ?? {};
  const version = harness.harnessVersion;
  const shown = harness.entriesShown;
  const dirCursors: Record<string, string | number> = {};
  for (const event of jsonOr<TurnTraceEvent[]>(turn.trace, [])) {
    if (event.type === "dir.loaded" && event.cursor !== undefined)
      dirCursors[event.harnessDir] = event.cursor;
  }
  return {
    harnessVersion: typeof version === "number" ? version : null,
    entriesShown: Array.isArray(shown) ? shown.filter((item) => typeof item === "string") : [],
    dirCursors,
  };
}

/** Asks for a feedback-triggered refinement (the app passes `requestRefinement`); null: not queued. */
export type FeedbackRefinementRequester = (options: {
  actor: Actor;
  chatId: string;
  id: string;
  global: boolean;
}) => Promise<string | null>;

/** The ratings of a chat's turns, keyed by turn id (for the chat page; the owner's own). */
export async function listChatRatings(
  chatId: string,
  sql: SqlExecutor = getSql(),
): Promise<Record<string, ChatRating>> {
  const rows = await sql.all<OutcomeRow>(
    `SELECT ${OUTCOME_COLUMNS} FROM "TurnOutcome" o WHERE o."chatId" = ?`,
    [chatId],
  );
  return Object.fromEntries(
    rows.map((row) => {
      const outcome = toOutcome(row);
      return [
        outcome.turnId,
        { rating: outcome.rating, comment: outcome.comment, tags: outcome.tags },
      ];
    }),
  );
}

/** One outcome by turn id (tests, MCP answers). */
export async function getTurnOutcome(
  turnId: string,
  sql: SqlExecutor = getSql(),
): Promise<TurnOutcome | null> {
  const row = await sql.get<OutcomeRow>(
    `SELECT ${OUTCOME_COLUMNS} FROM "TurnOutcome" o WHERE o."turnId" = ?`,
    [turnId],
  );
  return row ? toOutcome(row) : null;
}

// ---------------------------------------------------------------------------------------
// The feedback trigger
