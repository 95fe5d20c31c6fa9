import { describeError, HarnessValidationError } from "../../errors";
import type { CommitLog, CommitRecord, NewCommitRecord } from "../commit-log";
import { nextAttemptAt, turnCommitId, type CommitSpool, type RetryPolicy } from "../durability";
import { FailedCommitsQuotaError } from "../failed-commits-quota-error";
import type {
  ChangeSet,
  ChangeSummary,
  Clock,
  CommitMode,
  DirCommitResult,
  DirCursor,
  FileContent,
} from "../types";
import type { ApplyOutcome } from "./apply-change-set";

/** A turn's commit that did not land, and where the turn keeps such commits. */
export interface KeepUnsettledTurnCommitOptions {
  outcome: Extract<ApplyOutcome, { status: "conflict" | "failed" }>;
  harnessDir: string;
  mode: CommitMode;
  changes: ChangeSet;
  summary: ChangeSummary;
  base: Record<string, FileContent | null>;
  baseCursor: DirCursor;
  /** Whose record it is (the dir's owner, or the private dir's for held private text). */
  owner: string | null;
  /** Held for the person's confirmation (private text bound for a shared dir): never retried. */
  held: boolean;
  extraBody: unknown;
  session: unknown;
  turnId?: string;
  commitLog: CommitLog;
  spool?: CommitSpool;
  retryPolicy?: RetryPolicy;
  clock: Clock;
}

/**
 * Gives a turn's failed or conflicting commit a durable home, so nothing is lost: the commit
 * log (under `turnCommitId` when the turn has an id), with `nextAttemptAt` when it is retried
 * automatically; the local spool when the log does not answer; and otherwise hands the change
 * set back as `unrecorded`. A refusal that would repeat as it is (a `validation` error) is
 * appended `bounded` and never retried automatically; a log whose bound is full declines it
 * (`notKept`). Returns the turn's result for the dir and the record, if one was written.
 */
export async function keepUnsettledTurnCommit(
  options: KeepUnsettledTurnCommitOptions,
): Promise<{ result: DirCommitResult; record: CommitRecord | null }> {
  const { outcome, harnessDir, mode, changes, base, baseCursor, held, clock } = options;
  const error =
    outcome.status === "failed"
      ? outcome.error
      : { code: "conflict:commit", message: outcome.message };
  const conflicts = outcome.status === "conflict" ? outcome.conflicts : [];
  let record: CommitRecord | null = null;
  let logError: unknown;
  let notKept: FailedCommitsQuotaError | null = null;
  let spooled = false;
  // The same change set would be refused again as it is: no automatic retry, and the commit
  // log may decline to keep it when its owner's open records already hold their bound.
  const refusal =
    outcome.status === "failed" && !held && HarnessValidationError.isInstance(outcome.cause);
  const retryAt =
    outcome.status === "failed" && options.retryPolicy && !held && !refusal
      ? nextAttemptAt({ policy: options.retryPolicy, attempts: 1, now: clock.now() })
      : null;
  const newRecord: NewCommitRecord = {
    ...(options.turnId === undefined
      ? {}
      : { id: turnCommitId({ turnId: options.turnId, harnessDir }), turnId: options.turnId }),
    harnessDir,
    mode,
    status: outcome.status,
    owner: options.owner,
    changes,
    baseCursor,
    base,
    extraBody: options.extraBody,
    session: options.session,
    error,
    conflicts,
    attempts: held ? 0 : 1,
    nextAttemptAt: retryAt,
  };
  try {
    record = await options.commitLog.appendCommit({ commit: newRecord, bounded: refusal });
  } catch (caught) {
    if (FailedCommitsQuotaError.isInstance(caught)) {
      // Declined by the log's bound: not spooled either (the spool would keep it past the
      // bound), and nothing is left for the journal to recover.
      notKept = caught;
    } else logError = caught;
  }
  if (logError !== undefined && options.spool) {
    // The commit log shares the database that just failed: keep the change set on local disk
    // until the database answers again (drainSpool).
    try {
      await options.spool.put({
        item: {
          kind: "commit",
          commit: {
            ...newRecord,
            id: newRecord.id ?? `spool:${crypto.randomUUID()}`,
            // Retried automatically once imported, whatever the policy here (a change set
            // held for confirmation keeps waiting: drainSpool reads its error code).
            status: "failed",
            nextAttemptAt: null,
          },
        },
      });
      spooled = true;
    } catch {
      // Both failed: the change set is handed back as `unrecorded`, and the journal keeps it.
    }
  }
  const result: DirCommitResult = {
    harnessDir,
    mode,
    status: outcome.status,
    changes: options.summary,
    error: notKept
      ? { code: error.code, message: `${error.message} ${notKept.message}` }
      : logError === undefined
        ? error
        : {
            code: error.code,
            message: spooled
              ? `${error.message} (the commit log did not answer either: the change set is kept on the server and retried when the database is back)`
              : `${error.message} (and the commit log failed: ${describeError(logError).message})`,
          },
    ...(record
      ? { commitId: record.id }
      : spooled
        ? {}
        : notKept
          ? { notKept: true }
          : { unrecorded: { changes, baseCursor, base } }),
    ...(((record && retryAt !== null) || spooled) && !held ? { retrying: true } : {}),
    ...(spooled ? { spooled: true } : {}),
    ...(held ? { awaitsConfirmation: true } : {}),
  };
  return { result, record };
}
