"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { action, fail } from "@/lib/actions";
import { createChat, deleteOwnChat, getOwnChat, renameOwnChat } from "@/lib/chat/queries";
import { harnessFor } from "@/lib/harness-service";

const titleSchema = z.string().trim().min(1, "Give the chat a title").max(120);
const chatIdSchema = z.string().min(1).max(100);

function notYours(): never {
  fail("not_found:chat", "That chat does not exist or is not yours.");
}

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
