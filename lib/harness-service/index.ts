import "server-only";
import { getDb } from "@/lib/db";
import { createHarness, HarnessNotFoundError, type Actor, type Harness } from "@/lib/harness";
import { harnessStorageFor } from "@/lib/store-prisma";

/** The chats of the actor in their workspace, most recently updated first. */
export function listChats(actor: Actor) {
  return getDb().chat.findMany({
    where: { workspaceId: actor.workspaceId, userId: actor.userId },
    orderBy: { updatedAt: "desc" },
    select: { id: true, title: true, updatedAt: true },
  });
}

/** The chat if it belongs to the actor (same user, same workspace), else null. */
export function getOwnChat(actor: Actor, chatId: string) {
  return getDb().chat.findFirst({
    where: { id: chatId, workspaceId: actor.workspaceId, userId: actor.userId },
    select: { id: true, title: true },
  });
}

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
