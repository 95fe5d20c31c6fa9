import "server-only";
// The refinement queries of the app's pages (the timeline, who may see one, what rolled one
// back); the refinement store itself is the core's port, reached through `refinementStore()`.
import {
  type Actor,
  type Page,
  type Refinement,
  type RefinementFilter,
  type RefinementStatus,
  type RefinementTrigger,
} from "@/lib/harness";
import { getOwnChat } from "@/lib/chat/queries";
import { getSql, placeholders, toDate } from "@/lib/sql-storage/sql";
import { refinementStore } from "./refinement-jobs";

/** The timeline's filters, already parsed. */
export interface TimelineFilters {
  scope?: "global" | "local";
  trigger?: RefinementTrigger;
  status?: RefinementStatus;
  /** One of the actor's own chats (another chat lists nothing). */
  chatId?: string;
  actorId?: string;
  cursor?: string;
}

/**
 * The refinements `actor` may see, newest first: the workspace's global ones plus the local
 * ones of the actor's own chats, in one query whatever the number of chats (the chat's owner is
 * checked in the query). With `chatId`: every refinement recorded in that chat, when it is the
 * actor's own — its local ones and the global ones started there. Imported history is left out
 * unless the filters ask for it (status `imported` or trigger `import`).
 */
export async function listVisibleRefinements(options: {
  actor: Actor;
  filters: TimelineFilters;
  limit: number;
}): Promise<Page<Refinement>> {
  const { actor, filters, limit } = options;
  const filter: RefinementFilter = {
    trigger: filters.trigger,
    status: filters.status,
    actorId: filters.actorId,
    scope: filters.scope,
    ...(filters.trigger === "import" ? { includeImported: true } : {}),
  };
  const page = { workspaceId: actor.workspaceId, cursor: filters.cursor ?? null, limit };
  const store = refinementStore();
  if (filters.chatId !== undefined) {
    if (!(await getOwnChat(actor, filters.chatId))) return { items: [], nextCursor: null };
    return store.listRefinements({ ...page, filter: { ...filter, chatId: filters.chatId } });
  }
  return store.listRefinementsVisibleTo({ ...page, filter, userId: actor.userId });
}

/**
 * Whether `actor` may see `refinement`: global ones are the workspace's; local ones belong to
 * the owner of their chat.
 */
export async function canSeeRefinement(actor: Actor, refinement: Refinement): Promise<boolean> {
  if (refinement.workspaceId !== actor.workspaceId) return false;
  if (refinement.scope === "global") return true;
  return refinement.chatId !== null && (await getOwnChat(actor, refinement.chatId)) !== null;
}

/**
 * For each of `ids`, the refinement that rolled it back (the latest one that changed something),
 * so lists can say "Rolled back" instead of "Applied". Refinements nobody rolled back are absent.
 */
export async function findRollbacksOf(options: {
  actor: Actor;
  ids: readonly string[];
}): Promise<Map<string, { id: string; createdAt: string }>> {
  if (options.ids.length === 0) return new Map();
  const rows = await getSql().all<{ id: string; rollbackOf: string; createdAt: unknown }>(
    `SELECT "id", "rollbackOf", "createdAt" FROM "Refinement"
     WHERE "workspaceId" = ? AND "rollbackOf" IN (${placeholders(options.ids.length)})
       AND "status" IN ('applied', 'partial')
     ORDER BY "createdAt" ASC`,
    [options.actor.workspaceId, ...options.ids],
  );
  return new Map(
    rows.map((row) => [
      row.rollbackOf,
      { id: row.id, createdAt: toDate(row.createdAt).toISOString() },
    ]),
  );
}
