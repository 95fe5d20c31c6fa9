import { currentActor } from "@/lib/accounts";
import {
  canWriteGlobal,
  commitChangeSet,
  createEntryOfKind,
  createHarness,
  describeError,
  HarnessConflictError,
  HarnessError,
  HarnessForbiddenError,
  HarnessNotFoundError,
  HarnessValidationError,
  updateEntryOfKind,
  type Actor,
  type ChangeSet,
  type DirCursor,
  type Entry,
  type FileContent,
  type HarnessStoragePort,
} from "@/lib/harness";
import type { AppDir } from "@/lib/workspace-dirs/app-dirs";
import type { Sql, SqlExecutor } from "@/lib/sql-storage/sql";
import { readDirFiles } from "./read-dir-file";
import {
  claimSuggestion,
  decideSuggestion,
  fileContentOf,
  getSuggestion,
  releaseSuggestion,
  textOf,
  type DirProposal,
  type EntryProposal,
  type EntryProposalFields,
  type SuggestionView,
} from "./suggestion-store";

/** What deciding a suggestion needs: the database, the app's dirs and the harness storage. */
export interface ReviewDeps {
  sql: Sql;
  appDirs: readonly AppDir[];
  harnessStorage: HarnessStoragePort;
}

/** One file of a conflict as the review page shows it: where the dir is now and the proposal. */
export interface SuggestionConflict {
  path: string;
  /** The text when the suggestion was made (`null`: absent or binary). */
  base: string | null;
  /** The text the dir holds now. */
  current: string | null;
  /** The suggested text (`null`: the suggestion deletes it). */
  proposed: string | null;
  /** diff3 of both sides with `<<<<<<<` markers, when both changed the text. */
  markers: string | null;
}

/** What an approval came to. */
export type ApproveResult =
  | { status: "approved"; applied: Record<string, unknown> }
  /** Nothing applied: a newer version clashes; merge it (edit then approve) or send it back. */
  | { status: "conflict"; message: string; conflicts: SuggestionConflict[] }
  | { status: "failed"; message: string };

/** Edits an approver makes before approving: file texts (`null` deletes) or entry fields. */
export type SuggestionEdit =
  | { target: "dir"; files: Record<string, string | null> }
  | { target: "entry"; fields: EntryProposalFields };

/**
 * The approver as of now: the role is read from the database at this moment, never taken from
 * the request or from when the page was opened. Editors and admins only.
 */
async function reviewerNow(sql: SqlExecutor, actor: Actor): Promise<Actor> {
  const now = await currentActor(sql, actor);
  if (!now) {
    throw new HarnessForbiddenError({
      surface: "suggestion",
      message: "You are no longer a member of this workspace.",
    });
  }
  if (!canWriteGlobal(now)) {
    throw new HarnessForbiddenError({
      surface: "suggestion",
      message: `Only editors and admins review suggestions; your role is now ${now.role}.`,
      details: { role: now.role },
    });
  }
  return now;
}

async function suggestionOrThrow(sql: Sql, actor: Actor, id: string): Promise<SuggestionView> {
  const suggestion = await getSuggestion(sql, { workspaceId: actor.workspaceId, id });
  if (!suggestion) {
    throw new HarnessNotFoundError({
      surface: "suggestion",
      message: "That suggestion does not exist in this workspace.",
    });
  }
  return suggestion;
}

function alreadyDecided(suggestion: SuggestionView): HarnessConflictError {
  return new HarnessConflictError({
    surface: "suggestion",
    message:
      suggestion.status === "applying"
        ? "Someone else is approving this suggestion right now."
        : `This suggestion was already ${suggestion.status}.`,
  });
}

/** "suggested by X, approved by Y": the provenance every applied suggestion carries. */
function provenance(suggestion: SuggestionView, approverName: string): string {
  return `suggested by ${suggestion.authorName ?? "a former member"}, approved by ${approverName}`;
}

