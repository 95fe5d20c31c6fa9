"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { requireActor } from "@/lib/auth";
import { getDb } from "@/lib/db";

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
  revalidatePath("/chat");
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
  revalidatePath("/chat");
  return { ok: true, chatId: parsed.data.chatId };
}
