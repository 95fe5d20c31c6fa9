// The trace events of a commit, defined beside the engine that emits them: `commit.started`,
// then one of `commit.succeeded`, `commit.conflict` or `commit.failed`.
import type {
  ChangeSet,
  ChangeSummary,
  Clock,
  CommitMode,
  DirCommitResult,
  DirCursor,
  PersistenceResult,
  PersistentDirTraceEvent,
} from "../types";

/** Where a commit's events go: the trace sink and clock of the turn or retry running it. */
export interface CommitTraceSink {
  clock: Clock;
  emit: (event: PersistentDirTraceEvent) => void;
}

/** The dir, change and trace sink of one commit, for its events. */
export interface CommitTraceContext extends CommitTraceSink {
  harnessDir: string;
  mode: CommitMode;
  changes: ChangeSummary;
}

/** Counts and paths of a change set (no content). */
export function summarizeChanges(changes: ChangeSet): ChangeSummary {
  const created = changes.created.map((file) => file.path);
  const updated = changes.updated.map((file) => file.path);
  const deleted = [...changes.deleted];
  return {
    created,
    updated,
    deleted,
    counts: {
      created: created.length,
      updated: updated.length,
      deleted: deleted.length,
      total: created.length + updated.length + deleted.length,
    },
  };
}

/** What every event of a commit says: when, and of which dir. */
function commitEventOf(context: CommitTraceContext) {
  const { harnessDir, mode, clock } = context;
  return { at: clock.now().toISOString(), harnessDir, mode };
}

/** Emits a commit's `commit.started` event. */
export function traceCommitStarted(context: CommitTraceContext): void {
  context.emit({ type: "commit.started", ...commitEventOf(context), changes: context.changes });
}

/** Emits `commit.succeeded`: the cursor the dir is at now, and whether the change was merged. */
export function traceCommitSucceeded(
  context: CommitTraceContext,
  { cursor, merged }: { cursor: DirCursor; merged: boolean },
): void {
  const { changes } = context;
  context.emit({ type: "commit.succeeded", ...commitEventOf(context), cursor, merged, changes });
}

/** Emits `commit.conflict`: the clash's message and paths, its record if any. */
export function traceCommitConflicted(
  context: CommitTraceContext,
  clash: { message: string; conflicts: readonly { path: string }[]; commitId?: string },
): void {
  const conflictedPaths = clash.conflicts.map((conflict) => conflict.path);
  const { message, commitId } = clash;
  context.emit({
    type: "commit.conflict",
    ...commitEventOf(context),
    message,
    conflictedPaths,
    ...(commitId !== undefined ? { commitId } : {}),
  });
}

/** Emits `commit.failed`: the error, its record if any. */
export function traceCommitFailed(
  context: CommitTraceContext,
  { error, commitId }: { error: { code: string; message: string }; commitId?: string },
): void {
  const recorded = commitId !== undefined ? { commitId } : {};
  context.emit({ type: "commit.failed", ...commitEventOf(context), error, ...recorded });
}

/** Builds the host result from per-dir commits. */
export function toPersistenceResult(commits: DirCommitResult[]): PersistenceResult {
  const failedCommits = commits.filter(
    (commit) => commit.status === "conflict" || commit.status === "failed",
  );
  return failedCommits.length > 0
    ? { status: "failed", commits, failedCommits }
    : { status: "succeeded", commits };
}
