import { describeError, HarnessValidationError } from "../../errors";
import { sharedBodyCache } from "../body-cache";
import { shaped } from "../checkout-base";
import type { DirIndexEntry } from "../dir-index";
import { validateDirIndex, validateLoadResult } from "../load-checkout";
import type { FileConflict } from "../commit-log";
import { withTurnLimits, type ResolvedPersistentDir } from "../define-persistent-dirs";
import { assertDirWithinLimits } from "../paths";
import type { ChangeSet, DirCursor, DirLimits, FileContent, FileMap } from "../types";
import { contentByteLength, contentHash } from "../internal/content";
import {
  changedContent,
  isEmptyChangeSet,
  rebaseChanges,
  type PathOverride,
} from "../internal/merge";

/** What applying a change set to a backing came to. */
export type ApplyOutcome =
  | { status: "stored"; cursor: DirCursor; merged: boolean; changes: ChangeSet }
  /** The backing already holds every change (e.g. a concurrent turn made the same edit). */
  | { status: "already-applied"; cursor: DirCursor }
  /** `cursor`: the dir's version the clash was found against (absent when it kept moving). */
  | { status: "conflict"; message: string; conflicts: FileConflict[]; cursor?: DirCursor }
  | { status: "failed"; error: { code: string; message: string }; cause: unknown };

/** Default number of store attempts per commit lost without the dir moving. */
export const DEFAULT_MAX_COMMIT_ATTEMPTS = 3;

/** The most stores one commit tries, however much the dir moves meanwhile. */
export const MAX_COMMIT_ROUNDS = 200;

/** What `applyChangeSet` applies, and where. */
export interface ApplyChangeSetOptions<TExtraBody, TSession> {
  dir: ResolvedPersistentDir<TExtraBody, TSession>;
  extraBody: TExtraBody;
  session: TSession;
  changes: ChangeSet;
  base: Record<string, FileContent | null>;
  baseCursor: DirCursor;
  /**
   * The after-state at `baseCursor` (a turn's checkout, which checked the dir's limits as it was
   * written): the first store is tried without a load. `snapshot` is the full after-state for a
   * dir loaded whole; a lazy dir's store gets none.
   */
  atBase?: { snapshot?: FileMap };
  /** Per-path settlements of a resolved conflict (`resolveConflict`). */
  overrides?: Map<string, PathOverride>;
  /** Three-way merge text both sides changed (default); `false`: such a path is a conflict. */
  mergeText?: boolean;
  /** Default `DEFAULT_MAX_COMMIT_ATTEMPTS`. */
  maxAttempts?: number;
  abortSignal?: AbortSignal;
}

/**
 * Applies `changes` (computed against `base` at `baseCursor`) with compare-and-swap. With
 * `snapshot`, the first store is tried directly at `baseCursor`; after that (or without it)
 * each attempt loads the current state and rebases the change set onto it, three-way merging
 * text. Content clashes stop at once as `conflict`. A lost compare-and-swap after which the
 * dir had moved means another commit landed — progress, so that attempt is given back and the
 * change is merged again after a short random pause (40 turns appending to one file all commit);
 * `maxAttempts` bounds the stores lost without the dir moving, and `MAX_COMMIT_ROUNDS` the
 * whole loop, after which the result is `conflict`. Thrown errors become `failed`. Never
 * half-applies: each store is one atomic call.
 */
export async function applyChangeSet<TExtraBody, TSession>(
  options: ApplyChangeSetOptions<TExtraBody, TSession>,
): Promise<ApplyOutcome> {
  const { extraBody, session, abortSignal } = options;
  let dir = options.dir;
  const store = dir.definition.store;
  if (!store) {
    return {
      status: "failed",
      error: { code: "forbidden:dir", message: `${dir.harnessDir} has no store.` },
      cause: undefined,
    };
  }
  let cursor = options.baseCursor;
  // The after-state the next store sends: `null` — load the current state and rebase first.
  let next: { snapshot?: FileMap } | null = options.overrides ? null : (options.atBase ?? null);
  let changes = options.changes;
  let merged = false;
  let lastMessage = "";
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_COMMIT_ATTEMPTS;
  let attemptsLeft = Math.max(1, maxAttempts);
  /** The cursor of the last store that lost its compare-and-swap. */
  let lostAgainst: DirCursor | undefined;
  try {
    // A turn's dir comes with the turn's limits; a commit outside a turn decides them here, once.
    // A resolver that throws or answers nonsense fails the commit: the caller keeps the change.
    dir = await withTurnLimits(dir, { extraBody, session });
    for (let round = 0; attemptsLeft > 0 && round < MAX_COMMIT_ROUNDS; round += 1) {
      if (next === null) {
        if (lostAgainst !== undefined) {
          // Spread contenders out so each round lets some of them through.
          await new Promise((resolve) =>
            setTimeout(resolve, Math.random() * Math.min(50, round * 2)),
          );
          abortSignal?.throwIfAborted();
        }
        const current = await loadCurrent(
          dir,
          { extraBody, session, abortSignal },
          options.changes,
        );
        const rebased = rebaseChanges({
          changes: options.changes,
          base: options.base,
          theirs: current.files,
          overrides: options.overrides,
          mergeText: options.mergeText,
          snapshot: !dir.lazy,
        });
        if (rebased.conflicts.length > 0) {
          return {
            status: "conflict",
            message: `${rebased.conflicts.length} file(s) changed on both sides and could not be merged: ${rebased.conflicts.map((c) => c.path).join(", ")}.`,
            conflicts: rebased.conflicts,
            cursor: current.cursor,
          };
        }
        if (isEmptyChangeSet(rebased.changes))
          return { status: "already-applied", cursor: current.cursor };
        merged = merged || current.cursor !== options.baseCursor;
        // The dir moved since the store we lost: another commit landed, not a wasted attempt.
        if (lostAgainst !== undefined && current.cursor !== lostAgainst) attemptsLeft += 1;
        cursor = current.cursor;
        changes = rebased.changes;
        // The merged result must respect the dir's limits, even if the current state does not
        // (a change that does not grow a dir already over lowered limits still lands).
        assertAfterWithinLimits(dir, current, changes);
        next = rebased.snapshot ? { snapshot: rebased.snapshot } : {};
      }
      attemptsLeft -= 1;
      const result = await store({
        extraBody,
        session,
        harnessDir: dir.harnessDir,
        changes,
        ...(next.snapshot ? { snapshot: next.snapshot } : {}),
        cursor,
        abortSignal,
      });
      if (result?.status === "stored") {
        if (typeof result.cursor !== "string" && typeof result.cursor !== "number") {
          throw new HarnessValidationError({
            surface: "commit",
            message: `${dir.harnessDir}: store returned no cursor.`,
          });
        }
        // What was just written is what the next turns of this dir read first.
        if (dir.lazy)
          for (const file of [...changes.created, ...changes.updated])
            sharedBodyCache.set(contentHash(file.content), file.content, { verified: true });
        return { status: "stored", cursor: result.cursor, merged, changes };
      }
      if (result?.status !== "conflict") {
        throw new HarnessValidationError({
          surface: "commit",
          message: `${dir.harnessDir}: store returned neither "stored" nor "conflict".`,
        });
      }
      lastMessage = result.message;
      lostAgainst = cursor;
      next = null;
    }
  } catch (error) {
    return { status: "failed", error: describeError(error), cause: error };
  }
  return {
    status: "conflict",
    message: `${dir.harnessDir} kept changing during the commit (${maxAttempts} attempts)${lastMessage ? `: ${lastMessage}` : "."}`,
    conflicts: [],
  };
}

