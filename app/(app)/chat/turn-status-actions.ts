"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { action } from "@/lib/actions";
import { getPersistentDirs } from "@/lib/workspace-dirs";

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

/**
 * The caller's turn's changes held because they copy text of the caller's private memory into
 * company knowledge, with each file's text before and after (only the caller sees them).
 */
export const turnPendingChangesAction = action(
  { input: z.object({ turnId: turnIdSchema }) },
  async ({ input, actor }) =>
    getPersistentDirs().turnPendingChanges({ actor, turnId: input.turnId }),
);

const pendingChangeSchema = z.object({ turnId: turnIdSchema, id: z.string().min(1).max(400) });

/**
 * Confirm on the chat's pending change: commits it as a retry does, with the role read again now
 * (company knowledge needs an editor or admin; a member's confirm is refused with 403).
 */
export const confirmPendingChangeAction = action(
  { input: pendingChangeSchema },
  async ({ input, actor }) => {
    const result = await getPersistentDirs().confirmPendingChange({ actor, ...input });
    revalidatePath("/files");
    revalidatePath("/files/failures");
    return result;
  },
);

/** Discard on the chat's pending change: nothing of it is written. */
export const discardPendingChangeAction = action(
  { input: pendingChangeSchema },
  async ({ input, actor }) => {
    const result = await getPersistentDirs().discardPendingChange({ actor, ...input });
    revalidatePath("/files/failures");
    return result;
  },
);
