"use server";

import { forbidden } from "next/navigation";
import { z } from "zod";
import { action, fail } from "@/lib/actions";
import { canWriteGlobal } from "@/lib/auth/permissions";
import { getOwnChat } from "@/lib/chat/queries";
import { TEMPORARY_REFINE_REFUSED } from "@/lib/chat/temporary-chats";
import { requestRefinement } from "@/lib/refinement-runs";
import { cairn } from "@/lib/cairn";

const inputSchema = z.object({
  chatId: z.string().min(1),
  global: z.boolean().optional(),
  instructions: z.string().max(2000).optional(),
});

/** The chat's Refine button: an explicit refinement of this chat (or, for editors and admins, global). */
export const requestRefinementAction = action({ input: inputSchema }, async ({ input, actor }) => {
  if (input.global && !canWriteGlobal(actor)) forbidden();
  const chat = await getOwnChat(actor, input.chatId);
  if (!chat) fail("not_found:chat", "That chat does not exist or is not yours.");
  if (chat.temporary) fail("forbidden:temporary_chat", TEMPORARY_REFINE_REFUSED);
  let id: string | null;
  try {
    id = await requestRefinement({
      actor,
      chatId: input.chatId,
      request: {
        kind: "explicit",
        global: input.global ?? false,
        instructions: input.instructions || undefined,
      },
    });
  } catch (error) {
    cairn().logger.error(
      { err: error, workspaceId: actor.workspaceId, chatId: input.chatId },
      "queueing a refinement failed",
    );
    fail("unavailable:refinement", "The refinement could not be queued; try again shortly.");
  }
  if (id === null) fail("unavailable:refinement_model", "No refinement model is configured.");
});
