import type { CommitLog, CommitRecord } from "../commit-log";
import { diffDirState, snapshotDirState, type CheckoutDirState } from "../checkout-state";
import {
  commitChange,
  keepUnsettledTurnCommit,
  mergedOf,
  summarizeChanges,
  type CommitTraceSink,
} from "../commit-engine";
import { turnCommitId, type CommitSpool, type RetryPolicy } from "../durability";
import { isEmptyChangeSet } from "../internal/merge";
import { describeError } from "../../errors";
import type { DirCommitResult, DirCursor, FileContent } from "../types";
import { baseOf } from "./base-of";
import { ownerOf } from "./owner-of";
import type { PrivateGuard } from "./private-guard";
import type { PersistenceErrorEvent } from "./persistence-error-event";

/** What a turn's commit of one dir needs from the turn. */
export interface TurnCommitContext {
  extraBody: unknown;
  session: unknown;
  commitLog: CommitLog;
  spool?: CommitSpool;
  retryPolicy?: RetryPolicy;
  turnId?: string;
  maxAttempts: number;
  trace: CommitTraceSink;
  guard: PrivateGuard;
  onPersistenceError?: (event: PersistenceErrorEvent) => void | Promise<void>;
  /** Why the turn made its changes (the agent's words), for a dir's `suggest`. */
  note?: string;
}

/** What `keepUnsettledTurnCommit` takes from the turn, for either way a turn's commit is kept. */
function keptFromTurn(context: TurnCommitContext) {
  return {
    extraBody: context.extraBody,
    session: context.session,
    turnId: context.turnId,
    commitLog: context.commitLog,
    spool: context.spool,
    retryPolicy: context.retryPolicy,
    clock: context.trace.clock,
  };
}

/**
 * Commits one dir of a turn (after-turn at the boundary, or manual through `commitManual()`)
 * through the commit engine: skipped when read-only or unchanged; held for the person when it
 * copies private text into a shared dir; otherwise stored, and when it does not land, kept
 * (`keepUnsettledTurnCommit`) and reported to `onPersistenceError`.
 */
export async function commitTurnDir(
  state: CheckoutDirState,
  context: TurnCommitContext,
  abortSignal: AbortSignal | undefined,
): Promise<DirCommitResult> {
  const { harnessDir, mode } = state.dir;
  const changes = diffDirState(state);
  const summary = summarizeChanges(changes);
  if (state.readOnly)
    return { harnessDir, mode, status: "skipped", skipReason: "read-only", changes: summary };
  if (isEmptyChangeSet(changes))
    return { harnessDir, mode, status: "skipped", skipReason: "no-changes", changes: summary };
  const base = await baseOf(state, changes);
  if (state.suggestOnly) return suggestTurnDir(state, context, { changes, summary, base });
  // Private text bound for a shared dir is not stored: it waits for the person's confirmation.
  const held = await context.guard.heldForConfirmation(state, changes);
  const { outcome, settled } = await commitChange({
    dir: state.dir,
    extraBody: context.extraBody,
    session: context.session,
    changes,
    base,
    baseCursor: state.cursor,
    atBase: { snapshot: snapshotDirState(state) },
    maxAttempts: context.maxAttempts,
    abortSignal,
    refusal: held?.error,
    trace: context.trace,
    settle: async (
      outcome,
    ): Promise<{
      result: DirCommitResult;
      record: CommitRecord | null;
      commitId?: string;
      error?: { code: string; message: string };
    }> => {
      if (outcome.status === "stored" || outcome.status === "already-applied") {
        if (context.turnId !== undefined) {
          await settleInterruptedRecord({
            commitLog: context.commitLog,
            id: turnCommitId({ turnId: context.turnId, harnessDir }),
            cursor: outcome.cursor,
          });
        }
        const { cursor } = outcome;
        const merged = mergedOf(outcome);
        return {
          result: { harnessDir, mode, status: "succeeded", cursor, merged, changes: summary },
          record: null,
        };
      }
      const kept = await keepUnsettledTurnCommit({
        outcome,
        harnessDir,
        mode,
        changes,
        summary,
        base,
        baseCursor: state.cursor,
        owner: held ? held.owner : ownerOf(state.dir.definition, context.extraBody),
        held: held !== null,
        ...keptFromTurn(context),
      });
      return { ...kept, commitId: kept.record?.id, error: kept.result.error };
    },
  });
  if (outcome.status === "conflict" || outcome.status === "failed") {
    try {
      await context.onPersistenceError?.({
        commit: settled.result,
        record: settled.record,
        error: outcome.status === "failed" ? outcome.cause : undefined,
      });
    } catch {
      // The hook is for the host's own alerting; its failure changes nothing here.
    }
  }
  return settled.result;
}