/** The dir as it is now: the files a change set touches, and its size before the change. */
interface CurrentState {
  cursor: DirCursor;
  /** Whole for a dir loaded whole; only the change set's paths for a lazy dir. */
  files: Map<string, FileContent>;
  fileCount: number;
  bytes: number;
}

/**
 * Reads the current state to rebase onto: a dir loaded whole is loaded (and validated, though
 * limits lowered since are not held against it: the merged result is checked instead; the
 * dir's limits need not be resolved for this); a lazy
 * dir reads its index and only the bodies of the paths the change set touches.
 */
export async function loadCurrent<TExtraBody, TSession>(
  dir: ResolvedPersistentDir<TExtraBody, TSession>,
  load: { extraBody: TExtraBody; session: TSession; abortSignal?: AbortSignal },
  changes: ChangeSet,
): Promise<CurrentState> {
  const lenient = {
    // Limits decided per turn vary (one workspace's, another's): a file one turn could not write
    // may be there already. Static limits: the backing must not hold a larger file.
    maxFileBytes:
      typeof dir.definition.limits === "function"
        ? Number.MAX_SAFE_INTEGER
        : dir.limits.maxFileBytes,
    maxDirBytes: Number.MAX_SAFE_INTEGER,
    maxFiles: Number.MAX_SAFE_INTEGER,
  };
  const { loadIndex, readBodies } = dir.definition;
  if (dir.lazy && loadIndex && readBodies) {
    const index = await loadIndex(load);
    validateDirIndex({ harnessDir: dir.harnessDir, limits: lenient, index });
    const wanted = new Map<string, DirIndexEntry>();
    for (const path of changedContent(changes).keys()) {
      const entry = index.entries.get(path);
      if (entry) wanted.set(path, entry);
    }
    const bodies =
      wanted.size === 0
        ? new Map<string, FileContent>()
        : await readBodies({
            ...load,
            hashes: [...new Set([...wanted.values()].map((entry) => entry.hash))],
          });
    const files = new Map<string, FileContent>();
    for (const [path, entry] of wanted) {
      const body = bodies.get(entry.hash);
      if (body === undefined || contentHash(body) !== entry.hash) {
        throw new HarnessValidationError({
          surface: "commit",
          message: `${dir.harnessDir}: readBodies did not return the content of ${path} at version ${String(index.cursor)}.`,
        });
      }
      files.set(path, shaped(body, entry.text));
    }
    return {
      cursor: index.cursor,
      files,
      fileCount: index.entries.size,
      bytes: index.entries.bytes,
    };
  }
  const loaded = await dir.definition.load(load);
  const current = validateLoadResult({
    harnessDir: dir.harnessDir,
    limits: lenient,
    result: loaded,
  });
  return {
    cursor: current.cursor,
    files: current.files,
    fileCount: current.files.size,
    bytes: current.bytes,
  };
}

function assertAfterWithinLimits(
  dir: { harnessDir: string; limits: DirLimits },
  current: CurrentState,
  changes: ChangeSet,
): void {
  let { fileCount, bytes } = current;
  for (const file of changes.created) {
    fileCount += 1;
    bytes += contentByteLength(file.content);
  }
  for (const file of changes.updated) {
    const before = current.files.get(file.path);
    bytes +=
      contentByteLength(file.content) - (before === undefined ? 0 : contentByteLength(before));
  }
  for (const path of changes.deleted) {
    const before = current.files.get(path);
    fileCount -= 1;
    if (before !== undefined) bytes -= contentByteLength(before);
  }
  assertDirWithinLimits({
    harnessDir: dir.harnessDir,
    fileCount,
    bytes,
    limits: dir.limits,
    before: { fileCount: current.fileCount, bytes: current.bytes },
  });
}
