"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { requireActor } from "@/lib/auth";
import { getDb } from "@/lib/db";
import { getOwnChat, harnessFor } from "@/lib/harness-service";

export type ChatActionResult = { ok: true; chatId: string } | { ok: false; error: string };

const titleSchema = z.string().trim().min(1, "Give the chat a title").max(120);

export async function createChatAction(input: { title?: string }): Promise<ChatActionResult> {
  const parsed = z.object({ title: titleSchema.optional() }).safeParse(input);
  const actor = await requireActor();
  if (!parsed.success) return { ok: false, error: parsed.error.issues[0]!.message };
  const chat = await getDb().chat.create({
    data: {
      workspaceId: actor.workspaceId,
      userId: actor.userId,
      title: parsed.data.title ?? "New chat",
    },
  });
  revalidatePath("/chat", "layout");
  revalidatePath("/harness");
  return { ok: true, chatId: chat.id };
}

export async function renameChatAction(input: {
  chatId: string;
  title: string;
}): Promise<ChatActionResult> {
  const parsed = z.object({ chatId: z.string().min(1), title: titleSchema }).safeParse(input);
  const actor = await requireActor();
  if (!parsed.success) return { ok: false, error: parsed.error.issues[0]!.message };
  const { count } = await getDb().chat.updateMany({
    where: { id: parsed.data.chatId, workspaceId: actor.workspaceId, userId: actor.userId },
    data: { title: parsed.data.title },
  });
  if (count === 0) return { ok: false, error: "That chat does not exist or is not yours." };
  revalidatePath("/chat", "layout");
  return { ok: true, chatId: parsed.data.chatId };
}

/**
 * Deletes one of the actor's chats: its messages and turns, and its local harness entries (each
 * deletion is recorded as a revision, so the entries' history stays restorable). Memory files and
 * global entries the chat wrote stay: they belong to the person or the workspace, not the chat.
 */
export async function deleteChatAction(input: { chatId: string }): Promise<ChatActionResult> {
  const parsed = z.object({ chatId: z.string().min(1).max(100) }).safeParse(input);
  const actor = await requireActor();
  if (!parsed.success) return { ok: false, error: "Invalid chat." };
  const chat = await getOwnChat(actor, parsed.data.chatId);
  if (!chat) return { ok: false, error: "That chat does not exist or is not yours." };
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
  await getDb().chat.deleteMany({
    where: { id: chat.id, workspaceId: actor.workspaceId, userId: actor.userId },
  });
  revalidatePath("/chat", "layout");
  revalidatePath("/harness");
  return { ok: true, chatId: chat.id };
}
