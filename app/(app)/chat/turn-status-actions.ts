"use server";

import { z } from "zod";
import { requireActor } from "@/lib/auth";
import { getPersistentDirs, type TurnSaveStatus } from "@/lib/persistent-dirs";

/**
 * The live save status of one of the caller's turns, for the chat's status line while its
 * changes are retried: parse, then the Actor from the session; the service checks the turn is in
 * one of the caller's chats (someone else's turn reads as missing).
 */
export async function turnSaveStatusAction(
  input: unknown,
): Promise<{ ok: true; status: TurnSaveStatus } | { ok: false }> {
  const parsed = z
    .object({ turnId: z.string().min(1).max(200), expected: z.number().int().min(0).max(20) })
    .safeParse(input);
  const actor = await requireActor();
  if (!parsed.success) return { ok: false };
  try {
    const status = await getPersistentDirs().turnSaveStatus({
      actor,
      turnId: parsed.data.turnId,
      spooled: parsed.data.expected,
    });
    return { ok: true, status };
  } catch {
    return { ok: false };
  }
}
