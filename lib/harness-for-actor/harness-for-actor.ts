import "server-only";
import { getOwnChat } from "@/lib/chat/queries";
import { getSql } from "@/lib/sql-storage/sql";
import {
  createHarness,
  HarnessForbiddenError,
  HarnessNotFoundError,
  isRole,
  type Actor,
  type Harness,
} from "@/lib/harness";
import { harnessStorageFor } from "@/lib/sql-storage";

// The chat queries live in lib/chat/queries.ts; re-exported for the harness pages.

/**
 * The harness as `actor` sees it from `chatId` (null: no chat — global entries only). A chat
 * that is not the actor's own is refused: local entries belong to their chat's owner.
 */
export async function harnessFor(actor: Actor, chatId: string | null): Promise<Harness> {
  if (chatId !== null && !(await getOwnChat(actor, chatId))) {
    throw new HarnessNotFoundError({
      surface: "chat",
      message: "That chat does not exist or is not yours.",
    });
  }
  return createHarness({ storage: harnessStorageFor(), actor, chatId });
}

/**
 * The harness a chat turn's tools write through. A turn can run for minutes; a role changed
 * meanwhile takes effect at the next write, not the next turn: every write reads the membership
 * again (the store's `actorForWrite`, which every write passes before it can plan a change) and
 * is planned for the role read now — a demoted editor's global write is refused like any
 * member's, local writes still work, and a removed member writes nothing. Reads and the snapshot
 * are unaffected (the storage and its snapshot cache are shared either way).
 */
export async function harnessForTurn(
  actor: Actor,
  chatId: string,
  options: {
    /** The caller has just checked that the chat is the actor's own (the chat route has). */
    chatChecked?: boolean;
  } = {},
): Promise<Harness> {
  if (!options.chatChecked && !(await getOwnChat(actor, chatId))) {
    throw new HarnessNotFoundError({
      surface: "chat",
      message: "That chat does not exist or is not yours.",
    });
  }
  return createHarness({
    storage: harnessStorageFor(),
    actor,
    chatId,
    actorForWrite: () => actorAsOfNow(actor),
  });
}

/** `actor` with the role their membership has now; refused when they are no longer a member. */
async function actorAsOfNow(actor: Actor): Promise<Actor> {
  const membership = await getSql().get<{ role: string }>(
    `SELECT "role" FROM "Membership" WHERE "userId" = ? AND "workspaceId" = ?`,
    [actor.userId, actor.workspaceId],
  );
  if (!membership || !isRole(membership.role)) {
    throw new HarnessForbiddenError({
      message: "You are no longer a member of this workspace; nothing was changed.",
    });
  }
  return membership.role === actor.role ? actor : { ...actor, role: membership.role };
}
