"use server";

import { revalidatePath } from "next/cache";
import { forbidden } from "next/navigation";
import { z } from "zod";
import { toAppError } from "@/lib/app-error";
import { requireActor } from "@/lib/auth";
import { getPersistentDirs, type RetryResult } from "@/lib/persistent-dirs";

/** What the editor's save came to; `conflict` and `failed` name the kept commit. */
export type SaveFileActionResult =
  | { ok: true; cursor: string | number; changed: boolean }
  | {
      ok: false;
      kind: "conflict" | "failed" | "invalid";
      error: string;
      commitId?: string | null;
    };

/** What a retry or a resolution came to. */
export type CommitActionResult =
  | { ok: true; message: string }
  | { ok: false; kind: "conflict" | "failed" | "invalid"; error: string };

// Every action: parse input, then the Actor from the session, then the permission check
// (403 when the role does not allow it), then ownership (the service keys every dir and
// record by the Actor), then the change.

const MAX_TEXT = 2 * 1024 * 1024;
const cursorSchema = z.union([z.number().int().min(0), z.string().min(1).max(200)]);

const saveSchema = z.object({
  harnessDir: z.string().min(1).max(200),
  path: z.string().min(1).max(1024),
  content: z.string().max(MAX_TEXT).nullable(),
  baseCursor: cursorSchema,
  baseContent: z.string().max(MAX_TEXT).nullable(),
});

function revalidateFiles() {
  revalidatePath("/files");
  revalidatePath("/files/failures");
}

/** Runs `work`; a forbidden core error answers 403, anything else a safe message. */
async function guarded<T>(
  work: () => Promise<T>,
): Promise<T | { ok: false; kind: "invalid"; error: string }> {
  let appError;
  try {
    return await work();
  } catch (error) {
    appError = toAppError(error);
  }
  if (appError.status === 403) forbidden();
  return { ok: false, kind: "invalid", error: appError.message };
}

export async function saveFileAction(input: unknown): Promise<SaveFileActionResult> {
  const parsed = saveSchema.safeParse(input);
  const actor = await requireActor();
  if (!parsed.success) return { ok: false, kind: "invalid", error: "Invalid file edit." };
  const dirs = getPersistentDirs();
  return guarded(async (): Promise<SaveFileActionResult> => {
    dirs.assertCanWrite({ actor, harnessDir: parsed.data.harnessDir });
    const result = await dirs.saveFile({ actor, ...parsed.data });
    revalidateFiles();
    if (result.status === "saved")
      return { ok: true, cursor: result.cursor, changed: result.changed };
    return { ok: false, kind: result.status, error: result.message, commitId: result.commitId };
  });
}

function describeRetry(result: RetryResult): CommitActionResult {
  if (result.status === "succeeded") {
    return {
      ok: true,
      message: `Committed${result.merged ? " (merged with newer changes)" : ""} as version ${String(result.cursor)}.`,
    };
  }
  return { ok: false, kind: result.status, error: result.message };
}

export async function retryCommitAction(input: unknown): Promise<CommitActionResult> {
  const parsed = z.object({ id: z.string().min(1).max(200) }).safeParse(input);
  const actor = await requireActor();
  if (!parsed.success) return { ok: false, kind: "invalid", error: "Invalid commit." };
  return guarded(async () => {
    // The service checks the record's owner against the Actor: own memory, or the workspace's
    // company knowledge for editors and admins.
    const result = await getPersistentDirs().retryFailure({ actor, id: parsed.data.id });
    revalidateFiles();
    return describeRetry(result);
  });
}

const resolutionSchema = z.union([
  z.enum(["ours", "theirs"]),
  z.record(z.string().min(1).max(1024), z.string().max(MAX_TEXT).nullable()),
]);

export async function resolveConflictAction(input: unknown): Promise<CommitActionResult> {
  const parsed = z
    .object({ id: z.string().min(1).max(200), resolution: resolutionSchema })
    .safeParse(input);
  const actor = await requireActor();
  if (!parsed.success) return { ok: false, kind: "invalid", error: "Invalid resolution." };
  return guarded(async () => {
    const result = await getPersistentDirs().resolveFailure({
      actor,
      id: parsed.data.id,
      resolution: parsed.data.resolution,
    });
    revalidateFiles();
    return describeRetry(result);
  });
}

/** Closes an interrupted turn's record without applying its changes. */
export async function discardCommitAction(input: unknown): Promise<CommitActionResult> {
  const parsed = z.object({ id: z.string().min(1).max(200) }).safeParse(input);
  const actor = await requireActor();
  if (!parsed.success) return { ok: false, kind: "invalid", error: "Invalid commit." };
  return guarded(async (): Promise<CommitActionResult> => {
    // Ownership and role are checked by the service against the record's owner.
    await getPersistentDirs().discardFailure({ actor, id: parsed.data.id });
    revalidateFiles();
    return {
      ok: true,
      message: "Discarded. Nothing was applied; the record stays under Resolved.",
    };
  });
}

/** Puts the files an earlier commit changed back to how it left them, as a new commit. */
export async function restoreCommitAction(input: unknown): Promise<CommitActionResult> {
  const parsed = z
    .object({ harnessDir: z.string().min(1).max(200), id: z.string().min(1).max(200) })
    .safeParse(input);
  const actor = await requireActor();
  if (!parsed.success) return { ok: false, kind: "invalid", error: "Invalid commit." };
  return guarded(async (): Promise<CommitActionResult> => {
    // Write permission and ownership: the service checks the dir against the Actor (403).
    const result = await getPersistentDirs().restoreCommit({ actor, ...parsed.data });
    revalidateFiles();
    if (result.status === "refused") return { ok: false, kind: "invalid", error: result.message };
    return {
      ok: true,
      message: result.changed
        ? `Restored as version ${String(result.cursor)}.`
        : "Nothing to restore: the files already read like that.",
    };
  });
}
