// Outcomes of answers: a person's thumbs up / down on an assistant turn, stored with what
// produced the answer (harness version, entries shown, dirs' cursors, model), counted per
// harness-version range, and fed back into refinement (the `feedback` trigger, the automatic
// supported / not supported verdict and the guard rail). See docs/refinements-in-the-app.md.
import { canWriteGlobal, type Actor, type TurnTraceEvent } from "@/lib/harness";
import {
  getSql,
  placeholders,
  toDate,
  toDateOrNull,
  type Sql,
  type SqlExecutor,
} from "@/lib/storage/sql";
import type { WorkspaceSettingsValues } from "@/lib/workspace-settings";
import {
  beforeAfter,
  judgeRefinement,
  versionRanges,
  type BeforeAfter,
  type Judgement,
  type OutcomePoint,
  type RefinementBoundary,
  type VersionRange,
} from "./stats";
import { FEEDBACK_TAG_LABELS, type ChatRating, type FeedbackTag, type RateTurnInput } from "./tags";

export {
  beforeAfter,
  judgeRefinement,
  versionRanges,
  wilsonInterval,
  type BeforeAfter,
  type Judgement,
  type RatedShare,
  type VersionRange,
} from "./stats";

export {
  FEEDBACK_TAG_LABELS,
  FEEDBACK_TAGS,
  rateTurnInputSchema,
  type ChatRating,
  type FeedbackTag,
  type RateTurnInput,
} from "./tags";

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

