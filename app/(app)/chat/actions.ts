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
import { keepShownPartOfStoppedReply } from "@/lib/chat/stopped-reply";
import { cairn } from "@/lib/cairn";
import { scheduleTemporaryChatDeletion } from "@/lib/chat/temporary-chats";
import { harnessFor } from "@/lib/harness-for-actor";
import { getJobQueue } from "@/lib/jobs";
import { getSql } from "@/lib/sql-storage/sql";

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

/**
 * Starts a chat. A temporary one (issue 26, decision 0055) is not listed, and its deletion 24
 * hours from now is stored in the job queue before the chat is handed out: if the job cannot be
 * stored, the chat is deleted again and the person is told, rather than kept for ever.
 */
export const createChatAction = action(
  { input: z.object({ title: titleSchema.optional(), temporary: z.boolean().optional() }) },
  async ({ input, actor }) => {
    const temporary = input.temporary ?? false;
    const chat = await createChat(actor, input.title ?? "New chat", { temporary });
    if (temporary) {
      try {
        await scheduleTemporaryChatDeletion({ queue: getJobQueue(), chatId: chat.id });
      } catch (error) {
        cairn().logger.error(
          { err: error, workspaceId: actor.workspaceId },
          "scheduling a temporary chat's deletion failed",
        );
        await deleteOwnChat(actor, chat.id);
        fail("unavailable:chat", "The temporary chat could not be started; try again shortly.");
      }
      // Nothing lists it: no list to refresh.
      return { chatId: chat.id };
    }
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

/**
 * After Stop: the stored answer to `userMessageId` is cut to what the browser had shown of it
 * (`shownTextLengths`, characters per text part), so a reload shows the same text, labelled
 * Stopped. Only a stopped turn's answer in the actor's own chat is touched, and only shortened.
 */
export const keepStoppedReplyAction = action(
  {
    input: z.object({
      chatId: chatIdSchema,
      userMessageId: z.string().min(1).max(200),
      shownTextLengths: z.array(z.number().int().min(0).max(10_000_000)).max(500),
    }),
  },
  async ({ input, actor }) => {
    const chat = await getOwnChat(actor, input.chatId);
    if (!chat) notYours();
    const outcome = await keepShownPartOfStoppedReply(getSql(), {
      chatId: chat.id,
      userMessageId: input.userMessageId,
      shownTextLengths: input.shownTextLengths,
    });
    return { outcome };
  },
);
