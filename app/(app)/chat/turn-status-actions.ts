"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { action } from "@/lib/actions";
import { getPersistentDirs } from "@/lib/persistent-dirs";

// Both actions: the shared wrapper (parse, Actor from the session, error mapping), then the
// service checks the turn is in one of the caller's chats (someone else's turn reads as missing)
// and, for a retry, the failures page's role rules on every record before applying any.

const turnIdSchema = z.string().min(1).max(200);

/** The live save status of one of the caller's turns, for the chat's status line. */
export const turnSaveStatusAction = action(
  {
    input: z.object({
      turnId: turnIdSchema,
      expected: z.number().int().min(0).max(20),
    }),
  },
  async ({ input, actor }) =>
    getPersistentDirs().turnSaveStatus({ actor, turnId: input.turnId, spooled: input.expected }),
);

/**
 * The chat's inline Retry: applies again the caller's turn's changes that wait for a person, as
 * Retry on the Commit failures page does. A clash is a result, not an error: the record stays
 * open there with both versions.
 */
export const retryTurnSaveAction = action(
  { input: z.object({ turnId: turnIdSchema }) },
  async ({ input, actor }) => {
    const result = await getPersistentDirs().retryTurnSave({ actor, turnId: input.turnId });
    revalidatePath("/files");
    revalidatePath("/files/failures");
    return result;
  },
);
