import {
  HarnessConflictError,
  HarnessForbiddenError,
  HarnessNotFoundError,
  HarnessValidationError,
} from "../errors";
import { systemClock } from "./system-clock";
import type { CommitLog, CommitRecord, CommitResolution } from "./commit-log";
import {
  resolvePersistentDirs,
  withTurnLimits,
  type ResolvedPersistentDir,
} from "./define-persistent-dirs";
import { commitChange, mergedOf } from "./commit-engine";
import { contentByteLength, isFileContent } from "./internal/content";
import { changedContent, type PathOverride } from "./internal/merge";
import { assertFileWithinLimits, joinHarnessPath, printable, validateRelativePath } from "./paths";
import type {
  ChangeSummary,
  Clock,
  DirCursor,
  FileContent,
  PersistentDir,
  PersistentDirTraceEvent,
} from "./types";

/** Options shared by `retryCommit` and `resolveConflict`. */
export interface RetryCommitOptions<TExtraBody, TSession> {
  /** The commit-log record to apply again. */
  id: string;
  /** The app's dir definitions; the record's `harnessDir` must be among them. */
  dirs: readonly PersistentDir<TExtraBody, TSession>[];
  commitLog: CommitLog;
  /**
   * Host data for load/store/canWrite. Default: the record's (the turn that made the change).
   * The caller authorises the retry; `canWrite` is evaluated again with this value.
   */
  extraBody?: TExtraBody;
  /** Default: the record's. */
  session?: TSession;
  clock?: Clock;
  onTrace?: (event: PersistentDirTraceEvent) => void;
  /** Store attempts when the backing keeps moving. Default 3. */
  maxCommitAttempts?: number;
  abortSignal?: AbortSignal;
}

/** The outcome of a retry or a resolution; `record` is the log's record afterwards. */
export type RetryCommitResult =
  | {
      status: "succeeded";
      record: CommitRecord;
      cursor: DirCursor;
      merged: boolean;
      changes: ChangeSummary;
    }
  | { status: "conflict"; record: CommitRecord; message: string }
  | { status: "failed"; record: CommitRecord; error: { code: string; message: string } };

/**
 * Applies an open (failed or conflicting) commit again against the backing's current state:
 * loads the dir; if the cursor moved, rebases the change set onto it, three-way merging text
 * files both sides changed. A clean result is stored with compare-and-swap and the record is
 * marked resolved (`retried`, or `already-applied` when the backing already held every
 * change — so retrying twice never applies anything twice). A content clash updates the record
 * to `conflict` with every version kept; another failure updates it to `failed`.
 *
 * Throws `not_found:commit` / `not_found:dir`, `conflict:commit` when the record is already
 * resolved, and `forbidden:dir` when the dir is read-only or `canWrite` refuses.
 */
export async function retryCommit<TExtraBody, TSession>(
  options: RetryCommitOptions<TExtraBody, TSession>,
): Promise<RetryCommitResult> {
  return apply(options, undefined, "retried");
}

/** How a person settles a conflict. */
export type ConflictResolution =
  | "ours"
  | "theirs"
  /** Final content per conflicted path (relative to the dir; `null` deletes). Must cover every conflicted path. */
  | Record<string, FileContent | null>;

/**
 * Settles a conflicting commit: for every path in the record's `conflicts`, `ours` keeps this
 * commit's version, `theirs` keeps the backing's current version, and an object gives the
 * final content. The rest of the change set is rebased and merged as in `retryCommit`; if that
 * clashes anew, the record stays open with the new conflicts. Same errors as `retryCommit`,
 * plus `validation:path` for a resolution that names unknown paths or misses a conflicted one.
 */
export async function resolveConflict<TExtraBody, TSession>(
  options: RetryCommitOptions<TExtraBody, TSession> & { resolution: ConflictResolution },
): Promise<RetryCommitResult> {
  const record = await loadOpenRecord(options);
  let dir: ResolvedPersistentDir<TExtraBody, TSession> | undefined;
  const conflicted = record.conflicts.map((conflict) => conflict.path);
  const overrides = new Map<string, PathOverride>();
  let resolution: CommitResolution;
  if (options.resolution === "ours" || options.resolution === "theirs") {
    resolution = options.resolution;
    const ours = changedContent(record.changes);
    // A conflict from a backing that kept moving has no clashing files: "ours" then forces the whole change set.
    const paths = conflicted.length > 0 ? conflicted : [...ours.keys()];
    for (const path of paths) {
      overrides.set(
        path,
        options.resolution === "theirs" ? { keep: "theirs" } : { content: ours.get(path) ?? null },
      );
    }
  } else {
    resolution = "edited";
    // The person's text is held to the dir's limits for this commit; when they cannot be decided
    // the commit engine fails the commit with the reason and the record stays open.
    const { extraBody, session } = hostDataOf(options, record);
    dir = findDir(options.dirs, record.harnessDir);
    dir = await withTurnLimits(dir, { extraBody, session }).catch(() => dir!);
    const limits = dir.pendingLimits ? null : dir.limits;
    const allowed = new Set(changedContent(record.changes).keys());
    const given = options.resolution as Record<string, unknown>;
    for (const rawPath of Object.keys(given)) {
      const path = validateRelativePath({ path: rawPath });
      if (!allowed.has(path)) {
        throw new HarnessValidationError({
          surface: "path",
          message: `${printable(path)} is not part of commit ${record.id}.`,
          details: { path: printable(path) },
        });
      }
      const content = given[rawPath];
      if (content !== null && !isFileContent(content)) {
        throw new HarnessValidationError({
          surface: "path",
          message: `Content for ${printable(path)} must be text, bytes or null.`,
          details: { path: printable(path) },
        });
      }
      if (content !== null && limits) {
        assertFileWithinLimits({
          path: joinHarnessPath({ harnessDir: dir.harnessDir, relativePath: path }),
          bytes: contentByteLength(content),
          limits,
        });
      }
      overrides.set(path, { content });
    }
    const missing = conflicted.filter((path) => !overrides.has(path));
    if (missing.length > 0) {
      throw new HarnessValidationError({
        surface: "path",
        message: `The resolution does not settle ${missing.map(printable).join(", ")}.`,
        details: { missing },
      });
    }
  }
  return apply(options, overrides, resolution, record, dir);
}

