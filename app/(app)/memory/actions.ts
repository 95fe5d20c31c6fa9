"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { deleteEntryAction, updateEntryAction } from "@/app/(app)/harness/actions";
import { saveFileAction } from "@/app/(app)/files/actions";
import { action, fail, type ActionResult } from "@/lib/actions";
import { USER_DIR } from "@/lib/workspace-dirs";
import { getUploads } from "@/lib/uploads";

// The Memory page's actions are the Harness and Files actions narrowed to memory: a memory
// entry (kind fixed to `memory`) and a file of the person's own memory dir (dir fixed to
// /persistent/user). Those actions do the checks — the Actor from the session, 403 for a
// global write below editor (also when called directly), ownership of the chat, versions, the
// file's compare-and-merge — so the rules live in one place.

const locationSchema = z.discriminatedUnion("scope", [
  z.object({ scope: z.literal("global") }),
  z.object({ scope: z.literal("local"), chatId: z.string().min(1).max(100) }),
]);

const entrySchema = z.object({
  id: z.string().min(1).max(80),
  location: locationSchema,
  expectedVersion: z.number().int().positive(),
});

const MAX_TEXT = 2 * 1024 * 1024;
const fileSchema = z.object({
  path: z.string().min(1).max(1024),
  baseCursor: z.union([z.number().int().min(0), z.string().min(1).max(200)]),
  baseContent: z.string().max(MAX_TEXT).nullable(),
});

/** The inner action's failure passed on as it is (a 403 was already thrown); nothing on success. */
function passOn(result: ActionResult<unknown>): void {
  if (!result.ok) fail(result.error.code, result.error.message);
  revalidatePath("/memory");
}

export const updateMemoryEntryAction = action(
  {
    input: entrySchema.extend({
      title: z.string().trim().min(1).max(200),
      content: z
        .string()
        .min(1)
        .max(64 * 1024),
    }),
  },
  async ({ input }) =>
    passOn(
      await updateEntryAction({ ...input, kind: "memory", reason: "Edited on the Memory page" }),
    ),
);

export const deleteMemoryEntryAction = action({ input: entrySchema }, async ({ input }) =>
  passOn(await deleteEntryAction({ ...input, kind: "memory" })),
);

export const saveMemoryFileAction = action(
  { input: fileSchema.extend({ content: z.string().max(MAX_TEXT) }) },
  async ({ input }) => passOn(await saveFileAction({ ...input, harnessDir: USER_DIR })),
);

export const deleteMemoryFileAction = action({ input: fileSchema }, async ({ input }) =>
  passOn(await saveFileAction({ ...input, content: null, harnessDir: USER_DIR })),
);

const acceptNoteSchema = z.object({
  text: z.string().trim().min(1).max(1000),
  source: z.string().trim().min(1).max(300),
});

/** Writes one memory-import proposal the person accepted into their own memory (decision 0051). */
export const acceptImportedNoteAction = action(
  { input: acceptNoteSchema },
  async ({ input, actor }) => {
    // Only the actor's own memory: the dir key comes from the session's Actor, never the input.
    const result = await getUploads().acceptImportedNote({ actor, ...input });
    revalidatePath("/memory");
    return result;
  },
);
