"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { action, fail } from "@/lib/actions";
import {
  createChat,
  decodeChatCursor,
  deleteOwnChat,
  getOwnChat,
  listChats,
  MAX_CHAT_PAGE_SIZE,
  renameOwnChat,
} from "@/lib/chat/queries";
import { harnessFor } from "@/lib/harness-service";

const titleSchema = z.string().trim().min(1, "Give the chat a title").max(120);
const chatIdSchema = z.string().min(1).max(100);

function notYours(): never {
  fail("not_found:chat", "That chat does not exist or is not yours.");
}

/**
 * A page of the sidebar's chat list (newest first): the next one after `cursor`, or the first
 * page of the chats whose title contains `query`. `limit` lets the sidebar reload every chat it
 * shows at once after a change (at most 200). Reads only; nothing is revalidated.
 */
export const listChatsAction = action(
  {
    input: z.object({
      cursor: z
        .string()
        .max(300)
        .refine((cursor) => decodeChatCursor(cursor) !== null, "Not a chat list cursor")
        .optional(),
      query: z.string().trim().max(120).optional(),
      limit: z.number().int().min(1).max(MAX_CHAT_PAGE_SIZE).optional(),
    }),
  },
  async ({ input, actor }) => {
    const page = await listChats(actor, input);
    return {
      items: page.items.map((chat) => ({ ...chat, updatedAt: chat.updatedAt.toISOString() })),
      nextCursor: page.nextCursor,
    };
  },
);

export const createChatAction = action(
  { input: z.object({ title: titleSchema.optional() }) },
  async ({ input, actor }) => {
    const chat = await createChat(actor, input.title ?? "New chat");
    revalidatePath("/chat", "layout");
    revalidatePath("/harness");
    return { chatId: chat.id };
  },
);

export const renameChatAction = action(
  { input: z.object({ chatId: chatIdSchema, title: titleSchema }) },
  async ({ input, actor }) => {
    if (!(await renameOwnChat(actor, input.chatId, input.title))) notYours();
    revalidatePath("/chat", "layout");
    return { chatId: input.chatId };
  },
);

/**
 * Deletes one of the actor's chats: its messages and turns, and its local harness entries (each
 * deletion is recorded as a revision, so the entries' history stays restorable). Memory files and
 * global entries the chat wrote stay: they belong to the person or the workspace, not the chat.
 */
export const deleteChatAction = action(
  { input: z.object({ chatId: chatIdSchema }) },
  async ({ input, actor }) => {
    const chat = await getOwnChat(actor, input.chatId);
    if (!chat) notYours();
    const harness = await harnessFor(actor, chat.id);
    for (;;) {
      const page = await harness.listEntries({ scope: "local", limit: 500 });
      if (page.items.length === 0) break;
      await harness.applyEdits({
        edits: page.items.map((entry) => ({
          op: "delete" as const,
          kind: entry.kind,
          id: entry.id,
          expectedVersion: entry.version,
        })),
        reason: `Chat “${chat.title}” deleted`,
      });
    }
    await deleteOwnChat(actor, chat.id);
    revalidatePath("/chat", "layout");
    revalidatePath("/harness");
    return { chatId: chat.id };
  },
);
