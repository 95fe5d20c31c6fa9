"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { action, fail } from "@/lib/actions";
import { ENTRY_KINDS } from "@/lib/harness";
import {
  approveSuggestion,
  createSuggestion,
  dirProposalOf,
  rejectSuggestion,
  suggestGlobalEntryChange,
  type ApproveResult,
} from "@/lib/review";
import { reviewDeps } from "@/lib/review/process-review";
import { getPersistentDirs } from "@/lib/workspace-dirs";

// Every action: the shared wrapper (zod, the Actor from the session, the least role), then the
// review module, which reads the role again from the database at the moment of the decision.

const MAX_TEXT = 2 * 1024 * 1024;
const idSchema = z.string().min(1).max(200);
const cursorSchema = z.union([z.number().int().min(0), z.string().min(1).max(200)]);

function revalidateReview() {
  revalidatePath("/review");
  revalidatePath("/", "layout");
}

const editSchema = z.union([
  z.object({
    target: z.literal("dir"),
    files: z.record(z.string().min(1).max(1024), z.string().max(MAX_TEXT).nullable()),
  }),
  z.object({
    target: z.literal("entry"),
    fields: z.object({
      title: z.string().max(200).optional(),
      content: z
        .string()
        .max(64 * 1024)
        .optional(),
    }),
  }),
]);

/**
 * Approves a suggestion (editors and admins; the role is read again from the database now). A
 * conflict applies nothing and comes back with the texts to merge.
 */
export const approveSuggestionAction = action(
  {
    role: "editor",
    input: z.object({
      id: idSchema,
      edit: editSchema.optional(),
      note: z.string().max(2000).optional(),
    }),
  },
  async ({ input, actor }): Promise<ApproveResult> => {
    const result = await approveSuggestion(reviewDeps(), { actor, ...input });
    // No revalidation: the card stays on screen saying what happened (a revalidation would
    // re-render the open list without it at once); /review is dynamic, the next visit is fresh.
    if (result.status === "failed") fail("suggestion:failed", result.message);
    return result;
  },
);

/** Rejects (or sends back) a suggestion with a reason its author reads. */
export const rejectSuggestionAction = action(
  { role: "editor", input: z.object({ id: idSchema, reason: z.string().min(1).max(2000) }) },
  async ({ input, actor }) => {
    await rejectSuggestion(reviewDeps(), { actor, id: input.id, reason: input.reason });
    return { id: input.id };
  },
);

/**
 * Suggests a change to a file of company knowledge from the Files editor (anyone who may read
 * it; an editor would simply save). Recorded against the version the editor loaded.
 */
export const suggestFileChangeAction = action(
  {
    input: z.object({
      harnessDir: z.string().min(1).max(200),
      path: z.string().min(1).max(1024),
      content: z.string().max(MAX_TEXT).nullable(),
      baseCursor: cursorSchema,
      baseContent: z.string().max(MAX_TEXT).nullable(),
      note: z.string().max(2000).default(""),
    }),
  },
  async ({ input, actor }) => {
    const dir = getPersistentDirs().appDirs.find((d) => d.harnessDir === input.harnessDir);
    if (!dir || dir.kind !== "company")
      fail("validation:suggestion", "Suggestions are for company knowledge.");
    if (input.content === input.baseContent) fail("validation:suggestion", "Nothing changed.");
    const changes = {
      created:
        input.baseContent === null && input.content !== null
          ? [{ path: input.path, content: input.content }]
          : [],
      updated:
        input.baseContent !== null && input.content !== null
          ? [{ path: input.path, content: input.content }]
          : [],
      deleted: input.baseContent !== null && input.content === null ? [input.path] : [],
    };
    const { id } = await createSuggestion(reviewDeps().sql, {
      actor,
      source: "editor",
      note: input.note,
      proposal: {
        target: "dir",
        harnessDir: input.harnessDir,
        dir: dirProposalOf({
          changes,
          base: { [input.path]: input.baseContent },
          baseCursor: input.baseCursor,
        }),
      },
    });
    revalidateReview();
    return { id };
  },
);

/**
 * Suggests a change to a global harness entry from its page, or promotes a chat-local entry or a
 * memory note ("Suggest for the team"): a new global entry or a file in company knowledge.
 */
export const suggestEntryChangeAction = action(
  {
    input: z.object({
      action: z.enum(["create", "update", "delete"]),
      kind: z.enum(ENTRY_KINDS),
      id: z.string().max(80).optional(),
      expectedVersion: z.number().int().positive().optional(),
      title: z.string().max(200).optional(),
      content: z
        .string()
        .max(64 * 1024)
        .optional(),
      path: z.string().max(200).optional(),
      note: z.string().max(2000).default(""),
      source: z.enum(["entry-page", "promotion"]).default("entry-page"),
    }),
  },
  async ({ input, actor }) => {
    const { note, source, ...proposal } = input;
    const deps = reviewDeps();
    const { id } = await suggestGlobalEntryChange({
      sql: deps.sql,
      harnessStorage: deps.harnessStorage,
      actor,
      proposal,
      source,
      note,
    });
    revalidateReview();
    return { id };
  },
);