async function nameOf(sql: SqlExecutor, userId: string): Promise<string> {
  const user = await sql.get<{ name: string }>(`SELECT "name" FROM "User" WHERE "id" = ?`, [
    userId,
  ]);
  return user?.name ?? "someone";
}

/**
 * Approves a suggestion as `actor`, whose role is read again now (editor or admin, else
 * `forbidden:suggestion` and nothing changes). Applies it through the commit engine (a dir
 * change; three-way merged onto newer versions where the edits do not overlap) or the harness
 * store (a global entry, at the version it was based on) as the approver, with the provenance
 * "suggested by X, approved by Y". A clash with a newer version applies nothing and returns the
 * conflict; `edit` replaces the proposal with the approver's text, applied over the current
 * version (how a conflict is merged). One approver at a time: a suggestion being approved or
 * already decided is refused (`conflict:suggestion`).
 */
export async function approveSuggestion(
  deps: ReviewDeps,
  options: { actor: Actor; id: string; edit?: SuggestionEdit; note?: string },
): Promise<ApproveResult> {
  const approver = await reviewerNow(deps.sql, options.actor);
  const suggestion = await suggestionOrThrow(deps.sql, approver, options.id);
  if (!(await claimSuggestion(deps.sql, { workspaceId: approver.workspaceId, id: suggestion.id })))
    throw alreadyDecided(suggestion);
  let result: ApproveResult;
  try {
    const via = provenance(suggestion, await nameOf(deps.sql, approver.userId));
    result =
      suggestion.target === "dir"
        ? await applyDirSuggestion({ deps, approver, suggestion, via, edit: options.edit })
        : await applyEntrySuggestion({ deps, approver, suggestion, via, edit: options.edit });
  } catch (error) {
    await releaseSuggestion(deps.sql, { workspaceId: approver.workspaceId, id: suggestion.id });
    throw error;
  }
  if (result.status !== "approved") {
    await releaseSuggestion(deps.sql, { workspaceId: approver.workspaceId, id: suggestion.id });
    return result;
  }
  await decideSuggestion(deps.sql, {
    workspaceId: approver.workspaceId,
    id: suggestion.id,
    decision: "approved",
    deciderId: approver.userId,
    note: options.note?.trim() || null,
    applied: { ...result.applied, ...(options.edit ? { edited: true } : {}) },
    audit: { suggestedBy: suggestion.authorId, title: suggestion.title, edited: !!options.edit },
  });
  return result;
}

/**
 * Rejects (or sends back) an open suggestion with a reason the suggester reads. The role is
 * read again now: editors and admins only.
 */
export async function rejectSuggestion(
  deps: Pick<ReviewDeps, "sql">,
  options: { actor: Actor; id: string; reason: string },
): Promise<void> {
  const reviewer = await reviewerNow(deps.sql, options.actor);
  const reason = options.reason.trim();
  if (!reason) {
    throw new HarnessValidationError({
      surface: "suggestion",
      message: "Say why, so the person who suggested it knows.",
    });
  }
  const suggestion = await suggestionOrThrow(deps.sql, reviewer, options.id);
  const decided = await decideSuggestion(deps.sql, {
    workspaceId: reviewer.workspaceId,
    id: suggestion.id,
    decision: "rejected",
    deciderId: reviewer.userId,
    note: reason.slice(0, 2000),
    audit: { suggestedBy: suggestion.authorId, title: suggestion.title, edited: false },
  });
  if (!decided) throw alreadyDecided(suggestion);
}

function dirOf(deps: ReviewDeps, harnessDir: string | null): AppDir {
  const dir = deps.appDirs.find((candidate) => candidate.harnessDir === harnessDir);
  if (!dir || dir.kind !== "company") {
    throw new HarnessValidationError({
      surface: "suggestion",
      message: `Suggestions can change company knowledge only, not ${harnessDir ?? "this"}.`,
    });
  }
  return dir;
}