/**
 * A dir this turn could not write but which takes suggestions: the change set goes to the
 * dir's `suggest` (the host's review queue), never to its store. A `suggest` that throws does
 * not lose the change: it is kept in the commit log (or the spool) like a failed commit, held
 * for a person — never retried automatically, since a retry would store it — and reported to
 * `onPersistenceError`.
 */
async function suggestTurnDir(
  state: CheckoutDirState,
  context: TurnCommitContext,
  proposal: {
    changes: ReturnType<typeof diffDirState>;
    summary: DirCommitResult["changes"];
    base: Record<string, FileContent | null>;
  },
): Promise<DirCommitResult> {
  const { harnessDir, mode } = state.dir;
  const suggest = state.dir.definition.suggest!;
  try {
    const { id } = await suggest({
      extraBody: context.extraBody,
      session: context.session,
      harnessDir,
      changes: proposal.changes,
      base: proposal.base,
      baseCursor: state.cursor,
      ...(context.turnId === undefined ? {} : { turnId: context.turnId }),
      ...(context.note ? { note: context.note } : {}),
    });
    return {
      harnessDir,
      mode,
      status: "suggested",
      suggestionId: id,
      changes: proposal.summary,
    };
  } catch (cause) {
    const error = {
      code: "failed:suggestion",
      message: `The suggestion could not be recorded (${describeError(cause).message}); the change is kept here instead.`,
    };
    const kept = await keepUnsettledTurnCommit({
      outcome: { status: "failed", error, cause },
      harnessDir,
      mode,
      changes: proposal.changes,
      summary: proposal.summary,
      base: proposal.base,
      baseCursor: state.cursor,
      owner: ownerOf(state.dir.definition, context.extraBody),
      held: true,
      ...keptFromTurn(context),
    });
    // Held so it is never retried into the store, but it waits on Commit failures, not on the
    // private-text confirmation (which would store it).
    const { awaitsConfirmation: _held, ...result } = kept.result;
    void _held;
    try {
      await context.onPersistenceError?.({ commit: result, record: kept.record, error: cause });
    } catch {
      // The hook is for the host's own alerting; its failure changes nothing here.
    }
    return result;
  }
}

/**
 * A turn whose lease ran out while its process was still alive (a database outage stops the
 * lease from being renewed) may have been closed as interrupted, and its journal listed as an
 * `interrupted` record, just before its own commit landed. The change is in the dir now: close
 * that record as already applied, so nobody applies it twice. Best effort — recovery checks the
 * dir again after listing a record, which closes the other order of the race.
 */
async function settleInterruptedRecord(options: {
  commitLog: CommitLog;
  id: string;
  cursor: DirCursor | null;
}): Promise<void> {
  try {
    const existing = await options.commitLog.getCommit({ id: options.id });
    if (existing?.status !== "interrupted" || existing.resolution !== null) return;
    await options.commitLog.markResolved({
      id: options.id,
      resolution: "already-applied",
      cursor: options.cursor,
    });
  } catch {
    // The record stays listed; recovery's own check or a person settles it.
  }
}
