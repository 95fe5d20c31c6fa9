import type { UIMessage } from "ai";
import { createId, databaseTargetOf, type Db } from "@/lib/db";
import { HarnessNotFoundError, type Actor } from "@/lib/harness";
import {
  getSql,
  placeholders,
  plannedPerCall,
  sqlFor,
  toBool,
  toDate,
  type Sql,
  type SqlExecutor,
  type SqlValue,
} from "@/lib/sql-storage/sql";
import {
  DEFAULT_WORKSPACE_SETTINGS,
  dirLimitColumns,
  dirLimitValuesOf,
  type WorkspaceDirLimitValues,
  type WorkspaceSettingsValues,
} from "@/lib/workspace-settings";
import { chatMessageMatch } from "@/lib/search/search";
import { listMessageTimes, loadChatMessages } from "./messages";

/**
 * The chat path's queries (chats, messages, turns, the turn claim) on the SQL layer
 * (`lib/sql-storage/sql`), not Prisma's query engine: a chat turn runs about a dozen of them, and
 * through Prisma each cost 1–1.5 ms of CPU (bench/README.md, "Chat route"). The same SQL text
 * runs on SQLite and PostgreSQL. Prisma keeps the schema; these read and write its tables.
 */

/**
 * The SQL client of a Prisma client's database, or the process's (`getSql()`) without one: a
 * bridge for tests that set up rows with Prisma. The app's code calls `getSql()`.
 */
export function sqlOf(db?: Db): Sql {
  return db ? sqlFor(databaseTargetOf(db)) : getSql();
}

export interface ChatForTurn {
  id: string;
  title: string;
  /** The workspace's settings (their defaults when the workspace has none saved). */
  settings: WorkspaceSettingsValues;
  /** The version of the workspace's saved model (Admin → Settings → Model), `null` when none. */
  modelSettingsVersion: number | null;
  /** A temporary chat: its turns run without memory, company knowledge or the harness. */
  temporary: boolean;
}

/** The chat if it is the actor's own (same user, same workspace), with its workspace's settings. */
export async function findChatForTurn(
  sql: SqlExecutor,
  options: { chatId: string; userId: string; workspaceId: string },
): Promise<ChatForTurn | null> {
  const row = await sql.get<
    {
      id: string;
      title: string;
      tokenBudget: number | null;
      refineEveryTurns: number | null;
      refineAfterCompaction: unknown;
      refineCooldownMinutes: number | null;
      globalRefineNeedsApproval: unknown;
      feedbackRefineThreshold: number | null;
      feedbackJudgeAfter: number | null;
      feedbackGuardRail: unknown;
      modelSettingsVersion: number | null;
      temporary: unknown;
    } & Partial<Record<keyof WorkspaceDirLimitValues, unknown>>
  >(
    `SELECT c."id", c."title", c."temporary", s."tokenBudget", s."refineEveryTurns", s."refineAfterCompaction",
       s."refineCooldownMinutes", s."globalRefineNeedsApproval", s."feedbackRefineThreshold",
       s."feedbackJudgeAfter", s."feedbackGuardRail", ${dirLimitColumns("s.")},
       m."version" AS "modelSettingsVersion"
     FROM "Chat" c LEFT JOIN "WorkspaceSettings" s ON s."workspaceId" = c."workspaceId"
       LEFT JOIN "ModelSettings" m ON m."workspaceId" = c."workspaceId"
     WHERE c."id" = ? AND c."workspaceId" = ? AND c."userId" = ?`,
    [options.chatId, options.workspaceId, options.userId],
  );
  if (!row) return null;
  const settings =
    row.tokenBudget === null
      ? DEFAULT_WORKSPACE_SETTINGS
      : {
          tokenBudget: row.tokenBudget,
          refineEveryTurns: row.refineEveryTurns ?? DEFAULT_WORKSPACE_SETTINGS.refineEveryTurns,
          refineAfterCompaction: toBool(row.refineAfterCompaction),
          refineCooldownMinutes:
            row.refineCooldownMinutes ?? DEFAULT_WORKSPACE_SETTINGS.refineCooldownMinutes,
          globalRefineNeedsApproval: toBool(row.globalRefineNeedsApproval),
          feedbackRefineThreshold:
            row.feedbackRefineThreshold ?? DEFAULT_WORKSPACE_SETTINGS.feedbackRefineThreshold,
          feedbackJudgeAfter:
            row.feedbackJudgeAfter ?? DEFAULT_WORKSPACE_SETTINGS.feedbackJudgeAfter,
          feedbackGuardRail: toBool(row.feedbackGuardRail),
          ...dirLimitValuesOf(row),
        };
  return {
    id: row.id,
    title: row.title,
    settings,
    modelSettingsVersion:
      row.modelSettingsVersion === null ? null : Number(row.modelSettingsVersion),
    temporary: toBool(row.temporary),
  };
}