/** The proposal as a change set and its base, after the approver's edits (if any). */
async function changeSetOf(
  dir: AppDir,
  approver: Actor,
  proposal: DirProposal,
  edit: Extract<SuggestionEdit, { target: "dir" }> | undefined,
): Promise<{
  changes: ChangeSet;
  base: Record<string, FileContent | null>;
  baseCursor: DirCursor;
}> {
  if (!edit) {
    return {
      changes: {
        created: proposal.changes.created.map((f) => ({
          path: f.path,
          content: fileContentOf(f.content),
        })),
        updated: proposal.changes.updated.map((f) => ({
          path: f.path,
          content: fileContentOf(f.content),
        })),
        deleted: [...proposal.changes.deleted],
      },
      base: Object.fromEntries(
        Object.entries(proposal.base).map(([path, content]) => [
          path,
          content === null ? null : fileContentOf(content),
        ]),
      ),
      baseCursor: proposal.baseCursor,
    };
  }
  // The approver's text is written over the dir as it is now (what they merged against).
  const current = await readDirFiles(dir, approver, Object.keys(edit.files));
  const changes: ChangeSet = { created: [], updated: [], deleted: [] };
  const base: Record<string, FileContent | null> = {};
  for (const [path, text] of Object.entries(edit.files)) {
    const now = current.files.get(path) ?? null;
    base[path] = now;
    if (text === null) {
      if (now !== null) changes.deleted.push(path);
    } else if (now === null) changes.created.push({ path, content: text });
    else if (now !== text) changes.updated.push({ path, content: text });
  }
  return { changes, base, baseCursor: current.cursor };
}

/** `edit` when it edits a `target` (files or an entry's fields), else a validation error. */
function editOf<T extends SuggestionEdit["target"]>(
  edit: SuggestionEdit | undefined,
  target: T,
): Extract<SuggestionEdit, { target: T }> | undefined {
  if (edit && edit.target !== target)
    throw new HarnessValidationError({
      surface: "suggestion",
      message: `That edit is not ${target === "dir" ? "a file" : "an entry"} edit.`,
    });
  return edit as Extract<SuggestionEdit, { target: T }> | undefined;
}

/** One approval being applied: by whom, of what, with which provenance line and edit. */
interface Approval {
  deps: ReviewDeps;
  approver: Actor;
  suggestion: SuggestionView;
  via: string;
  edit: SuggestionEdit | undefined;
}

async function applyDirSuggestion(approval: Approval): Promise<ApproveResult> {
  const { deps, approver, suggestion, via } = approval;
  const dir = dirOf(deps, suggestion.harnessDir);
  const edit = editOf(approval.edit, "dir");
  const proposal = suggestion.dir!;
  const { changes, base, baseCursor } = await changeSetOf(dir, approver, proposal, edit);
  const outcome = await commitChangeSet({
    dir: dir.definition,
    extraBody: { actor: approver, source: "review", via },
    session: null,
    changes,
    base,
    baseCursor,
    // A suggestion's lines are merged onto a newer version when the edits do not overlap; an
    // edited approval is whole files the approver saw, never merged behind their back.
    mergeText: !edit,
  });
  if (outcome.status === "stored" || outcome.status === "already-applied")
    return { status: "approved", applied: { cursor: outcome.cursor } };
  if (outcome.status === "conflict") {
    return {
      status: "conflict",
      message:
        "Company knowledge changed since this was suggested, in the same lines. Merge the texts below and approve, or send it back.",
      conflicts: outcome.conflicts.map((conflict) => ({
        path: conflict.path,
        base: textOrNull(conflict.base),
        current: textOrNull(conflict.theirs),
        proposed: textOrNull(conflict.ours),
        markers: conflict.markers ?? null,
      })),
    };
  }
  return { status: "failed", message: outcome.error.message };
}

function textOrNull(content: FileContent | null): string | null {
  return typeof content === "string" ? content : null;
}

