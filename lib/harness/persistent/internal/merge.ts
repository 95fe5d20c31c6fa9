import { diff3Merge, mergeDiff3 } from "node-diff3";

import type { FileConflict } from "../commit-log";
import type { ChangeSet, FileContent, FileMap } from "../types";
import { contentEquals, copyContent, emptyFileMap } from "./content";

/** The content a change set leaves at each path it touches (`null`: deleted). */
export function changedContent(changes: ChangeSet): Map<string, FileContent | null> {
  const result = new Map<string, FileContent | null>();
  for (const file of changes.created) result.set(file.path, file.content);
  for (const file of changes.updated) result.set(file.path, file.content);
  for (const path of changes.deleted) result.set(path, null);
  return result;
}

export function isEmptyChangeSet(changes: ChangeSet): boolean {
  return (
    changes.created.length === 0 && changes.updated.length === 0 && changes.deleted.length === 0
  );
}

/**
 * Three-way merge of text by lines. `null` when the sides clash.
 *
 * `ours` is the change being committed, `theirs` what was committed before it. Where both sides
 * only inserted lines at the same place (the base region between them is empty — two turns that
 * each appended a note at the end, say), both insertions are kept, `theirs` first: the order in
 * which they were committed. Identical insertions count once. Any region where a side changed or
 * removed base lines that the other side also touched stays a conflict.
 */
export function mergeText(options: { base: string; ours: string; theirs: string }): string | null {
  const lines: string[] = [];
  for (const region of diff3Merge(
    options.ours.split("\n"),
    options.base.split("\n"),
    options.theirs.split("\n"),
    { excludeFalseConflicts: true },
  )) {
    if (region.ok) lines.push(...region.ok);
    else if (region.conflict?.o.length === 0)
      lines.push(...region.conflict.b, ...region.conflict.a);
    else if (region.conflict) return null;
  }
  return lines.join("\n");
}

/** The diff3 merge with conflict markers (written by `node-diff3`), for a person to edit. */
export function mergeTextWithMarkers(options: {
  base: string;
  ours: string;
  theirs: string;
}): string {
  return mergeDiff3(
    options.ours.split("\n"),
    options.base.split("\n"),
    options.theirs.split("\n"),
    { excludeFalseConflicts: true, label: { a: "ours", o: "base", b: "theirs" } },
  ).result.join("\n");
}

/** An explicit decision for a path: keep the backing's version, or this content (`null` deletes). */
export type PathOverride = { keep: "theirs" } | { content: FileContent | null };

export interface RebaseResult {
  /** The change set relative to `theirs` (sorted, possibly empty). */
  changes: ChangeSet;
  /** `theirs` with `changes` applied; absent when not asked for. */
  snapshot?: FileMap;
  /** Paths that needed a three-way text merge and merged cleanly. */
  merged: string[];
  conflicts: FileConflict[];
}

/**
 * Re-applies a change set computed against `base` on top of the backing's current files.
 * Per path: untouched there → ours; same result there → nothing to do; both changed text →
 * diff3 by lines (unless `mergeText` is false: a person's whole-file edit is not merged behind
 * their back); anything else → a conflict. Paths not in the change set keep their current
 * content. Conflicts are reported, never guessed; `overrides` settles chosen paths.
 */
export function rebaseChanges(options: {
  changes: ChangeSet;
  base: Record<string, FileContent | null>;
  theirs: Map<string, FileContent>;
  overrides?: Map<string, PathOverride>;
  /** Default true. */
  mergeText?: boolean;
  /**
   * Build the after-state from `theirs` (default true). `false` when `theirs` holds only the
   * change set's paths (a lazy dir).
   */
  snapshot?: boolean;
}): RebaseResult {
  const ours = changedContent(options.changes);
  const final = new Map<string, FileContent | null>();
  const merged: string[] = [];
  const conflicts: FileConflict[] = [];
  for (const [path, mine] of ours) {
    const base = Object.hasOwn(options.base, path) ? (options.base[path] ?? null) : null;
    const theirs = options.theirs.get(path) ?? null;
    const override = options.overrides?.get(path);
    if (override) {
      final.set(path, "keep" in override ? theirs : override.content);
    } else if (contentEquals(theirs, base)) {
      final.set(path, mine);
    } else if (contentEquals(theirs, mine)) {
      final.set(path, theirs);
    } else if (typeof base === "string" && typeof mine === "string" && typeof theirs === "string") {
      const text = options.mergeText === false ? null : mergeText({ base, ours: mine, theirs });
      if (text === null) {
        conflicts.push({
          path,
          reason: "both-modified",
          base,
          ours: mine,
          theirs,
          markers: mergeTextWithMarkers({ base, ours: mine, theirs }),
        });
      } else {
        final.set(path, text);
        merged.push(path);
      }
    } else {
      const reason: FileConflict["reason"] =
        base === null
          ? "both-created"
          : mine === null || theirs === null
            ? "modify-delete"
            : "binary";
      conflicts.push({
        path,
        reason,
        base: copyContent(base),
        ours: copyContent(mine),
        theirs: copyContent(theirs),
      });
    }
  }

  const changes: ChangeSet = { created: [], updated: [], deleted: [] };
  const snapshot = options.snapshot === false ? undefined : emptyFileMap();
  if (snapshot) for (const [path, content] of options.theirs) snapshot[path] = copyContent(content);
  for (const path of [...final.keys()].sort()) {
    const next = final.get(path) ?? null;
    const current = options.theirs.get(path) ?? null;
    if (contentEquals(next, current)) continue;
    if (next === null) {
      changes.deleted.push(path);
      if (snapshot) delete snapshot[path];
    } else {
      (current === null ? changes.created : changes.updated).push({
        path,
        content: copyContent(next),
      });
      if (snapshot) snapshot[path] = copyContent(next);
    }
  }
  return { changes, ...(snapshot ? { snapshot } : {}), merged, conflicts };
}
