"use server";

import { forbidden } from "next/navigation";
import { z } from "zod";
import { requireActor } from "@/lib/auth";
import { canWriteGlobal } from "@/lib/harness";
import { getOwnChat } from "@/lib/harness-service";
import { requestRefinement } from "@/lib/refinements";

export type RefineActionResult = { ok: true } | { ok: false; error: string };

const inputSchema = z.object({
  chatId: z.string().min(1),
  global: z.boolean().optional(),
  instructions: z.string().max(2000).optional(),
});

/** The chat's Refine button: an explicit refinement of this chat (or, for editors and admins, global). */
export async function requestRefinementAction(
  input: z.infer<typeof inputSchema>,
): Promise<RefineActionResult> {
  const parsed = inputSchema.safeParse(input);
  const actor = await requireActor();
  if (!parsed.success) return { ok: false, error: "Invalid refinement request." };
  if (parsed.data.global && !canWriteGlobal(actor)) forbidden();
  if (!(await getOwnChat(actor, parsed.data.chatId)))
    return { ok: false, error: "That chat does not exist or is not yours." };
  try {
    const id = await requestRefinement({
      actor,
      chatId: parsed.data.chatId,
      request: {
        kind: "explicit",
        global: parsed.data.global ?? false,
        instructions: parsed.data.instructions || undefined,
      },
    });
    if (id === null) return { ok: false, error: "No refinement model is configured." };
  } catch {
    return { ok: false, error: "The refinement could not be queued; try again shortly." };
  }
  return { ok: true };
}