async function applyEntrySuggestion(approval: Approval): Promise<ApproveResult> {
  const { deps, approver, suggestion, via } = approval;
  const edit = editOf(approval.edit, "entry");
  const proposal: EntryProposal = suggestion.entry!;
  const fields = { ...proposal.fields, ...(edit?.fields ?? {}) };
  const harness = createHarness({
    storage: deps.harnessStorage,
    actor: approver,
    chatId: null,
    via,
  });
  const reason = [suggestion.note.trim(), `(${via})`].filter(Boolean).join(" ");
  const common = { reason: reason.slice(0, 2000), source: "user" as const, global: true };
  try {
    let entry: Entry | null = null;
    if (proposal.action === "create") {
      entry = await createEntryOfKind(
        harness,
        { ...common, ...(proposal.id ? { id: proposal.id } : {}), path: fields.path },
        { kind: proposal.kind, ...fields },
      );
    } else {
      const current = await harness.getEntry({
        kind: proposal.kind,
        id: proposal.id!,
        scope: "global",
      });
      // An edited approval is made against what the approver saw now; otherwise against the
      // version the suggestion was based on (a newer version is a conflict, shown).
      const expectedVersion = edit ? (current?.version ?? 0) : (proposal.baseVersion ?? 0);
      if (!current || current.version !== expectedVersion) {
        return entryConflict(proposal, current);
      }
      if (proposal.action === "update") {
        entry = await updateEntryOfKind(
          harness,
          { ...common, id: proposal.id!, expectedVersion, path: fields.path },
          { kind: proposal.kind, ...fields },
        );
      } else {
        await harness.deleteEntry({
          ...common,
          kind: proposal.kind,
          id: proposal.id!,
          expectedVersion,
        });
      }
    }
    return {
      status: "approved",
      applied: entry
        ? { entryId: entry.id, kind: entry.kind, version: entry.version }
        : { entryId: proposal.id, kind: proposal.kind, deleted: true },
    };
  } catch (error) {
    if (HarnessConflictError.isInstance(error) && error.code === "conflict:entry") {
      const current = proposal.id
        ? await harness.getEntry({ kind: proposal.kind, id: proposal.id, scope: "global" })
        : null;
      return entryConflict(proposal, current);
    }
    if (HarnessError.isInstance(error) && !HarnessForbiddenError.isInstance(error))
      return { status: "failed", message: describeError(error).message };
    throw error;
  }
}

function entryConflict(proposal: EntryProposal, current: Entry | null): ApproveResult {
  return {
    status: "conflict",
    message: current
      ? `The global ${proposal.kind} changed since this was suggested (now version ${current.version}). Edit the text below against the current version and approve, or send it back.`
      : `The global ${proposal.kind} no longer exists. Send the suggestion back, or edit and approve it as a new entry.`,
    conflicts: [
      {
        path: `${proposal.kind}/${proposal.id ?? ""}`,
        base: proposal.base?.content ?? null,
        current: current?.content ?? null,
        proposed:
          proposal.action === "delete"
            ? null
            : (proposal.fields.content ?? proposal.base?.content ?? null),
        markers: null,
      },
    ],
  };
}

/** The text of each changed file before and after, for the diff (bytes show as `null`). */
export function dirSuggestionFiles(proposal: DirProposal): {
  path: string;
  before: string | null;
  after: string | null;
  binary: boolean;
}[] {
  const files = [
    ...proposal.changes.created.map((f) => ({ path: f.path, after: f.content })),
    ...proposal.changes.updated.map((f) => ({ path: f.path, after: f.content })),
    ...proposal.changes.deleted.map((path) => ({ path, after: null })),
  ];
  return files
    .map((file) => {
      const before = proposal.base[file.path] ?? null;
      return {
        path: file.path,
        before: textOf(before),
        after: file.after === null ? null : textOf(file.after),
        binary:
          (before !== null && textOf(before) === null) ||
          (file.after !== null && textOf(file.after) === null),
      };
    })
    .sort((a, b) => a.path.localeCompare(b.path));
}
