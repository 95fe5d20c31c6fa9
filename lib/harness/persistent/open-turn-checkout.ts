// A turn's persistent-dir lifecycle: load the checkout, take host writes, journal, and commit at
// the boundary. The parts live in turn-checkout/ (host writes, journal, private-text guard, the
// commit of one dir) and every commit runs through the commit engine (commit-engine/).
import { HarnessConflictError } from "../errors";
import type { Checkout } from "./checkout";
import { checkoutDirStates, diffDirState } from "./checkout-state";
import type { CommitLog } from "./commit-log";
import {
  DEFAULT_MAX_COMMIT_ATTEMPTS,
  summarizeChanges,
  toPersistenceResult,
} from "./commit-engine";
import type { CommitSpool, RetryPolicy, TurnJournal } from "./durability";
import { loadCheckout } from "./load-checkout";
import type { CopiedText, NamedContent } from "./private-copies";
import { systemClock } from "./system-clock";
import { commitTurnDir, type TurnCommitContext } from "./turn-checkout/commit-turn-dir";
import type { PersistenceErrorEvent } from "./turn-checkout/persistence-error-event";
import { createPrivateGuard } from "./turn-checkout/private-guard";
import {
  CommitBoundary,
  createSessionFiles,
  type SessionFiles,
  type TurnStatus,
} from "./turn-checkout/session-files";
import { createTurnJournalWriter } from "./turn-checkout/turn-journal-writer";
import type {
  Clock,
  FileContent,
  PersistenceResult,
  PersistentDir,
  PersistentDirTraceEvent,
} from "./types";

export type { PersistenceErrorEvent, SessionFiles, TurnStatus };

/** Options for `openTurnCheckout`. */
export interface OpenTurnCheckoutOptions<TExtraBody, TSession> {
  dirs: readonly PersistentDir<TExtraBody, TSession>[];
  /** Per-turn host data (the server-derived Actor). Recorded on failed commits: keep it JSON-serialisable. */
  extraBody: TExtraBody;
  /** The chat. Recorded on failed commits: keep it JSON-serialisable. */
  session: TSession;
  /** Where failed and conflicting commits are kept so nothing is lost. */
  commitLog: CommitLog;
  /** Default: the system clock. */
  clock?: Clock;
  /** Receives every trace event as it happens (they are also collected on `trace`). */
  onTrace?: (event: PersistentDirTraceEvent) => void;
  /** Fires once per commit that ended `conflict` or `failed`. Errors it throws are ignored. */
  onPersistenceError?: (event: PersistenceErrorEvent) => void | Promise<void>;
  /** Store attempts per commit when the backing moved (each re-loads and merges). Default 3. */
  maxCommitAttempts?: number;
  /** Aborts loading. Commits take their own signal. */
  abortSignal?: AbortSignal;
  /**
   * The host's id of this turn. With it, a failed commit's record gets the stable id
   * `turnCommitId({ turnId, harnessDir })`, and `journal` entries are keyed by it.
   */
  turnId?: string;
  /**
   * Where `checkpoint()` journals the turn's change sets as they happen, so a crash loses
   * nothing a tool reported as written (needs `turnId`). Absent: no journal.
   */
  journal?: TurnJournal;
  /**
   * The durable local fallback: journal checkpoints the journal refused, and completed turns'
   * change sets the commit log could not record, go here and reach the database later
   * (`drainSpool`). Absent: such a change set is only returned as `unrecorded`.
   */
  spool?: CommitSpool;
  /**
   * With a policy, a `failed` (not conflicting) commit is recorded with `nextAttemptAt` so it is
   * retried automatically (`retryDueCommits`); absent: it waits for a person. A commit the dir
   * refused as invalid (a `validation` error: a limit or quota it would pass) waits for a person
   * either way — the same change set would be refused again.
   */
  retryPolicy?: RetryPolicy;
}

/** One turn's persistent-dir lifecycle: the checkout, then the commit boundary. */
export interface TurnCheckout {
  /** The isolated checkout the agent's tools work on. */
  checkout: Checkout;
  /** Host-staged writes into the checkout (see `SessionFiles`). */
  files: SessionFiles;
  /** Every trace event so far, in order. */
  readonly trace: readonly PersistentDirTraceEvent[];
  /**
   * The commit boundary. For a `completed` turn, commits every `after-turn` dir with a
   * non-empty change set (in parallel; one failing never stops another); empty change sets,
   * read-only dirs and `manual` dirs are not stored. For `aborted`/`failed` turns nothing is
   * stored (the partial work is discarded at the next turn start). Callable once; a second
   * call throws `conflict:commit`. `manual` dirs do not appear in the result.
   */
  finishTurn(options: {
    status: TurnStatus;
    abortSignal?: AbortSignal;
    /** Why the turn changed what it did (the agent's words): handed to a dir's `suggest`. */
    note?: string;
  }): Promise<PersistenceResult>;
  /**
   * Journals the change set of every writable `after-turn` dir that changed since the last
   * checkpoint: to the journal, or to the spool when the journal fails. Resolves once it is
   * durable; throws `failed:journal` when neither accepted it. Calls are serialised. A no-op
   * without a journal. Call it after every tool call (the runtime does) and host write.
   */
  checkpoint(options?: { abortSignal?: AbortSignal }): Promise<void>;
  /**
   * Commits the `manual` dirs (only those) with what the checkout holds now, host-staged
   * writes included. Available once, after `finishTurn({ status: "completed" })`; call it
   * before the next turn starts. Otherwise throws `conflict:commit`. With no manual dirs the
   * result is `succeeded` with no commits.
   */
  commitManual(options?: { abortSignal?: AbortSignal }): Promise<PersistenceResult>;
  /**
   * Which of `written` hold text of this turn's `private` dirs (as loaded, and as the turn left
   * them) that is not in `already` nor in any `shared` dir as loaded: the check a shared dir's
   * commit makes, for other shared places (global harness entries). Empty without private dirs.
   */
  findPrivateCopies(options: {
    written: readonly NamedContent[];
    already?: readonly FileContent[];
  }): Promise<CopiedText[]>;
}

