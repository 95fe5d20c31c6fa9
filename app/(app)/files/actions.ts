"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { action, fail } from "@/lib/actions";
import { getPersistentDirs, type RetryResult } from "@/lib/workspace-dirs";
import { getUploads } from "@/lib/uploads";

// Every action: the shared wrapper (parse, Actor, error mapping), then the permission check
// (403 when the role does not allow it), then ownership (the service keys every dir and record
// by the Actor), then the change.

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

/**
 * A save or retry that did not go through but kept the change as a commit record (listed under
 * Files → Failures): `commit:conflict` when someone changed the same file meanwhile,
 * `commit:failed` when the commit itself failed.
 */
function failCommit(status: "conflict" | "failed", message: string): never {
  fail(`commit:${status}`, message);
}

/** Saves (or, with `content: null`, deletes) one file of a dir the actor may write. */
export const saveFileAction = action({ input: saveSchema }, async ({ input, actor }) => {
  const dirs = getPersistentDirs();
  dirs.assertCanWrite({ actor, harnessDir: input.harnessDir });
  const result = await dirs.saveFile({ actor, ...input });
  revalidateFiles();
  if (result.status !== "saved") failCommit(result.status, result.message);
  return { cursor: result.cursor, changed: result.changed };
});

/** What a successful retry or resolution came to, in words. */
function describeRetry(result: RetryResult): string {
  if (result.status !== "succeeded") failCommit(result.status, result.message);
  return `Committed${result.merged ? " (merged with newer changes)" : ""} as version ${String(result.cursor)}.`;
}

const idSchema = z.object({ id: z.string().min(1).max(200) });

export const retryCommitAction = action({ input: idSchema }, async ({ input, actor }) => {
  // The service checks the record's owner against the Actor: own memory, or the workspace's
  // company knowledge for editors and admins.
  const result = await getPersistentDirs().retryFailure({ actor, id: input.id });
  revalidateFiles();
  return describeRetry(result);
});

const resolutionSchema = z.union([
  z.enum(["ours", "theirs"]),
  z.record(z.string().min(1).max(1024), z.string().max(MAX_TEXT).nullable()),
]);

export const resolveConflictAction = action(
  { input: z.object({ id: z.string().min(1).max(200), resolution: resolutionSchema }) },
  async ({ input, actor }) => {
    const result = await getPersistentDirs().resolveFailure({
      actor,
      id: input.id,
      resolution: input.resolution,
    });
    revalidateFiles();
    // Keeping the saved version applies nothing of the failed save: say that, not "Committed".
    if (input.resolution === "theirs" && result.status === "succeeded")
      return "Kept the saved version. The failed save's change was not applied.";
    return describeRetry(result);
  },
);

/** Closes an interrupted turn's record without applying its changes. */
export const discardCommitAction = action({ input: idSchema }, async ({ input, actor }) => {
  // Ownership and role are checked by the service against the record's owner.
  await getPersistentDirs().discardFailure({ actor, id: input.id });
  revalidateFiles();
  return "Discarded. Nothing was applied; the record stays under Resolved.";
});

const restoreSchema = z.object({
  harnessDir: z.string().min(1).max(200),
  id: z.string().min(1).max(200),
});

/** Puts the files an earlier commit changed back to how it left them, as a new commit. */
export const restoreCommitAction = action({ input: restoreSchema }, async ({ input, actor }) => {
  // Write permission and ownership: the service checks the dir against the Actor (403).
  const result = await getPersistentDirs().restoreCommit({ actor, ...input });
  revalidateFiles();
  if (result.status === "refused") fail("commit:refused", result.message);
  return result.changed
    ? `Restored as version ${String(result.cursor)}.`
    : "Nothing to restore: the files already read like that.";
});

const statusSchema = z.object({
  harnessDir: z.string().min(1).max(200),
  paths: z.array(z.string().min(1).max(1024)).max(1000),
});

/** Where uploaded documents' conversions stand (the upload panel polls it). */
export const conversionStatusAction = action({ input: statusSchema }, async ({ input, actor }) => {
  // Reading a dir the actor sees; the service keys every read by the Actor.
  const statuses = await getUploads().conversionStatus({ actor, ...input });
  if (statuses.every((status) => status.status !== "converting")) revalidateFiles();
  return statuses;
});

const browseSchema = z.object({
  harnessDir: z.string().min(1).max(200),
  folder: z.string().max(1024).optional(),
  filter: z.string().max(400).optional(),
  after: z.string().min(1).max(1024).nullable().optional(),
  limit: z.number().int().min(1).max(1000).optional(),
});

/** One page of a dir's files: a folder opened in the tree, or the next page ("Show more"). */
export const browseFilesAction = action({ input: browseSchema }, async ({ input, actor }) => {
  // Reading a dir the actor sees: the service keys the dir by the Actor (their own memory, their
  // workspace's knowledge) and throws not_found for a dir that is not one of the app's.
  return getPersistentDirs().browseFiles({ actor, ...input });
});
