"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import {
  deleteEntryAction,
  updateEntryAction,
  type HarnessActionResult,
} from "@/app/(app)/harness/actions";
import { saveFileAction, type SaveFileActionResult } from "@/app/(app)/files/actions";
import { requireActor } from "@/lib/auth";
import { USER_DIR } from "@/lib/persistent-dirs";

// The Memory page's actions are the Harness and Files actions narrowed to memory: a memory
// entry (kind fixed to `memory`) and a file of the person's own memory dir (dir fixed to
// /persistent/user). Those actions do the checks — the Actor from the session, 403 for a
// global write below editor, ownership of the chat, versions — so the rules live in one place.

const locationSchema = z.discriminatedUnion("scope", [
  z.object({ scope: z.literal("global") }),
  z.object({ scope: z.literal("local"), chatId: z.string().min(1).max(100) }),
]);

const entrySchema = z.object({
  id: z.string().min(1).max(80),
  location: locationSchema,
  expectedVersion: z.number().int().positive(),
});

const updateSchema = entrySchema.extend({
  title: z.string().max(200),
  content: z.string().max(64 * 1024),
});

const invalid = { ok: false, code: "validation:input", error: "Invalid memory." } as const;

function revalidateMemory() {
  revalidatePath("/memory");
}

export async function updateMemoryEntryAction(input: unknown): Promise<HarnessActionResult> {
  const parsed = updateSchema.safeParse(input);
  await requireActor();
  if (!parsed.success) return invalid;
  const result = await updateEntryAction({
    ...parsed.data,
    kind: "memory",
    reason: "Edited on the Memory page",
  });
  revalidateMemory();
  return result;
}

export async function deleteMemoryEntryAction(input: unknown): Promise<HarnessActionResult> {
  const parsed = entrySchema.safeParse(input);
  await requireActor();
  if (!parsed.success) return invalid;
  const result = await deleteEntryAction({ ...parsed.data, kind: "memory" });
  revalidateMemory();
  return result;
}

const MAX_TEXT = 2 * 1024 * 1024;
const fileSchema = z.object({
  path: z.string().min(1).max(1024),
  baseCursor: z.union([z.number().int().min(0), z.string().min(1).max(200)]),
  baseContent: z.string().max(MAX_TEXT).nullable(),
});

export async function saveMemoryFileAction(input: unknown): Promise<SaveFileActionResult> {
  const parsed = fileSchema.extend({ content: z.string().max(MAX_TEXT) }).safeParse(input);
  await requireActor();
  if (!parsed.success) return { ok: false, kind: "invalid", error: "Invalid file edit." };
  const result = await saveFileAction({ ...parsed.data, harnessDir: USER_DIR });
  revalidateMemory();
  return result;
}

export async function deleteMemoryFileAction(input: unknown): Promise<SaveFileActionResult> {
  const parsed = fileSchema.safeParse(input);
  await requireActor();
  if (!parsed.success) return { ok: false, kind: "invalid", error: "Invalid file." };
  const result = await saveFileAction({ ...parsed.data, content: null, harnessDir: USER_DIR });
  revalidateMemory();
  return result;
}