export interface MessageRow {
  id: string;
  role: string;
  parts: string;
}

/** What a turn starts from: the chat's compaction state and its messages in order. */
export interface TurnHistory {
  compaction: { compactionSummary: string | null; compactedThroughId: string | null };
  messages: MessageRow[];
}

/**
 * A chat's compaction state and its messages, in one statement (read once the turn holds the
 * chat, so no other turn changes either): the chat's row comes first, marked `kind = 'chat'`
 * and carrying `compactedThroughId` as `id` and `compactionSummary` as `parts`, then the
 * messages by position. One round trip instead of two on every turn (bench/README.md,
 * "Statements per chat turn").
 */
export async function loadTurnHistory(sql: SqlExecutor, chatId: string): Promise<TurnHistory> {
  const rows = await sql.all<{
    kind: "chat" | "message";
    id: string | null;
    role: string | null;
    parts: string | null;
  }>(
    `SELECT 'chat' AS "kind", "compactedThroughId" AS "id", NULL AS "role",
       "compactionSummary" AS "parts", 0 AS "seq"
     FROM "Chat" WHERE "id" = ?
     UNION ALL
     SELECT 'message' AS "kind", "id", "role", "parts", "seq"
     FROM "ChatMessage" WHERE "chatId" = ?
     ORDER BY "kind" ASC, "seq" ASC`,
    [chatId, chatId],
  );
  const chat = rows[0];
  if (chat?.kind !== "chat") {
    throw new HarnessNotFoundError({ surface: "chat", message: `No chat ${chatId}.` });
  }
  return {
    compaction: { compactionSummary: chat.parts, compactedThroughId: chat.id },
    messages: rows.slice(1) as MessageRow[],
  };
}

/** A chat's messages in order, as stored. */
export function listMessageRows(sql: SqlExecutor, chatId: string): Promise<MessageRow[]> {
  return sql.all<MessageRow>(
    `SELECT "id", "role", "parts" FROM "ChatMessage" WHERE "chatId" = ? ORDER BY "seq" ASC`,
    [chatId],
  );
}

/**
 * Inserts `message` at the end of the chat in one statement (position = the chat's last + 1).
 * Returns false, changing nothing, when a message with that id exists already (in any chat).
 * Two inserts racing for the same position: the loser throws a unique violation on
 * `(chatId, seq)`, and the caller retries.
 */
export async function insertMessageAtEnd(
  sql: SqlExecutor,
  chatId: string,
  message: UIMessage,
  now: Date = new Date(),
): Promise<boolean> {
  // SQLite reads `INSERT … SELECT … ON CONFLICT` only with a WHERE in the SELECT (it has one).
  const { changes } = await sql.run(
    `INSERT INTO "ChatMessage" ("id", "chatId", "role", "parts", "seq", "createdAt")
     SELECT ?, ?, ?, ?, COALESCE(MAX("seq"), 0) + 1, ? FROM "ChatMessage" WHERE "chatId" = ?
     ON CONFLICT ("id") DO NOTHING`,
    [message.id, chatId, message.role, JSON.stringify(message.parts), now, chatId],
  );
  return changes === 1;
}

/** Whether a message with this id is stored (in any chat). */
export async function messageExists(sql: SqlExecutor, id: string): Promise<boolean> {
  return (await sql.get(`SELECT 1 AS "one" FROM "ChatMessage" WHERE "id" = ?`, [id])) !== undefined;
}

/** Stores a new running turn. */
export async function insertRunningTurn(
  sql: SqlExecutor,
  turn: {
    id: string;
    chatId: string;
    userId: string;
    userMessageId: string;
    model: string;
    leaseExpiresAt: Date;
  },
): Promise<void> {
  await sql.run(
    `INSERT INTO "Turn" ("id", "chatId", "userId", "status", "userMessageId", "model", "leaseExpiresAt", "startedAt")
     VALUES (?, ?, ?, 'running', ?, ?, ?, ?)`,
    [
      turn.id,
      turn.chatId,
      turn.userId,
      turn.userMessageId,
      turn.model,
      turn.leaseExpiresAt,
      new Date(),
    ],
  );
}

