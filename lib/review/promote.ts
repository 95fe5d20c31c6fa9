import { currentActor } from "@/lib/accounts";
import {
  canWriteGlobal,
  HarnessForbiddenError,
  HarnessValidationError,
  validateRelativePath,
  type Actor,
} from "@/lib/harness";
import { readDirFiles } from "./read-dir-file";
import { approveSuggestion, type ApproveResult, type ReviewDeps } from "./review";
import { suggestGlobalEntryChange } from "./suggest-entry";
import { createSuggestion, dirProposalOf } from "./suggestion-store";

/** Where promoted knowledge goes: a new global entry, or a file of company knowledge. */
export type PromotionTarget =
  { target: "entry"; kind: "memory" | "prompt"; title: string } | { target: "dir"; path: string };

/** What a promotion came to: a suggestion waiting for review, or (an editor's) applied at once. */
export type PromotionResult =
  | { status: "suggested"; id: string }
  | { status: "applied"; id: string }
  | { status: "not-applied"; id: string; result: Exclude<ApproveResult, { status: "approved" }> };

/**
 * "Suggest for the team": promotes a chat-local entry, a personal memory note or a passage of
 * one to the workspace — a new global entry, or a file of company knowledge at `path` (the
 * passage is appended when the file exists). It is a suggestion like any other (source
 * `promotion`); an editor or admin promoting goes through the same path, and their suggestion is
 * approved at once by them (one step, the same provenance). The role is read from the database.
 */
export async function promoteToTeam(
  deps: ReviewDeps,
  options: { actor: Actor; to: PromotionTarget; text: string; note?: string },
): Promise<PromotionResult> {
  const now = await currentActor(deps.sql, options.actor);
  if (!now) {
    throw new HarnessForbiddenError({
      surface: "suggestion",
      message: "You are no longer a member of this workspace.",
    });
  }
  const text = options.text.trim();
  if (!text) {
    throw new HarnessValidationError({
      surface: "suggestion",
      message: "Choose the text to suggest: it is empty.",
    });
  }
  const note = options.note?.trim() ?? "";
  let id: string;
  if (options.to.target === "entry") {
    ({ id } = await suggestGlobalEntryChange({
      sql: deps.sql,
      harnessStorage: deps.harnessStorage,
      actor: now,
      proposal: { action: "create", kind: options.to.kind, title: options.to.title, content: text },
      source: "promotion",
      note,
    }));
  } else {
    const path = validateRelativePath({ path: options.to.path });
    const dir = deps.appDirs.find((candidate) => candidate.kind === "company");
    if (!dir) throw new HarnessValidationError({ message: "There is no company knowledge." });
    const read = await readDirFiles(dir, now, [path]);
    const content = read.files.get(path) ?? null;
    const cursor = read.cursor;
    if (content !== null && typeof content !== "string") {
      throw new HarnessValidationError({
        surface: "suggestion",
        message: `${path} is a binary file; choose another path.`,
      });
    }
    const after =
      content === null ? `${text}\n` : `${content}${content.endsWith("\n") ? "" : "\n"}\n${text}\n`;
    ({ id } = await createSuggestion(deps.sql, {
      actor: now,
      source: "promotion",
      note,
      proposal: {
        target: "dir",
        harnessDir: dir.harnessDir,
        dir: dirProposalOf({
          changes:
            content === null
              ? { created: [{ path, content: after }], updated: [], deleted: [] }
              : { created: [], updated: [{ path, content: after }], deleted: [] },
          base: { [path]: content },
          baseCursor: cursor,
        }),
      },
    }));
  }
  if (!canWriteGlobal(now)) return { status: "suggested", id };
  const result = await approveSuggestion(deps, { actor: now, id, note: "promoted by its author" });
  return result.status === "approved"
    ? { status: "applied", id }
    : { status: "not-applied", id, result };
}