/**
 * Starts a turn's persistent-dir lifecycle: loads every dir into an isolated checkout (see
 * `loadCheckout`; uncommitted leftovers of earlier checkouts are not seen), then hands back the
 * checkout, host-staged `files`, and the commit boundary (`finishTurn`, `commitManual`).
 *
 * A commit that conflicts or fails is appended to `commitLog` with its full change set, base
 * content and base cursor, reported in the result and trace, and passed to
 * `onPersistenceError` — never to the model. One exception: a commit the dir refused as invalid
 * (a `validation` error, which would refuse it again as it is) is appended `bounded`, and a log
 * whose bound its owner's open records already hold declines it — the result is then `failed`
 * with `notKept` and an error saying both why it was refused and why it was not kept. Conflicts are first resolved automatically where
 * possible: the change set is rebased onto the backing's current state, merging text files both
 * sides changed with diff3.
 *
 * @example
 * const turn = await openTurnCheckout({ dirs, extraBody: { actor }, session: chat, commitLog });
 * // … run the model with tools over turn.checkout …
 * const persistence = await turn.finishTurn({ status: "completed" });
 */
export async function openTurnCheckout<TExtraBody, TSession>(
  options: OpenTurnCheckoutOptions<TExtraBody, TSession>,
): Promise<TurnCheckout> {
  const clock = options.clock ?? systemClock;
  const trace: PersistentDirTraceEvent[] = [];
  const emit = (event: PersistentDirTraceEvent): void => {
    trace.push(event);
    try {
      options.onTrace?.(event);
    } catch {
      // A broken trace sink must not break the turn or its commits.
    }
  };
  const checkout = await loadCheckout({
    dirs: options.dirs,
    extraBody: options.extraBody,
    session: options.session,
    clock,
    onTrace: emit,
    abortSignal: options.abortSignal,
  });
  const states = [...checkoutDirStates(checkout).values()];
  const guard = createPrivateGuard({ states, extraBody: options.extraBody });
  const journal = createTurnJournalWriter({
    states,
    journal: options.journal,
    spool: options.spool,
    turnId: options.turnId,
    extraBody: options.extraBody,
    session: options.session,
    clock,
    guard,
  });
  const boundary = new CommitBoundary();
  const commitContext: TurnCommitContext = {
    extraBody: options.extraBody,
    session: options.session,
    commitLog: options.commitLog,
    spool: options.spool,
    retryPolicy: options.retryPolicy,
    turnId: options.turnId,
    maxAttempts: options.maxCommitAttempts ?? DEFAULT_MAX_COMMIT_ATTEMPTS,
    trace: { clock, emit },
    guard,
    onPersistenceError: options.onPersistenceError,
  };
  const files = createSessionFiles({
    checkout,
    boundary,
    checkpoint: () => journal.checkpoint(),
    emit,
    clock,
  });

  return {
    checkout,
    files,
    trace,
    async finishTurn({ status, abortSignal, note }) {
      if (boundary.finished !== null) {
        throw new HarnessConflictError({
          surface: "commit",
          message: "finishTurn() was already called for this turn.",
        });
      }
      boundary.finished = status;
      return boundary.run(async (): Promise<PersistenceResult> => {
        boundary.afterTurnSealed = true;
        if (states.length === 0) return { status: "not-configured" };
        const relevant = states.filter((state) => state.dir.mode !== "manual");
        if (status !== "completed") {
          // By design an unfinished turn commits nothing; its journal goes with it.
          await journal.discard();
          return toPersistenceResult(
            relevant.map((state) => ({
              harnessDir: state.dir.harnessDir,
              mode: state.dir.mode,
              status: "skipped",
              skipReason: state.readOnly ? "read-only" : "turn-not-completed",
              changes: summarizeChanges(diffDirState(state)),
            })),
          );
        }
        await journal.settled();
        const commits = await Promise.all(
          relevant.map((state) => commitTurnDir(state, { ...commitContext, note }, abortSignal)),
        );
        // Keep the journal while a change set has no durable home: recovery lists it then.
        if (!commits.some((commit) => commit.unrecorded)) await journal.discard();
        return toPersistenceResult(commits);
      });
    },
    checkpoint: (checkpointOptions = {}) => journal.checkpoint(checkpointOptions.abortSignal),
    findPrivateCopies: (copyOptions) => guard.findPrivateCopies(copyOptions),
    async commitManual(commitOptions = {}) {
      if (boundary.finished !== "completed") {
        throw new HarnessConflictError({
          surface: "commit",
          message: 'commitManual() is available only after finishTurn({ status: "completed" }).',
        });
      }
      if (boundary.manualCommitted) {
        throw new HarnessConflictError({
          surface: "commit",
          message: "commitManual() was already called for this turn.",
        });
      }
      boundary.manualCommitted = true;
      return boundary.run(async (): Promise<PersistenceResult> => {
        if (states.length === 0) return { status: "not-configured" };
        const manual = states.filter((state) => state.dir.mode === "manual");
        return toPersistenceResult(
          await Promise.all(
            manual.map((state) => commitTurnDir(state, commitContext, commitOptions.abortSignal)),
          ),
        );
      });
    },
  };
}