/** Extends a running turn's lease (a no-op once it has finished). */
export async function refreshTurnLease(
  sql: SqlExecutor,
  turnId: string,
  until: Date,
): Promise<void> {
  await sql.run(`UPDATE "Turn" SET "leaseExpiresAt" = ? WHERE "id" = ? AND "status" = 'running'`, [
    until,
    turnId,
  ]);
}

/** What a finished turn records about itself. */
export interface FinishedTurnRecord {
  status: string;
  error: string | null;
  assistantMessageId: string | null;
  persistence: string;
  instructions: string;
  trace: string;
  compaction: string | null;
  inputTokens: number | null;
  outputTokens: number | null;
}

/**
 * Records a finished turn in one transaction: the assistant message (kept if a retry already
 * stored it), the turn row, the chat's compaction or `updatedAt`, and the release of the chat's
 * claim — so the next turn of the chat sees all of it or none.
 */
export async function recordFinishedTurn(
  sql: Sql,
  options: {
    turnId: string;
    chatId: string;
    assistant: UIMessage | null;
    turn: FinishedTurnRecord;
    compaction: { summary: string; throughId: string } | null;
  },
): Promise<void> {
  const now = new Date();
  await sql.transaction(async (tx) => {
    // The chat's claim is held: no other turn appends meanwhile. A retry of this recording
    // finds its message stored already and keeps it.
    if (options.assistant) await insertMessageAtEnd(tx, options.chatId, options.assistant, now);
    const turn = options.turn;
    await tx.run(
      `UPDATE "Turn" SET "status" = ?, "leaseExpiresAt" = NULL, "error" = ?, "assistantMessageId" = ?,
         "persistence" = ?, "instructions" = ?, "trace" = ?, "compaction" = ?, "inputTokens" = ?,
         "outputTokens" = ?, "finishedAt" = ?
       WHERE "id" = ?`,
      [
        turn.status,
        turn.error,
        turn.assistantMessageId,
        turn.persistence,
        turn.instructions,
        turn.trace,
        turn.compaction,
        turn.inputTokens,
        turn.outputTokens,
        now,
        options.turnId,
      ],
    );
    if (options.compaction) {
      await tx.run(
        `UPDATE "Chat" SET "compactionSummary" = ?, "compactedThroughId" = ?, "updatedAt" = ? WHERE "id" = ?`,
        [options.compaction.summary, options.compaction.throughId, now, options.chatId],
      );
    } else {
      await tx.run(`UPDATE "Chat" SET "updatedAt" = ? WHERE "id" = ?`, [now, options.chatId]);
    }
    await tx.run(`DELETE FROM "ChatTurnClaim" WHERE "chatId" = ? AND "turnId" = ?`, [
      options.chatId,
      options.turnId,
    ]);
  });
}

/** Sets a turn's assistant message (a `/refine` command turn, recorded after its stream). */
export async function setTurnAssistantMessage(
  sql: SqlExecutor,
  turnId: string,
  messageId: string,
): Promise<void> {
  await sql.run(`UPDATE "Turn" SET "assistantMessageId" = ? WHERE "id" = ?`, [messageId, turnId]);
}

/** Stores a `/refine` command turn (model-less, completed at once). */
export async function insertCommandTurn(
  sql: SqlExecutor,
  turn: { id: string; chatId: string; userId: string; userMessageId: string },
): Promise<void> {
  const now = new Date();
  await sql.run(
    `INSERT INTO "Turn" ("id", "chatId", "userId", "status", "userMessageId", "persistence", "startedAt", "finishedAt")
     VALUES (?, ?, ?, 'completed', ?, ?, ?, ?)`,
    [
      turn.id,
      turn.chatId,
      turn.userId,
      turn.userMessageId,
      JSON.stringify({ status: "not-configured" }),
      now,
      now,
    ],
  );
}

/** The three latest refinements a chat's turn shows the model (global, or this chat's; not imported). */
export async function listRecentRefinements(
  sql: SqlExecutor,
  options: { workspaceId: string; chatId: string },
): Promise<Array<{ id: string; summary: string; status: string; createdAt: string }>> {
  const rows = await sql.all<{ id: string; summary: string; status: string; createdAt: unknown }>(
    `SELECT "id", "summary", "status", "createdAt" FROM "Refinement"
     WHERE "workspaceId" = ? AND ("scope" = 'global' OR "chatId" = ?) AND "status" <> 'imported'
     ORDER BY "createdAt" DESC LIMIT 3`,
    [options.workspaceId, options.chatId],
  );
  return rows.map((row) => ({
    id: row.id,
    summary: row.summary,
    status: row.status,
    createdAt: toDate(row.createdAt).toISOString(),
  }));
}

