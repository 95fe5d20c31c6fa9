import "server-only";
import { getSql, placeholders } from "@/lib/sql-storage/sql";
import type { Actor } from "@/lib/harness";

/**
 * The database reads behind the Memory page's "where it came from" lines. Each one is scoped
 * to the actor: their own chats and turns, their workspace's refinements and members.
 */

/** Titles of the actor's own chats among `chatIds` (batched; others' chats are absent). */
export { ownChatTitles } from "@/lib/chat/queries";

/**
 * The newest `limit` local memory entries of the actor's own chats (chat id and entry id),
 * newest first: one statement joined on the chat's owner, so its bound parameters are fixed in
 * number however many chats the person has.
 */
export function ownLocalMemoryKeys(
  actor: Actor,
  limit: number,
): Promise<Array<{ chatId: string; id: string }>> {
  return getSql().all<{ chatId: string; id: string }>(
    `SELECT e."chatId", e."id" FROM "HarnessEntry" AS e
     JOIN "Chat" AS c ON c."id" = e."chatId" AND c."workspaceId" = e."workspaceId"
     WHERE e."workspaceId" = ? AND e."kind" = 'memory' AND e."scope" = 'local' AND c."userId" = ?
     ORDER BY e."updatedAt" DESC, e."entryKey" ASC LIMIT ?`,
    [actor.workspaceId, actor.userId, limit],
  );
}

/** A refinement as a provenance line names it. */
export interface RefinementRef {
  id: string;
  summary: string;
  trigger: string;
  chatId: string | null;
  harnessVersionAfter: number;
}

/**
 * The refinements of the actor's workspace that produced the given harness versions (a
 * refinement's batch of edits is one harness version, `harnessVersionAfter`), keyed by it.
 */
export async function refinementsByHarnessVersion(
  actor: Actor,
  versions: readonly number[],
): Promise<Map<number, RefinementRef>> {
  if (versions.length === 0) return new Map();
  const wanted = [...new Set(versions)];
  const rows = await getSql().all<{
    id: string;
    summary: string;
    trigger: string;
    chatId: string | null;
    harnessVersionAfter: number | null;
  }>(
    `SELECT "id", "summary", "trigger", "chatId", "harnessVersionAfter" FROM "Refinement"
     WHERE "workspaceId" = ? AND "harnessVersionAfter" IN (${placeholders(wanted.length)})
     ORDER BY "createdAt" ASC`,
    [actor.workspaceId, ...wanted],
  );
  const byVersion = new Map<number, RefinementRef>();
  for (const row of rows) {
    if (row.harnessVersionAfter === null) continue;
    byVersion.set(row.harnessVersionAfter, {
      ...row,
      harnessVersionAfter: row.harnessVersionAfter,
    });
  }
  return byVersion;
}

/** A turn as a provenance line names it. */
export interface TurnRef {
  id: string;
  chatId: string;
  chatTitle: string;
}

/**
 * The actor's own turn, in their workspace, that was running at `at`: the newest one started
 * at or before it (a turn's changes are written while it runs or right as it ends). `null`
 * when there is none, e.g. the chat was deleted since.
 */
export async function ownTurnAt(actor: Actor, at: Date): Promise<TurnRef | null> {
  // Model turns; a `/refine` command turn builds no instructions and writes nothing itself.
  const row = await getSql().get<{ id: string; chatId: string; chatTitle: string }>(
    `SELECT t."id", t."chatId", c."title" AS "chatTitle"
     FROM "Turn" t JOIN "Chat" c ON c."id" = t."chatId"
     WHERE t."userId" = ? AND t."startedAt" <= ? AND t."instructions" IS NOT NULL
       AND c."workspaceId" = ? AND c."userId" = ?
     ORDER BY t."startedAt" DESC LIMIT 1`,
    [actor.userId, at, actor.workspaceId, actor.userId],
  );
  return row ? { id: row.id, chatId: row.chatId, chatTitle: row.chatTitle } : null;
}

/** Display names of members of the actor's workspace among `userIds`. */
export async function memberNames(
  actor: Actor,
  userIds: readonly string[],
): Promise<Map<string, string>> {
  if (userIds.length === 0) return new Map();
  const wanted = [...new Set(userIds)];
  const rows = await getSql().all<{ userId: string; name: string }>(
    `SELECT m."userId", u."name" FROM "Membership" m JOIN "User" u ON u."id" = m."userId"
     WHERE m."workspaceId" = ? AND m."userId" IN (${placeholders(wanted.length)})`,
    [actor.workspaceId, ...wanted],
  );
  return new Map(rows.map((row) => [row.userId, row.name]));
}