/** The host data a retry runs with: the caller's, or the record's (the turn that made it). */
function hostDataOf<TExtraBody, TSession>(
  options: RetryCommitOptions<TExtraBody, TSession>,
  record: CommitRecord,
): { extraBody: TExtraBody; session: TSession } {
  return {
    extraBody: (options.extraBody === undefined
      ? record.extraBody
      : options.extraBody) as TExtraBody,
    session: (options.session === undefined ? record.session : options.session) as TSession,
  };
}

async function loadOpenRecord(options: {
  id: string;
  commitLog: CommitLog;
  abortSignal?: AbortSignal;
}): Promise<CommitRecord> {
  const record = await options.commitLog.getCommit({
    id: options.id,
    abortSignal: options.abortSignal,
  });
  if (!record)
    throw new HarnessNotFoundError({
      surface: "commit",
      message: `No commit record ${options.id}.`,
      details: { id: options.id },
    });
  if (record.status === "resolved") {
    throw new HarnessConflictError({
      surface: "commit",
      message: `Commit record ${options.id} is already resolved.`,
      details: { id: options.id },
    });
  }
  return record;
}

function findDir<TExtraBody, TSession>(
  dirs: readonly PersistentDir<TExtraBody, TSession>[],
  harnessDir: string,
): ResolvedPersistentDir<TExtraBody, TSession> {
  const dir = resolvePersistentDirs({ dirs }).find(
    (candidate) => candidate.harnessDir === harnessDir,
  );
  if (!dir)
    throw new HarnessNotFoundError({
      surface: "dir",
      message: `No persistent dir ${harnessDir} is configured.`,
      details: { harnessDir },
    });
  return dir;
}

async function apply<TExtraBody, TSession>(
  options: RetryCommitOptions<TExtraBody, TSession>,
  overrides: Map<string, PathOverride> | undefined,
  resolution: CommitResolution,
  known?: CommitRecord,
  /** The record's dir, with this commit's limits when they were decided already. */
  knownDir?: ResolvedPersistentDir<TExtraBody, TSession>,
): Promise<RetryCommitResult> {
  const clock = options.clock ?? systemClock;
  const record = known ?? (await loadOpenRecord(options));
  const dir = knownDir ?? findDir(options.dirs, record.harnessDir);
  const { extraBody, session } = hostDataOf(options, record);
  await assertWritable(dir, extraBody);
  const emit = (event: PersistentDirTraceEvent): void => {
    try {
      options.onTrace?.(event);
    } catch {
      // Tracing never changes the outcome.
    }
  };
  const attempts = record.attempts + 1;
  const { outcome, changes, settled } = await commitChange({
    dir,
    extraBody,
    session,
    changes: record.changes,
    base: record.base,
    baseCursor: record.baseCursor,
    overrides,
    maxAttempts: options.maxCommitAttempts,
    abortSignal: options.abortSignal,
    trace: { clock, emit },
    // The record follows the outcome: resolved when it landed, its status and error otherwise.
    settle: async (outcome) => {
      if (outcome.status === "stored" || outcome.status === "already-applied") {
        const resolved = await options.commitLog.markResolved({
          id: record.id,
          resolution:
            outcome.status === "already-applied" && resolution === "retried"
              ? "already-applied"
              : resolution,
          cursor: outcome.cursor,
          abortSignal: options.abortSignal,
        });
        return { commitId: record.id, record: resolved };
      }
      const patch =
        outcome.status === "conflict"
          ? {
              status: "conflict" as const,
              error: { code: "conflict:commit", message: outcome.message },
              conflicts: outcome.conflicts,
              attempts,
            }
          : {
              // A failure says nothing about file clashes: keep the conflicts a person may be looking at.
              status:
                record.status === "conflict" && record.conflicts.length > 0
                  ? ("conflict" as const)
                  : ("failed" as const),
              error: outcome.error,
              attempts,
            };
      const updated = await options.commitLog.updateCommit({
        id: record.id,
        patch,
        abortSignal: options.abortSignal,
      });
      return { commitId: record.id, record: updated };
    },
  });
  if (outcome.status === "stored" || outcome.status === "already-applied") {
    return {
      status: "succeeded",
      record: settled.record,
      cursor: outcome.cursor,
      merged: mergedOf(outcome),
      changes,
    };
  }
  if (outcome.status === "conflict") {
    return { status: "conflict", record: settled.record, message: outcome.message };
  }
  return { status: "failed", record: settled.record, error: outcome.error };
}

async function assertWritable<TExtraBody, TSession>(
  dir: ResolvedPersistentDir<TExtraBody, TSession>,
  extraBody: TExtraBody,
): Promise<void> {
  let allowed = dir.mode !== "read-only";
  if (allowed && dir.definition.canWrite) {
    try {
      allowed = (await dir.definition.canWrite({ extraBody })) === true;
    } catch {
      allowed = false;
    }
  }
  if (!allowed) {
    throw new HarnessForbiddenError({
      surface: "dir",
      message: `${dir.harnessDir} is read-only for this caller; the commit was not applied.`,
      details: { harnessDir: dir.harnessDir },
    });
  }
}
