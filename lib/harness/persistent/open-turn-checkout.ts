// Over 500 lines, knowingly: a turn's checkout lifecycle (open, write, commit per mode, journal,
// spool, log) is one state machine; the commit loop itself lives in internal/apply-commit.ts.
import { HarnessConflictError, HarnessError, HarnessValidationError } from "../errors";
import {
  checkoutDirStates,
  diffDirState,
  loadCheckout,
  snapshotDirState,
  systemClock,
  type Checkout,
  type CheckoutDirState,
  type CheckoutFileInfo,
} from "./checkout";
import {
  PRIVATE_TO_SHARED,
  type CommitLog,
  type CommitRecord,
  type NewCommitRecord,
} from "./commit-log";
import { FailedCommitsQuotaError } from "./failed-commits-quota-error";
import {
  JournalWriteError,
  nextAttemptAt,
  turnCommitId,
  type CommitSpool,
  type RetryPolicy,
  type TurnJournal,
} from "./durability";
import { describeError } from "../errors";
import { applyCommit, type ApplyOutcome } from "./internal/apply-commit";
import { contentByteLength, contentHash, copyContent } from "./internal/content";
import { readHostContent } from "./internal/host-content";
import { changedContent, isEmptyChangeSet } from "./internal/merge";
import { printable } from "./paths";
import { findCopiedText, type CopiedText, type NamedContent } from "./private-copies";
import type {
  ChangeSet,
  ChangeSummary,
  Clock,
  CommitMode,
  DirCommitResult,
  DirCursor,
  FileContent,
  HostFileChange,
  HostFileContent,
  HostWriteCommit,
  PersistenceResult,
  PersistentDir,
  PersistentDirTraceEvent,
} from "./types";

/** Default number of store attempts per commit when the backing keeps moving. */
export const DEFAULT_MAX_COMMIT_ATTEMPTS = 3;

/** What `onPersistenceError` receives for each commit that ended `conflict` or `failed`. */
export interface PersistenceErrorEvent {
  commit: DirCommitResult;
  /** The durable record, or `null` when the commit log itself failed (see `commit.unrecorded`). */
  record: CommitRecord | null;
  /** The underlying error for `failed`; `undefined` for conflicts. */
  error: unknown;
}

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

/**
 * Host-staged file access in the seed's shape (`session.files.write(path, content)`; positional
 * arguments on purpose, to match it). Writes land in this turn's checkout, with the same path
 * checks and size limits as the agent's tools, and are traced (`host.write`, `host.delete`,
 * `host.refused`). How a write can become durable depends on the dir and on when it lands (the
 * result's `commit` says which):
 *
 * - `after-turn` dir, before the commit boundary: committed with the turn's after-turn commit
 *   if the turn completes. The boundary waits for writes started before it.
 * - `manual` dir: committed by `commitManual()` (which waits for writes started before it).
 * - afterwards (an `after-turn` dir after the boundary, a `manual` dir after `commitManual()`,
 *   any dir after a turn that did not complete): kept in this checkout only and discarded when
 *   the next turn loads, by design.
 * - read-only dir (by mode or `canWrite` this turn), a hostile path, a path outside every dir:
 *   refused at once, before any content is read, with `forbidden:dir`, `validation:path` or
 *   `not_found:dir`. Content over the per-file limit is refused with `validation:path` as soon
 *   as the limit is passed. A refused write changes nothing.
 */
export interface SessionFiles {
  /** Creates or replaces a file; `content` may be text, bytes, or a stream of either. */
  write(path: string, content: HostFileContent): Promise<HostFileChange>;
  read(path: string): Promise<FileContent | null>;
  /** Deletes a file; `not_found:path` when there is none. */
  delete(path: string): Promise<HostFileChange>;
  list(path?: string): Promise<CheckoutFileInfo[]>;
}

/** How the model turn ended; only `completed` turns commit. */
export type TurnStatus = "completed" | "aborted" | "failed";

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
  }): CopiedText[];
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

