import "server-only";
// The refinement queries of the app's pages (the timeline, who may see one, what rolled one
// back); the refinement store itself is the core's port, reached through `refinementStore()`.
import {
  encodeRefinementCursor,
  type Actor,
  type Page,
  type Refinement,
  type RefinementFilter,
  type RefinementStatus,
  type RefinementTrigger,
} from "@/lib/harness";
import { getOwnChat } from "@/lib/chat/queries";
import { getDb } from "@/lib/db";
import { refinementStore } from "./index";

/** The timeline's filters, already parsed. `chatId` must be one of `ownChatIds`. */
export interface TimelineFilters {
  scope?: "global" | "local";
  trigger?: RefinementTrigger;
  status?: RefinementStatus;
  chatId?: string;
  actorId?: string;
  cursor?: string;
}

function newestFirst(a: Refinement, b: Refinement): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/**
 * The refinements `actor` may see, newest first: the workspace's global ones plus the local
 * ones of the actor's own chats. The store has no "any of these chats" filter, so this runs
 * one query for the global scope and one per own chat, with the same cursor (every query
 * shares the newest-first order the cursor encodes), and merges them: a page is exactly the
 * first `limit` rows of the union after the cursor. Imported history is left out unless the
 * filters ask for it (status `imported` or trigger `import`).
 */
export async function listVisibleRefinements(options: {
  actor: Actor;
  ownChatIds: readonly string[];
  filters: TimelineFilters;
  limit: number;
}): Promise<Page<Refinement>> {
  const { actor, filters, limit } = options;
  const base: RefinementFilter = {
    trigger: filters.trigger,
    status: filters.status,
    actorId: filters.actorId,
    ...(filters.trigger === "import" ? { includeImported: true } : {}),
  };
  const sources: RefinementFilter[] = [];
  if (filters.chatId !== undefined) {
    // Every refinement recorded in one's own chat is visible: its local ones and the global
    // ones started there.
    if (options.ownChatIds.includes(filters.chatId)) {
      sources.push({ ...base, chatId: filters.chatId, scope: filters.scope });
    }
  } else {
    if (filters.scope !== "local") sources.push({ ...base, scope: "global" });
    if (filters.scope !== "global") {
      for (const chatId of options.ownChatIds) sources.push({ ...base, scope: "local", chatId });
    }
  }
  const store = refinementStore();
  const pages = await Promise.all(
    sources.map((filter) =>
      store.listRefinements({
        workspaceId: actor.workspaceId,
        filter,
        cursor: filters.cursor ?? null,
        limit,
      }),
    ),
  );
  const merged = pages.flatMap((page) => page.items).sort(newestFirst);
  const items = merged.slice(0, limit);
  const more = merged.length > limit || pages.some((page) => page.nextCursor !== null);
  const last = items.at(-1);
  return { items, nextCursor: more && last ? encodeRefinementCursor(last) : null };
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
  const rows = await getDb().refinement.findMany({
    where: {
      workspaceId: options.actor.workspaceId,
      rollbackOf: { in: [...options.ids] },
      status: { in: ["applied", "partial"] },
    },
    orderBy: { createdAt: "asc" },
    select: { id: true, rollbackOf: true, createdAt: true },
  });
  return new Map(
    rows.map((row) => [row.rollbackOf!, { id: row.id, createdAt: row.createdAt.toISOString() }]),
  );
}
