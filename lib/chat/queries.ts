import { getDb } from "@/lib/db";
import type { Actor } from "@/lib/harness";
import { listMessageTimes, loadChatMessages } from "./messages";

/**
 * The chat queries of the app's pages and actions (the list of chats, one's own chat, creating,
 * renaming and deleting one, a chat page's messages). Every query takes the Actor where it
 * matters: a chat belongs to one person in one workspace, and someone else's reads as missing.
 * The chat turn's own reads and writes live with the turn (`messages.ts`, `turns.ts`).
 */

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

export function createChat(actor: Actor, title: string) {
  return getDb().chat.create({
    data: { workspaceId: actor.workspaceId, userId: actor.userId, title },
    select: { id: true },
  });
}

/** Renames one of the actor's chats; returns whether it was theirs. */
export async function renameOwnChat(actor: Actor, chatId: string, title: string): Promise<boolean> {
  const { count } = await getDb().chat.updateMany({
    where: { id: chatId, workspaceId: actor.workspaceId, userId: actor.userId },
    data: { title },
  });
  return count > 0;
}

/** Deletes one of the actor's chats with its messages and turns (the schema cascades). */
export async function deleteOwnChat(actor: Actor, chatId: string): Promise<void> {
  await getDb().chat.deleteMany({
    where: { id: chatId, workspaceId: actor.workspaceId, userId: actor.userId },
  });
}

/** A chat page's messages and when each was written (call after `getOwnChat`). */
export function loadChatPageMessages(chatId: string) {
  const db = getDb();
  return Promise.all([loadChatMessages(db, chatId), listMessageTimes(db, chatId)]);
}