/** The dir, change and trace sink of one commit (a turn's or a retried one), for its events. */
export interface CommitTraceContext {
  harnessDir: string;
  mode: CommitMode;
  changes: ChangeSummary;
  clock: Clock;
  emit: (event: PersistentDirTraceEvent) => void;
}

/** What every event of a commit says: when, and of which dir. */
function commitEventOf(context: CommitTraceContext) {
  const { harnessDir, mode, clock } = context;
  return { at: clock.now().toISOString(), harnessDir, mode };
}

/** Emits a commit's `commit.started` event. */
export function commitStarted(context: CommitTraceContext): void {
  context.emit({ type: "commit.started", ...commitEventOf(context), changes: context.changes });
}

/** Emits a commit's `commit.conflict` event: the clash's message and paths, its record if any. */
export function commitConflicted(
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

/** Emits a commit's `commit.failed` event: the error, its record if any. */
export function commitFailed(
  context: CommitTraceContext,
  { error, commitId }: { error: { code: string; message: string }; commitId?: string },
): void {
  const recorded = commitId !== undefined ? { commitId } : {};
  context.emit({ type: "commit.failed", ...commitEventOf(context), error, ...recorded });
}

/**
 * A commit the backing stored (or already held): emits its `commit.succeeded` event and
 * returns what a succeeded result says of it (for a turn's commit and a retried one alike).
 */
export function commitSucceeded(
  outcome: Extract<ApplyOutcome, { status: "stored" | "already-applied" }>,
  context: CommitTraceContext,
): { status: "succeeded"; cursor: DirCursor; merged: boolean; changes: ChangeSummary } {
  const { cursor } = outcome;
  const { changes } = context;
  const merged = outcome.status === "already-applied" || outcome.merged;
  context.emit({ type: "commit.succeeded", ...commitEventOf(context), cursor, merged, changes });
  return { status: "succeeded", cursor, merged, changes };
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
  const maxAttempts = options.maxCommitAttempts ?? DEFAULT_MAX_COMMIT_ATTEMPTS;
  let finished: TurnStatus | null = null;
  let manualCommitted = false;

  // Private text a `shared` dir's change must not carry without the person's word: what the
  // turn's `private` dirs held at load, and what the turn wrote there (docs/decisions/0031).
  const privateStates = states.filter((state) => state.dir.definition.audience === "private");
  const privateSources = (): NamedContent[] => {
    const sources: NamedContent[] = [];
    for (const state of privateStates) {
      const named = (path: string, content: FileContent) => ({
        path: `${state.dir.harnessDir}/${path}`,
        content,
      });
      for (const [path, content] of state.base) sources.push(named(path, content));
      for (const path of state.touched) {
        const now = state.files.get(path);
        if (now !== undefined && now !== state.base.get(path)) sources.push(named(path, now));
      }
    }
    return sources;
  };
  /**
   * Why `changes` to `state`'s dir wait for the person, and whose they are then (the private
   * dir's owner, so nobody else sees the copied text); `null` when nothing private is copied.
   */
  const heldForConfirmation = (
    state: CheckoutDirState,
    changes: ChangeSet,
  ): { error: { code: string; message: string }; owner: string | null } | null => {
    if (state.dir.definition.audience !== "shared" || privateStates.length === 0) return null;
    const { harnessDir } = state.dir;
    const copies = findCopiedText({
      written: [...changes.created, ...changes.updated].map((file) => ({
        path: `${harnessDir}/${file.path}`,
        content: file.content,
      })),
      sources: privateSources(),
      already: [...state.base.values()],
    });
    if (copies.length === 0) return null;
    const source = privateStates.find((candidate) =>
      copies[0]!.source.startsWith(`${candidate.dir.harnessDir}/`),
    );
    const listed = copies
      .slice(0, 5)
      .map((copy) => `${printable(copy.path)} holds text from ${printable(copy.source)}`);
    if (copies.length > 5) listed.push(`and ${copies.length - 5} more`);
    return {
      error: {
        code: PRIVATE_TO_SHARED,
        message: `Not saved yet: ${listed.join("; ")}. ${harnessDir} is shared with others, so this change waits for the person to confirm it.`,
      },
      owner: source ? ownerOf(source.dir.definition, options.extraBody) : null,
    };
  };

  const commitDir = async (
    state: CheckoutDirState,
    abortSignal: AbortSignal | undefined,
  ): Promise<DirCommitResult> => {
    const { harnessDir, mode } = state.dir;
    const changes = diffDirState(state);
    const summary = summarizeChanges(changes);
    if (state.readOnly)
      return { harnessDir, mode, status: "skipped", skipReason: "read-only", changes: summary };
    if (isEmptyChangeSet(changes))
      return { harnessDir, mode, status: "skipped", skipReason: "no-changes", changes: summary };
    const commitTrace: CommitTraceContext = { harnessDir, mode, changes: summary, clock, emit };
    commitStarted(commitTrace);
    const base = baseOf(state, changes);
    // Private text bound for a shared dir is not stored: it waits for the person's confirmation.
    const held = heldForConfirmation(state, changes);
    const outcome: ApplyOutcome = held
      ? { status: "failed", error: held.error, cause: undefined }
      : await applyCommit({
          dir: state.dir,
          extraBody: options.extraBody as unknown,
          session: options.session as unknown,
          changes,
          base,
          baseCursor: state.cursor,
          snapshot: snapshotDirState(state),
          maxAttempts,
          abortSignal,
        });
    if (outcome.status === "stored" || outcome.status === "already-applied") {
      if (options.turnId !== undefined) {
        await settleInterruptedRecord({
          commitLog: options.commitLog,
          id: turnCommitId({ turnId: options.turnId, harnessDir }),
          cursor: outcome.cursor,
        });
      }
      return {
        harnessDir,
        mode,
        ...commitSucceeded(outcome, commitTrace),
      };
    }
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
      owner: held ? held.owner : ownerOf(state.dir.definition, options.extraBody),
      changes,
      baseCursor: state.cursor,
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
    if (logError !== undefined) {
      // The commit log shares the database that just failed: keep the change set on local disk
      // until the database answers again (drainSpool).
      if (options.spool) {
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
    }
    const result: DirCommitResult = {
      harnessDir,
      mode,
      status: outcome.status,
      changes: summary,
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
            : { unrecorded: { changes, baseCursor: state.cursor, base } }),
      ...(((record && retryAt !== null) || spooled) && !held ? { retrying: true } : {}),
      ...(spooled ? { spooled: true } : {}),
      ...(held ? { awaitsConfirmation: true } : {}),
    };
    const commitId = record?.id;
    if (outcome.status === "failed") commitFailed(commitTrace, { error: result.error!, commitId });
    else commitConflicted(commitTrace, { message: outcome.message, conflicts, commitId });
    try {
      await options.onPersistenceError?.({
        commit: result,
        record,
        error: outcome.status === "failed" ? outcome.cause : undefined,
      });
    } catch {
      // The hook is for the host's own alerting; its failure changes nothing here.
    }
    return result;
  };

  // Host writes in flight, and the commit running now (finishTurn or commitManual): a commit
  // waits for the writes started before it; a write started during a commit lands after it.
  const inFlight = new Set<Promise<unknown>>();
  let committing: Promise<unknown> = Promise.resolve();
  let afterTurnSealed = false;
  const runCommit = <T>(commit: () => Promise<T>): Promise<T> => {
    const earlier = [...inFlight];
    const run = (async () => {
      await Promise.allSettled(earlier);
      return commit();
    })();
    committing = run.catch(() => undefined);
    return run;
  };
  const commitOf = (mode: CommitMode): HostWriteCommit => {
    if (mode === "after-turn") return afterTurnSealed ? "none" : "after-turn";
    if (mode === "manual") {
      return manualCommitted || (finished !== null && finished !== "completed") ? "none" : "manual";
    }
    return "none";
  };
  const refused = (operation: "write" | "delete", path: unknown, error: unknown): unknown => {
    const { code, message } = HarnessError.isInstance(error)
      ? error
      : {
          code: "failed:host-write",
          message: error instanceof Error ? error.message : String(error),
        };
    emit({
      type: "host.refused",
      at: clock.now().toISOString(),
      operation,
      path: typeof path === "string" ? printable(path) : typeof path,
      error: { code, message },
    });
    return error;
  };
  const hostChange = (
    operation: "write" | "delete",
    path: string,
    apply: (
      target: ReturnType<Checkout["assertWritable"]>,
      wait: Promise<unknown>,
    ) => Promise<HostFileChange>,
  ): Promise<HostFileChange> => {
    let target: ReturnType<Checkout["assertWritable"]>;
    try {
      target = checkout.assertWritable({ path });
    } catch (error) {
      return Promise.reject(refused(operation, path, error));
    }
    const operationPromise = apply(target, committing).catch((error: unknown) => {
      throw refused(operation, path, error);
    });
    inFlight.add(operationPromise);
    void operationPromise.finally(() => inFlight.delete(operationPromise)).catch(() => undefined);
    return operationPromise;
  };

  const journalFingerprints = new Map<string, string>();
  let journalRevision = 0;
  let journalChain: Promise<void> = Promise.resolve();
  const journaled = () =>
    options.journal !== undefined && options.turnId !== undefined
      ? { journal: options.journal, turnId: options.turnId }
      : null;
  const writeCheckpoint = async (abortSignal: AbortSignal | undefined): Promise<void> => {
    const target = journaled();
    if (!target) return;
    for (const state of states) {
      if (state.readOnly || state.dir.mode !== "after-turn") continue;
      const changes = diffDirState(state);
      const fingerprint = JSON.stringify([
        ...changes.created.map((file) => ["c", file.path, contentHash(file.content)]),
        ...changes.updated.map((file) => ["u", file.path, contentHash(file.content)]),
        ...changes.deleted.map((path) => ["d", path]),
      ]);
      const previous = journalFingerprints.get(state.dir.harnessDir) ?? "[]";
      if (fingerprint === previous) continue;
      // A journaled copy of private text is the person's alone, as its commit record would be.
      const held = heldForConfirmation(state, changes);
      const entry = {
        turnId: target.turnId,
        harnessDir: state.dir.harnessDir,
        mode: state.dir.mode,
        owner: held ? held.owner : ownerOf(state.dir.definition, options.extraBody),
        changes,
        baseCursor: state.cursor,
        base: baseOf(state, changes),
        extraBody: options.extraBody as unknown,
        session: options.session as unknown,
        revision: ++journalRevision,
        at: clock.now(),
      };
      try {
        await target.journal.write({ entry, abortSignal });
      } catch (journalError) {
        try {
          if (!options.spool) throw journalError;
          await options.spool.put({ item: { kind: "journal", entry } });
        } catch (spoolError) {
          throw new JournalWriteError({
            message: `The change to ${state.dir.harnessDir} could not be saved durably (journal: ${describeError(journalError).message}; spool: ${describeError(spoolError).message}).`,
            cause: spoolError,
          });
        }
      }
      journalFingerprints.set(state.dir.harnessDir, fingerprint);
    }
  };
  const checkpoint = (abortSignal?: AbortSignal): Promise<void> => {
    const run = journalChain.then(() => writeCheckpoint(abortSignal));
    journalChain = run.catch(() => undefined);
    return run;
  };
  // The turn's change sets all have a durable home now (or were dropped by design): forget the
  // journal, through the spool when the journal does not answer.
  const discardJournal = async (): Promise<void> => {
    const target = journaled();
    if (!target) return;
    await journalChain;
    try {
      await target.journal.discard({ turnId: target.turnId });
    } catch {
      await options.spool
        ?.put({ item: { kind: "journal-discard", turnId: target.turnId } })
        .catch(() => undefined);
    }
  };

  const files: SessionFiles = {
    write: (path, content) =>
      hostChange("write", path, async (target, wait) => {
        const data = await readHostContent({
          content,
          path: target.path,
          maxFileBytes: target.limits.maxFileBytes,
        });
        await wait;
        checkout.writeFile({ path: target.path, content: data });
        await checkpoint();
        const change: HostFileChange = {
          path: target.path,
          harnessDir: target.harnessDir,
          mode: target.mode,
          bytes: contentByteLength(data),
          commit: commitOf(target.mode),
        };
        emit({ type: "host.write", at: clock.now().toISOString(), ...change });
        return change;
      }),
    read: async (path) => checkout.readFile({ path }),
    delete: (path) =>
      hostChange("delete", path, async (target, wait) => {
        await wait;
        checkout.deleteFile({ path: target.path });
        await checkpoint();
        const change: HostFileChange = {
          path: target.path,
          harnessDir: target.harnessDir,
          mode: target.mode,
          bytes: 0,
          commit: commitOf(target.mode),
        };
        emit({ type: "host.delete", at: clock.now().toISOString(), ...change });
        return change;
      }),
    list: async (path) => checkout.listFiles(path === undefined ? {} : { path }),
  };

  return {
    checkout,
    files,
    trace,
    async finishTurn({ status, abortSignal }) {
      if (finished !== null) {
        throw new HarnessConflictError({
          surface: "commit",
          message: "finishTurn() was already called for this turn.",
        });
      }
      finished = status;
      return runCommit(async (): Promise<PersistenceResult> => {
        afterTurnSealed = true;
        if (states.length === 0) return { status: "not-configured" };
        const relevant = states.filter((state) => state.dir.mode !== "manual");
        if (status !== "completed") {
          // By design an unfinished turn commits nothing; its journal goes with it.
          await discardJournal();
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
        await journalChain;
        const commits = await Promise.all(relevant.map((state) => commitDir(state, abortSignal)));
        // Keep the journal while a change set has no durable home: recovery lists it then.
        if (!commits.some((commit) => commit.unrecorded)) await discardJournal();
        return toPersistenceResult(commits);
      });
    },
    checkpoint: (checkpointOptions = {}) => checkpoint(checkpointOptions.abortSignal),
    findPrivateCopies: ({ written, already = [] }) =>
      privateStates.length === 0
        ? []
        : findCopiedText({
            written,
            sources: privateSources(),
            already: [
              ...already,
              ...states
                .filter((state) => state.dir.definition.audience === "shared")
                .flatMap((state) => [...state.base.values()]),
            ],
          }),
    async commitManual(commitOptions = {}) {
      if (finished !== "completed") {
        throw new HarnessConflictError({
          surface: "commit",
          message: 'commitManual() is available only after finishTurn({ status: "completed" }).',
        });
      }
      if (manualCommitted) {
        throw new HarnessConflictError({
          surface: "commit",
          message: "commitManual() was already called for this turn.",
        });
      }
      manualCommitted = true;
      return runCommit(async (): Promise<PersistenceResult> => {
        if (states.length === 0) return { status: "not-configured" };
        const manual = states.filter((state) => state.dir.mode === "manual");
        return toPersistenceResult(
          await Promise.all(manual.map((state) => commitDir(state, commitOptions.abortSignal))),
        );
      });
    },
  };
}

/** The content at the turn's base of every path a change set touches (`null`: absent). */
function baseOf(state: CheckoutDirState, changes: ChangeSet): Record<string, FileContent | null> {
  const base = Object.create(null) as Record<string, FileContent | null>;
  for (const path of changedContent(changes).keys())
    base[path] = copyContent(state.base.get(path) ?? null);
  return base;
}

/** The dir's owner key for this turn, or `null` when it has none or cannot say. */
export function ownerOf<TExtraBody>(
  dir: PersistentDir<TExtraBody, unknown>,
  extraBody: TExtraBody,
): string | null {
  if (!dir.owner) return null;
  try {
    const value = dir.owner({ extraBody });
    return typeof value === "string" ? value : null;
  } catch {
    return null;
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
