import {
  HarnessConflictError,
  HarnessError,
  HarnessForbiddenError,
  HarnessNotFoundError,
} from "../errors";
import { loadCurrent } from "./commit-engine";
import { systemClock } from "./system-clock";
import { PRIVATE_TO_SHARED, type CommitLog, type CommitRecord } from "./commit-log";
import { resolvePersistentDirs, type ResolvedPersistentDir } from "./define-persistent-dirs";
import {
  DEFAULT_RETRY_POLICY,
  nextAttemptAt,
  turnCommitId,
  type CommitSpool,
  type RetryPolicy,
  type SpoolItem,
  type TurnJournal,
  type TurnJournalEntry,
} from "./durability";
import { describeError } from "../errors";
import { isEmptyChangeSet, rebaseChanges } from "./internal/merge";
import { retryCommit } from "./retry-commit";
import type { Clock, PersistentDir } from "./types";

/** What one `drainSpool` pass did. */
export interface DrainSpoolResult {
  imported: number;
  /** Items still in the spool (the pass stopped at the first one the database refused). */
  remaining: number;
  /** The error that stopped the pass, when one did. */
  error: { code: string; message: string } | null;
}

/**
 * Moves spooled items into the database, oldest first: a spooled commit becomes a `failed`
 * commit record due for an automatic retry (appended under its stable id, so importing twice —
 * or two processes at once — stores one record); a journal checkpoint is written to the journal
 * (a newer revision always wins); a journal discard discards. Each item is removed from the
 * spool only after the database accepted it. Stops at the first failure (the database is still
 * away) and leaves the rest for the next pass. Run it at start and on a timer.
 */
export async function drainSpool(options: {
  spool: CommitSpool;
  commitLog: CommitLog;
  journal?: TurnJournal;
  clock?: Clock;
  abortSignal?: AbortSignal;
}): Promise<DrainSpoolResult> {
  const clock = options.clock ?? systemClock;
  const items = await options.spool.list();
  let imported = 0;
  for (const item of items) {
    try {
      options.abortSignal?.throwIfAborted();
      await importItem(item, options, clock);
      await options.spool.remove({ id: item.id });
      imported += 1;
    } catch (error) {
      return { imported, remaining: items.length - imported, error: describeError(error) };
    }
  }
  return { imported, remaining: 0, error: null };
}

async function importItem(
  item: SpoolItem,
  options: { commitLog: CommitLog; journal?: TurnJournal; abortSignal?: AbortSignal },
  clock: Clock,
): Promise<void> {
  const { abortSignal } = options;
  if (item.kind === "commit") {
    // A change set held for the person's confirmation is never retried by itself.
    const held = item.commit.error?.code === PRIVATE_TO_SHARED;
    const retryAt = held ? null : (item.commit.nextAttemptAt ?? clock.now());
    const record = await options.commitLog.appendCommit({
      commit: { ...item.commit, nextAttemptAt: retryAt },
      abortSignal,
    });
    // A dead instance's turn was closed as interrupted before its spool came back: the turn in
    // fact completed, so its change set is retried automatically instead of waiting for a person
    // (or, when it was held, waits for the person's confirmation with the reason why).
    if (record.status === "interrupted" && item.commit.status === "failed") {
      await options.commitLog.updateCommit({
        id: record.id,
        patch: { status: "failed", error: item.commit.error, nextAttemptAt: retryAt },
        abortSignal,
      });
    }
    return;
  }
  if (!options.journal) return;
  if (item.kind === "journal") await options.journal.write({ entry: item.entry, abortSignal });
  else await options.journal.discard({ turnId: item.turnId, abortSignal });
}

/** What recovering one dead turn came to. */
export interface RecoverTurnResult {
  /** `interrupted` records now holding the turn's changes (new or already there). */
  records: CommitRecord[];
  /** Dirs whose journaled changes the backing already held (the commit landed before the crash). */
  alreadyApplied: string[];
}

/** The error of an `interrupted` record. */
export const INTERRUPTED_ERROR = {
  code: "interrupted:turn",
  message:
    "This turn was interrupted before it finished (the server stopped); nothing from it was saved. Apply its changes or discard them.",
} as const;

/**
 * Turns the journal of a turn that will never finish (its process died; the host decided that,
 * e.g. by an expired lease) into `interrupted` commit records — one per dir with a non-empty
 * change set, under the turn's stable record id — then discards the journal. Nothing is
 * committed: a person applies or discards them. A dir whose backing already holds every change
 * (the commit landed just before the crash) gets no record. Idempotent: running it twice, or on
 * two instances at once, leaves one record per dir. Throws when the database does not answer
 * (the journal is kept for the next attempt).
 */