interface OutcomeRow {
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

const OUTCOME_COLUMNS = `o."id", o."workspaceId", o."chatId", o."turnId", o."userId", o."rating",
  o."comment", o."tags", o."source", o."harnessVersion", o."entriesShown", o."dirCursors",
  o."model", o."turnAt", o."answeredBy", o."updatedAt"`;

function jsonOr<T>(text: string | null | undefined, fallback: T): T {
  if (!text) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

function toOutcome(row: OutcomeRow): TurnOutcome {
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

/** Which answers to count: the workspace's, or one chat's. */
export type OutcomeScope = { kind: "workspace" } | { kind: "chat"; chatId: string };

interface BoundaryRow {
  id: string;
  scope: string;
  chatId: string | null;
  trigger: string;
  status: string;
  harnessVersionAfter: number | null;
  createdAt: unknown;
  autoVerdict: string | null;
}

/** The refinements that changed the harness a scope's answers were produced with. */
async function boundariesOf(
  sql: SqlExecutor,
  workspaceId: string,
  scope: OutcomeScope,
): Promise<(RefinementBoundary & { row: BoundaryRow })[]> {
  const rows = await sql.all<BoundaryRow>(
    `SELECT "id", "scope", "chatId", "trigger", "status", "harnessVersionAfter", "createdAt", "autoVerdict"
     FROM "Refinement"
     WHERE "workspaceId" = ? AND "status" IN ('applied', 'partial')
       AND "harnessVersionAfter" IS NOT NULL
       AND ("scope" = 'global' ${scope.kind === "chat" ? `OR "chatId" = ?` : ""})
     ORDER BY "harnessVersionAfter" ASC`,
    scope.kind === "chat" ? [workspaceId, scope.chatId] : [workspaceId],
  );
  return rows.map((row) => ({
    id: row.id,
    harnessVersionAfter: Number(row.harnessVersionAfter),
    createdAt: toDate(row.createdAt).toISOString(),
    row,
  }));
}

/** The rated answers of a scope (every person's: counts carry no text). */
async function outcomePoints(
  sql: SqlExecutor,
  workspaceId: string,
  scope: OutcomeScope,
): Promise<OutcomePoint[]> {
  const rows = await sql.all<{ harnessVersion: number | null; rating: string; turnAt: unknown }>(
    `SELECT "harnessVersion", "rating", "turnAt" FROM "TurnOutcome"
     WHERE "workspaceId" = ? ${scope.kind === "chat" ? `AND "chatId" = ?` : ""}`,
    scope.kind === "chat" ? [workspaceId, scope.chatId] : [workspaceId],
  );
  return rows.map((row) => ({
    harnessVersion: row.harnessVersion === null ? null : Number(row.harnessVersion),
    rating: row.rating === "good" ? "good" : "bad",
    turnAt: toDate(row.turnAt).toISOString(),
  }));
}

/** The scope a refinement is measured in: its chat for a local one, the workspace for a global one. */
export function scopeOfRefinement(refinement: {
  scope: string;
  chatId: string | null;
}): OutcomeScope {
  return refinement.scope === "local" && refinement.chatId
    ? { kind: "chat", chatId: refinement.chatId }
    : { kind: "workspace" };
}

/** A scope's version ranges and the refinements between them (the overview's chart). */
export async function outcomeOverview(options: {
  workspaceId: string;
  scope: OutcomeScope;
  /**
   * Workspace scope: also list the local refinements of this person's own chats (marked on the
   * chart; they do not split the workspace's ranges, as they change one chat's harness only).
   */
  viewerId?: string;
  sql?: SqlExecutor;
}): Promise<{
  ranges: VersionRange[];
  refinements: {
    id: string;
    createdAt: string;
    harnessVersionAfter: number;
    scope: string;
    trigger: string;
  }[];
  total: number;
}> {
  const sql = options.sql ?? getSql();
  const [bounds, points, ownLocal] = await Promise.all([
    boundariesOf(sql, options.workspaceId, options.scope),
    outcomePoints(sql, options.workspaceId, options.scope),
    options.scope.kind === "workspace" && options.viewerId
      ? sql.all<BoundaryRow>(
          `SELECT r."id", r."scope", r."chatId", r."trigger", r."status", r."harnessVersionAfter",
             r."createdAt", r."autoVerdict"
           FROM "Refinement" r JOIN "Chat" c ON c."id" = r."chatId"
           WHERE r."workspaceId" = ? AND r."scope" = 'local' AND c."userId" = ?
             AND r."status" IN ('applied', 'partial') AND r."harnessVersionAfter" IS NOT NULL`,
          [options.workspaceId, options.viewerId],
        )
      : Promise.resolve([]),
  ]);
  const listed = [...bounds.map((bound) => bound.row), ...ownLocal].sort(
    (a, b) => Number(a.harnessVersionAfter) - Number(b.harnessVersionAfter),
  );
  return {
    ranges: versionRanges(points, bounds),
    refinements: listed.map((row) => ({
      id: row.id,
      createdAt: toDate(row.createdAt).toISOString(),
      harnessVersionAfter: Number(row.harnessVersionAfter),
      scope: row.scope,
      trigger: row.trigger,
    })),
    total: points.length,
  };
}

/** Before / after counts of each of `refinements`, each in its own scope. */
export async function refinementOutcomes(options: {
  workspaceId: string;
  refinements: readonly { id: string; scope: string; chatId: string | null }[];
  sql?: SqlExecutor;
}): Promise<Map<string, BeforeAfter>> {
  const sql = options.sql ?? getSql();
  const result = new Map<string, BeforeAfter>();
  const byScope = new Map<string, { scope: OutcomeScope; ids: string[] }>();
  for (const refinement of options.refinements) {
    const scope = scopeOfRefinement(refinement);
    const key = scope.kind === "chat" ? `chat:${scope.chatId}` : "workspace";
    const entry = byScope.get(key) ?? { scope, ids: [] };
    entry.ids.push(refinement.id);
    byScope.set(key, entry);
  }
  for (const { scope, ids } of byScope.values()) {
    const [bounds, points] = await Promise.all([
      boundariesOf(sql, options.workspaceId, scope),
      outcomePoints(sql, options.workspaceId, scope),
    ]);
    for (const id of ids) {
      const counts = beforeAfter(id, points, bounds);
      if (counts) result.set(id, counts);
    }
  }
  return result;
}

/** A stored automatic verdict. */
export interface AutoVerdict extends Judgement {
  at: string;
}

/** Triggers whose refinements are judged (undo operations and imports are boundaries only). */
const JUDGED_TRIGGERS = ["explicit", "every-n-turns", "compaction", "feedback"] as const;

/**
 * Judges, once, each refinement that could count this chat's answers and has none yet: once
 * `feedbackJudgeAfter` rated answers follow it, its verdict (supported / not supported, with the
 * counts and whether it regressed) is stored and no longer changes.
 */
export async function judgeRefinements(options: {
  workspaceId: string;
  chatId: string;
  settings: WorkspaceSettingsValues;
  sql?: Sql;
  now?: Date;
}): Promise<string[]> {
  const sql = options.sql ?? getSql();
  const judged: string[] = [];
  for (const scope of [
    { kind: "chat", chatId: options.chatId } as const,
    { kind: "workspace" } as const,
  ]) {
    const bounds = await boundariesOf(sql, options.workspaceId, scope);
    const open = bounds.filter(
      (bound) =>
        bound.row.autoVerdict === null &&
        (JUDGED_TRIGGERS as readonly string[]).includes(bound.row.trigger) &&
        // Each refinement is judged in its own scope only.
        (scope.kind === "chat"
          ? bound.row.scope === "local" && bound.row.chatId === options.chatId
          : bound.row.scope === "global"),
    );
    if (open.length === 0) continue;
    const points = await outcomePoints(sql, options.workspaceId, scope);
    for (const bound of open) {
      const counts = beforeAfter(bound.id, points, bounds);
      const judgement = counts
        ? judgeRefinement(counts, options.settings.feedbackJudgeAfter)
        : null;
      if (!judgement) continue;
      const { changes } = await sql.run(
        `UPDATE "Refinement" SET "autoVerdict" = ?, "autoVerdictAt" = ?, "autoVerdictStats" = ?
         WHERE "id" = ? AND "autoVerdict" IS NULL`,
        [
          judgement.verdict,
          options.now ?? new Date(),
          JSON.stringify({
            before: judgement.before,
            after: judgement.after,
            regressed: judgement.regressed,
          }),
          bound.id,
        ],
      );
      if (changes > 0) judged.push(bound.id);
    }
  }
  return judged;
}

/** The automatic verdicts of `ids` (absent: not judged yet). */
export async function getAutoVerdicts(
  ids: readonly string[],
  sql: SqlExecutor = getSql(),
): Promise<Map<string, AutoVerdict>> {
  if (ids.length === 0) return new Map();
  const rows = await sql.all<{
    id: string;
    autoVerdict: string | null;
    autoVerdictAt: unknown;
    autoVerdictStats: string | null;
  }>(
    `SELECT "id", "autoVerdict", "autoVerdictAt", "autoVerdictStats" FROM "Refinement"
     WHERE "id" IN (${placeholders(ids.length)}) AND "autoVerdict" IS NOT NULL`,
    [...ids],
  );
  return new Map(
    rows.map((row) => {
      const stats = jsonOr<Omit<Judgement, "verdict">>(row.autoVerdictStats, {
        before: { total: 0, good: 0, share: null, low: null, high: null },
        after: { total: 0, good: 0, share: null, low: null, high: null },
        regressed: false,
      });
      return [
        row.id,
        {
          verdict: row.autoVerdict === "supported" ? "supported" : "not_supported",
          at: toDate(row.autoVerdictAt).toISOString(),
          ...stats,
        },
      ];
    }),
  );
}