// ---------------------------------------------------------------------------------------
// The chat queries of the app's pages and actions (the list of chats, one's own chat, creating,
// renaming and deleting one, a chat page's messages). Every query takes the Actor where it
// matters: a chat belongs to one person in one workspace, and someone else's reads as missing.

/** One chat in a list of chats. */
export interface ChatListItem {
  id: string;
  title: string;
  updatedAt: Date;
}

/** A page of chats and the cursor of the next one (null: this is the last). */
export interface ChatPage {
  items: ChatListItem[];
  nextCursor: string | null;
}

/** A page of the chat list holds this many chats unless asked for fewer or more. */
export const CHAT_PAGE_SIZE = 50;
/** No page holds more: one request's work stays bounded however many chats a person has. */
export const MAX_CHAT_PAGE_SIZE = 200;

/** `[updatedAt as ISO 8601, id]` of the last chat of a page, as `listChats` hands it out. */
function encodeChatCursor(chat: { updatedAt: Date; id: string }): string {
  return Buffer.from(JSON.stringify([chat.updatedAt.toISOString(), chat.id])).toString("base64url");
}

/** The position a cursor names, or null when it is not one `listChats` handed out. */
export function decodeChatCursor(cursor: string): { updatedAt: Date; id: string } | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (!Array.isArray(value) || value.length !== 2) return null;
    const [at, id] = value as unknown[];
    if (typeof at !== "string" || typeof id !== "string" || id.length > 100) return null;
    const updatedAt = new Date(at);
    return Number.isNaN(updatedAt.getTime()) ? null : { updatedAt, id };
  } catch {
    return null;
  }
}

/**
 * The chats of the actor in their workspace, most recently updated first, one page at a time
 * (`limit`, default {@link CHAT_PAGE_SIZE}, at most {@link MAX_CHAT_PAGE_SIZE}). Pages are keyed
 * on `(updatedAt, id)`, so a chat is neither missed nor repeated across pages unless it is
 * updated meanwhile (it then moves to the top). `query` keeps the chats whose title contains it
 * or one of whose messages holds its words (the search index), ignoring case (on SQLite only ASCII letters fold; PostgreSQL folds all). Temporary chats are never
 * listed (issue 26): once the person leaves one, it is gone from every list. A cursor that
 * `listChats` did not hand out gives the first page. One statement, bound parameters fixed in
 * number whatever the chat count.
 */
export async function listChats(
  actor: Actor,
  options: { cursor?: string | null; limit?: number; query?: string; sql?: SqlExecutor } = {},
): Promise<ChatPage> {
  const sql = options.sql ?? getSql();
  const limit = Math.min(
    Math.max(Math.trunc(options.limit ?? CHAT_PAGE_SIZE), 1),
    MAX_CHAT_PAGE_SIZE,
  );
  const after = options.cursor ? decodeChatCursor(options.cursor) : null;
  const where = [`"workspaceId" = ?`, `"userId" = ?`, `NOT "temporary"`];
  const parameters: SqlValue[] = [actor.workspaceId, actor.userId];
  const query = options.query?.trim().toLowerCase();
  if (query) {
    // instr / strpos, not LIKE: a % or _ in the search matches literally. A chat also matches
    // when one of its messages holds the words (the search index, lib/search).
    const title = `${sql.dialect === "sqlite" ? "instr" : "strpos"}(lower("title"), ?) > 0`;
    const messages = chatMessageMatch(sql.dialect, `"id"`, query, actor);
    where.push(messages ? `(${title} OR ${messages.sql})` : title);
    parameters.push(query, ...(messages?.params ?? []));
  }
  if (after) {
    where.push(`("updatedAt" < ? OR ("updatedAt" = ? AND "id" < ?))`);
    parameters.push(after.updatedAt, after.updatedAt, after.id);
  }
  const text = `SELECT "id", "title", "updatedAt" FROM "Chat" WHERE ${where.join(" AND ")}
     ORDER BY "updatedAt" DESC, "id" DESC LIMIT ?`;
  const rows = await sql.all<{ id: string; title: string; updatedAt: unknown }>(
    // A search's full-text match is planned with its own words.
    query ? plannedPerCall(text) : text,
    [...parameters, limit + 1],
  );
  const items = rows
    .slice(0, limit)
    .map((row) => ({ id: row.id, title: row.title, updatedAt: toDate(row.updatedAt) }));
  const last = items.at(-1);
  return { items, nextCursor: rows.length > limit && last ? encodeChatCursor(last) : null };
}