export async function recoverInterruptedTurn<TExtraBody, TSession>(options: {
  turnId: string;
  journal: TurnJournal;
  commitLog: CommitLog;
  dirs: readonly PersistentDir<TExtraBody, TSession>[];
  abortSignal?: AbortSignal;
}): Promise<RecoverTurnResult> {
  const { turnId, journal, commitLog, abortSignal } = options;
  const dirs = resolvePersistentDirs({ dirs: options.dirs });
  const entries = await journal.listEntries({ turnId, abortSignal });
  const records: CommitRecord[] = [];
  const alreadyApplied: string[] = [];
  for (const entry of entries) {
    if (isEmptyChangeSet(entry.changes)) continue;
    const id = turnCommitId({ turnId, harnessDir: entry.harnessDir });
    const existing = await commitLog.getCommit({ id, abortSignal });
    if (existing) {
      records.push(existing);
      continue;
    }
    const dir = dirs.find((candidate) => candidate.harnessDir === entry.harnessDir);
    const landed = async () =>
      dir !== undefined && (await changesAlreadyIn({ dir, entry, abortSignal }));
    if (await landed()) {
      alreadyApplied.push(entry.harnessDir);
      continue;
    }
    records.push(
      await commitLog.appendCommit({
        commit: {
          id,
          turnId,
          harnessDir: entry.harnessDir,
          mode: entry.mode,
          status: "interrupted",
          owner: entry.owner,
          changes: entry.changes,
          baseCursor: entry.baseCursor,
          base: entry.base,
          extraBody: entry.extraBody,
          session: entry.session,
          error: { ...INTERRUPTED_ERROR },
          conflicts: [],
          attempts: 0,
          nextAttemptAt: null,
        },
        abortSignal,
      }),
    );
    // The turn's own process may still have been committing (its lease ran out during a
    // database outage): if the change landed meanwhile, the record is settled, not listed. The
    // commit path settles it too when it lands later (`settleInterruptedRecord`).
    if (await landed()) {
      records.pop();
      alreadyApplied.push(entry.harnessDir);
      await commitLog
        .markResolved({ id, resolution: "already-applied", abortSignal })
        .catch((error: unknown) => {
          if (!HarnessError.isInstance(error) || !error.code.startsWith("conflict:")) throw error;
        });
    }
  }
  await journal.discard({ turnId, abortSignal });
  return { records, alreadyApplied };
}

/** What one retry sweep did. */
export interface RetrySweepResult {
  claimed: number;
  succeeded: number;
  /** Failed again; a later attempt is scheduled. */
  rescheduled: number;
  /** Failed for the last time, or conflicted: now waiting for a person. */
  needsPerson: number;
}

/**
 * One sweep of automatic retries: claims due `failed` records (`claimDueCommits`, a conditional
 * update, so concurrent sweeps on several instances never take the same record), applies each
 * again with `retryCommit` (compare-and-swap plus the already-applied check, so a change lands
 * once), and reschedules a failure with backoff — or, when the policy's attempts are used up or
 * the retry conflicts, leaves it for a person (`nextAttemptAt` null).
 */
export async function retryDueCommits<TExtraBody, TSession>(options: {
  commitLog: CommitLog;
  dirs: readonly PersistentDir<TExtraBody, TSession>[];
  policy?: RetryPolicy;
  clock?: Clock;
  /** Records per sweep. Default 20. */
  limit?: number;
  /** Only these records (a retry job retries its own record). Default: any due record. */
  ids?: readonly string[];
  /** How long a claim holds before another sweep may take the record. Default 60 s. */
  leaseMs?: number;
  /** Each retried record's outcome (logging). */
  onRetried?: (event: { record: CommitRecord; status: string }) => void;
  abortSignal?: AbortSignal;
}): Promise<RetrySweepResult> {
  const { commitLog, abortSignal } = options;
  const clock = options.clock ?? systemClock;
  const policy = options.policy ?? DEFAULT_RETRY_POLICY;
  const result: RetrySweepResult = { claimed: 0, succeeded: 0, rescheduled: 0, needsPerson: 0 };
  if (!commitLog.claimDueCommits) return result;
  const now = clock.now();
  const claimed = await commitLog.claimDueCommits({
    now,
    leaseUntil: new Date(now.getTime() + (options.leaseMs ?? 60_000)),
    limit: options.limit ?? 20,
    ...(options.ids ? { ids: options.ids } : {}),
    abortSignal,
  });
  result.claimed = claimed.length;
  for (const record of claimed) {
    let status: string;
    try {
      const outcome = await retryCommit({
        id: record.id,
        dirs: options.dirs,
        commitLog,
        clock,
        abortSignal,
      });
      status = outcome.status;
      if (outcome.status === "succeeded") result.succeeded += 1;
      else {
        const next =
          outcome.status === "failed"
            ? nextAttemptAt({ policy, attempts: outcome.record.attempts, now: clock.now() })
            : null;
        await commitLog.updateCommit({
          id: record.id,
          patch: { nextAttemptAt: next },
          abortSignal,
        });
        if (next === null) result.needsPerson += 1;
        else result.rescheduled += 1;
      }
    } catch (error) {
      // Resolved meanwhile (a person or another instance): nothing to do.
      if (HarnessConflictError.isInstance(error) || HarnessNotFoundError.isInstance(error)) {
        status = "gone";
      } else if (HarnessForbiddenError.isInstance(error)) {
        // The dir refuses this change now (read-only, role changed): only a person can decide.
        status = "forbidden";
        result.needsPerson += 1;
        await commitLog
          .updateCommit({
            id: record.id,
            patch: { nextAttemptAt: null, error: describeError(error) },
            abortSignal,
          })
          .catch(() => undefined);
      } else {
        // The database itself failed: the claim's lease expires and a later sweep tries again.
        status = "error";
      }
    }
    try {
      options.onRetried?.({ record, status });
    } catch {
      // Logging never changes the outcome.
    }
  }
  return result;
}

/** True when the dir already holds every change of a journal entry (nothing left to apply). */
async function changesAlreadyIn<TExtraBody, TSession>(options: {
  dir: ResolvedPersistentDir<TExtraBody, TSession>;
  entry: TurnJournalEntry;
  abortSignal?: AbortSignal;
}): Promise<boolean> {
  const { dir, entry, abortSignal } = options;
  const current = await loadCurrent(
    dir,
    { extraBody: entry.extraBody as TExtraBody, session: entry.session as TSession, abortSignal },
    entry.changes,
  );
  const rebased = rebaseChanges({
    changes: entry.changes,
    base: entry.base,
    theirs: current.files,
    snapshot: false,
  });
  return rebased.conflicts.length === 0 && isEmptyChangeSet(rebased.changes);
}
