import "server-only";
import { getDb } from "@/lib/db";
import { getSql } from "@/lib/sql-storage/sql";
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
  const rows = await getDb().refinement.findMany({
    where: { workspaceId: actor.workspaceId, harnessVersionAfter: { in: [...new Set(versions)] } },
    select: { id: true, summary: true, trigger: true, chatId: true, harnessVersionAfter: true },
    orderBy: { createdAt: "asc" },
  });
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
  const row = await getDb().turn.findFirst({
    where: {
      userId: actor.userId,
      startedAt: { lte: at },
      // Model turns; a `/refine` command turn builds no instructions and writes nothing itself.
      instructions: { not: null },
      chat: { workspaceId: actor.workspaceId, userId: actor.userId },
    },
    orderBy: { startedAt: "desc" },
    select: { id: true, chatId: true, chat: { select: { title: true } } },
  });
  return row ? { id: row.id, chatId: row.chatId, chatTitle: row.chat.title } : null;
}

/** Display names of members of the actor's workspace among `userIds`. */
export async function memberNames(
  actor: Actor,
  userIds: readonly string[],
): Promise<Map<string, string>> {
  if (userIds.length === 0) return new Map();
  const rows = await getDb().membership.findMany({
    where: { workspaceId: actor.workspaceId, userId: { in: [...new Set(userIds)] } },
    select: { userId: true, user: { select: { name: true } } },
  });
  return new Map(rows.map((row) => [row.userId, row.user.name]));
}
