import "server-only";
import { getOwnChat } from "@/lib/chat/queries";
import { getDb } from "@/lib/db";
import {
  createHarness,
  HarnessForbiddenError,
  HarnessNotFoundError,
  isRole,
  type Actor,
  type Harness,
} from "@/lib/harness";
import { harnessStorageFor } from "@/lib/storage";

// The chat queries live in lib/chat/queries.ts; re-exported for the harness pages.
export { getOwnChat, listChats } from "@/lib/chat/queries";

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

const WRITE_METHOD = /^(?:create|update|delete|setPinned|pin|unpin|applyEdits|restore)/;

/**
 * The harness a chat turn's tools write through. A turn can run for minutes; a role changed
 * meanwhile takes effect at the next write, not the next turn: every write reads the membership
 * again, goes through a harness built for the role read now (a demoted editor's global write is
 * refused like any member's; local writes still work), and a removed member writes nothing.
 * Reads and the snapshot go through the turn's harness (the storage and its snapshot cache are
 * shared either way).
 */
export async function harnessForTurn(
  actor: Actor,
  chatId: string,
  options: {
    /** The caller has just checked that the chat is the actor's own (the chat route has). */
    chatChecked?: boolean;
  } = {},
): Promise<Harness> {
  const harness = options.chatChecked
    ? createHarness({ storage: harnessStorageFor(), actor, chatId })
    : await harnessFor(actor, chatId);
  return new Proxy(harness, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof property !== "string" || typeof value !== "function") return value;
      if (!WRITE_METHOD.test(property)) return value.bind(target);
      return async (...args: unknown[]) => {
        const membership = await getDb().membership.findUnique({
          where: { userId_workspaceId: { userId: actor.userId, workspaceId: actor.workspaceId } },
          select: { role: true },
        });
        if (!membership || !isRole(membership.role)) {
          throw new HarnessForbiddenError({
            message: "You are no longer a member of this workspace; nothing was changed.",
          });
        }
        const current =
          membership.role === actor.role
            ? target
            : createHarness({
                storage: harnessStorageFor(),
                actor: { ...actor, role: membership.role },
                chatId,
              });
        const method = Reflect.get(current, property) as (...input: unknown[]) => unknown;
        return method.apply(current, args);
      };
    },
  });
}
