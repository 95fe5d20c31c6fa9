import type { ChangeSummary } from "../types";
import { applyChangeSet, type ApplyChangeSetOptions, type ApplyOutcome } from "./apply-change-set";
import {
  summarizeChanges,
  traceCommitConflicted,
  traceCommitFailed,
  traceCommitStarted,
  traceCommitSucceeded,
  type CommitTraceContext,
  type CommitTraceSink,
} from "./commit-trace";

/** What the caller's bookkeeping made of an outcome, for the commit's closing event. */
export interface SettledCommit {
  /** The commit-log record that keeps (or kept) this change, if any. */
  commitId?: string;
  /** For `failed`: the error as reported (e.g. saying where the change is kept now). */
  error?: { code: string; message: string };
}

/** Options of `commitChange`: the change and where it goes, plus tracing and bookkeeping. */
export interface CommitChangeOptions<
  TExtraBody,
  TSession,
  TSettled extends SettledCommit,
> extends ApplyChangeSetOptions<TExtraBody, TSession> {
  /**
   * A refusal decided before anything is stored (private text bound for a shared dir waits for
   * the person): the backing is not called and the outcome is `failed` with this error.
   */
  refusal?: { code: string; message: string };
  /** Where the commit's events go; absent: not traced. */
  trace?: CommitTraceSink;
  /**
   * The caller's bookkeeping once the outcome is known and before the closing event: mark a
   * commit-log record resolved, keep a failed change set, settle an interrupted record. What it
   * returns names the record in the event. A throw propagates (no closing event is emitted).
   */
  settle: (outcome: ApplyOutcome) => Promise<TSettled>;
}

/** What `commitChange` came to. */
export interface CommitChangeResult<TSettled extends SettledCommit> {
  outcome: ApplyOutcome;
  /** The change set's paths and counts, as the events carry them. */
  changes: ChangeSummary;
  settled: TSettled;
}

const untraced: CommitTraceSink = { clock: { now: () => new Date() }, emit: () => undefined };

/**
 * The commit engine: every change that reaches a dir goes through here — a turn's after-turn
 * commit and `commitManual()` (and MCP writes, which are turns), `retryCommit` /
 * `resolveConflict` (a person's Retry, the automatic retry job, recovery of spooled change
 * sets and interrupted turns) and `commitChangeSet` (the Files editor, restore).
 *
 * It emits `commit.started`, applies the change set with compare-and-swap, rebase and
 * three-way merge (`applyChangeSet`), lets the caller settle the outcome (`settle`), then
 * emits `commit.succeeded`, `commit.conflict` or `commit.failed`. It never throws for a
 * failed store (that is a `failed` outcome); only `settle` may throw.
 */
export async function commitChange<TExtraBody, TSession, TSettled extends SettledCommit>(
  options: CommitChangeOptions<TExtraBody, TSession, TSettled>,
): Promise<CommitChangeResult<TSettled>> {
  const { refusal, trace, settle, ...apply } = options;
  const changes = summarizeChanges(options.changes);
  const context: CommitTraceContext = {
    ...(trace ?? untraced),
    harnessDir: options.dir.harnessDir,
    mode: options.dir.mode,
    changes,
  };
  traceCommitStarted(context);
  const outcome: ApplyOutcome = refusal
    ? { status: "failed", error: refusal, cause: undefined }
    : await applyChangeSet(apply);
  const settled = await settle(outcome);
  const { commitId } = settled;
  if (outcome.status === "stored" || outcome.status === "already-applied") {
    traceCommitSucceeded(context, { cursor: outcome.cursor, merged: mergedOf(outcome) });
  } else if (outcome.status === "conflict") {
    traceCommitConflicted(context, { ...outcome, commitId });
  } else {
    traceCommitFailed(context, { error: settled.error ?? outcome.error, commitId });
  }
  return { outcome, changes, settled };
}

/** Whether a stored change was merged with others (one the backing already held counts). */
export function mergedOf(
  outcome: Extract<ApplyOutcome, { status: "stored" | "already-applied" }>,
): boolean {
  return outcome.status === "already-applied" || outcome.merged;
}