/**
 * Titles of the actor's own chats among `chatIds` (others' chats are simply absent). For the ids
 * one page shows: at most {@link MAX_CHAT_PAGE_SIZE} ids are looked up per statement.
 */
export async function ownChatTitles(
  actor: Actor,
  chatIds: readonly string[],
  sql: SqlExecutor = getSql(),
): Promise<Map<string, string>> {
  const ids = [...new Set(chatIds)];
  const titles = new Map<string, string>();
  for (let start = 0; start < ids.length; start += MAX_CHAT_PAGE_SIZE) {
    const batch = ids.slice(start, start + MAX_CHAT_PAGE_SIZE);
    const rows = await sql.all<{ id: string; title: string }>(
      `SELECT "id", "title" FROM "Chat"
       WHERE "workspaceId" = ? AND "userId" = ? AND "id" IN (${placeholders(batch.length)})`,
      [actor.workspaceId, actor.userId, ...batch],
    );
    for (const row of rows) titles.set(row.id, row.title);
  }
  return titles;
}

/** Whether the actor has any chat in their workspace. */
export async function hasChats(actor: Actor, sql: SqlExecutor = getSql()): Promise<boolean> {
  const row = await sql.get(
    `SELECT 1 AS "one" FROM "Chat" WHERE "workspaceId" = ? AND "userId" = ? LIMIT 1`,
    [actor.workspaceId, actor.userId],
  );
  return row !== undefined;
}

/** The chat if it belongs to the actor (same user, same workspace), else null. */
export async function getOwnChat(
  actor: Actor,
  chatId: string,
): Promise<{ id: string; title: string; temporary: boolean; createdAt: Date } | null> {
  const row = await getSql().get<{
    id: string;
    title: string;
    temporary: unknown;
    createdAt: unknown;
  }>(
    `SELECT "id", "title", "temporary", "createdAt" FROM "Chat"
     WHERE "id" = ? AND "workspaceId" = ? AND "userId" = ?`,
    [chatId, actor.workspaceId, actor.userId],
  );
  return row
    ? {
        id: row.id,
        title: row.title,
        temporary: toBool(row.temporary),
        createdAt: toDate(row.createdAt),
      }
    : null;
}

/**
 * Creates a chat of the actor's. A temporary one (`temporary: true`) is never listed and is
 * deleted after 24 hours: the caller enqueues its deletion (`scheduleTemporaryChatDeletion`).
 */
export async function createChat(
  actor: Actor,
  title: string,
  options: { temporary?: boolean } = {},
): Promise<{ id: string }> {
  const id = createId();
  const now = new Date();
  await getSql().run(
    `INSERT INTO "Chat" ("id", "workspaceId", "userId", "title", "temporary", "createdAt", "updatedAt")
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
    [id, actor.workspaceId, actor.userId, title, options.temporary ?? false, now, now],
  );
  return { id };
}

/** Renames one of the actor's chats; returns whether it was theirs. */
export async function renameOwnChat(actor: Actor, chatId: string, title: string): Promise<boolean> {
  const { changes } = await getSql().run(
    `UPDATE "Chat" SET "title" = ?, "updatedAt" = ? WHERE "id" = ? AND "workspaceId" = ? AND "userId" = ?`,
    [title, new Date(), chatId, actor.workspaceId, actor.userId],
  );
  return changes > 0;
}

/** Deletes one of the actor's chats with its messages and turns (the schema cascades). */
export async function deleteOwnChat(actor: Actor, chatId: string): Promise<void> {
  await getSql().run(`DELETE FROM "Chat" WHERE "id" = ? AND "workspaceId" = ? AND "userId" = ?`, [
    chatId,
    actor.workspaceId,
    actor.userId,
  ]);
}

/** A chat page's messages and when each was written (call after `getOwnChat`). */
export function loadChatPageMessages(chatId: string) {
  const sql = getSql();
  return Promise.all([loadChatMessages(sql, chatId), listMessageTimes(sql, chatId)]);
}
