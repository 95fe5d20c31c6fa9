import type { ChangeSet, CommitMode, DirCursor, FileContent } from "./types";

/** A file both sides changed incompatibly; every version is kept for a person to decide. */
export interface FileConflict {
  /** Relative to the record's `harnessDir`. */
  path: string;
  reason: "both-modified" | "both-created" | "modify-delete" | "binary";
  /** Content when the turn loaded the dir (`null`: the file did not exist). */
  base: FileContent | null;
  /** This commit's version (`null`: this commit deletes it). */
  ours: FileContent | null;
  /** The backing's current version (`null`: deleted there). */
  theirs: FileContent | null;
  /** For text both sides modified: the diff3 merge with `<<<<<<<` markers, to edit by hand. */
  markers?: string;
}

/**
 * `open` records (`failed`, `conflict`, `interrupted`) wait for a retry or a person; `resolved`
 * ones are kept as history. `interrupted`: the journaled changes of a turn that never finished
 * (its process died); they were not committed and wait for a person to apply or discard them.
 */
export type CommitRecordStatus = "failed" | "conflict" | "interrupted" | "resolved";

/** The statuses `open` stands for in listings. */
export const OPEN_COMMIT_STATUSES = ["failed", "conflict", "interrupted"] as const;

/** How an open record was closed. `discarded`: a person chose not to apply it. */
export type CommitResolution =
  "retried" | "ours" | "theirs" | "edited" | "already-applied" | "discarded";

/**
 * The error code of a turn's change set to a `shared` dir that was held, not committed, because
 * it copies text of the person's `private` dir (docs/decisions/0031). Such a record is `failed`
 * with no automatic retry, owned by the private dir's owner (only that person sees and confirms
 * it); confirming it is a retry (`retryCommit`), discarding it `markResolved("discarded")`.
 */
export const PRIVATE_TO_SHARED = "confirm:private-to-shared";

/** Whether `record` is an open change set held for the person's confirmation. */
export function awaitsConfirmation(record: Pick<CommitRecord, "status" | "error">): boolean {
  return record.status === "failed" && record.error?.code === PRIVATE_TO_SHARED;
}

/**
 * A durable record of one commit that did not succeed: everything needed to apply it again
 * after a restart — the full change set, the base content of every changed path and the cursor
 * it was computed against.
 */
export interface CommitRecord {
  id: string;
  harnessDir: string;
  mode: CommitMode;
  status: CommitRecordStatus;
  /** Owner key from `PersistentDir.owner` (e.g. user or workspace id), or `null`. */
  owner: string | null;
  /** The change set relative to `baseCursor`. */
  changes: ChangeSet;
  /** The cursor the change set was computed against. */
  baseCursor: DirCursor;
  /** Content at `baseCursor` of every path in `changes` (`null`: absent then). Needed to three-way merge. */
  base: Record<string, FileContent | null>;
  /** The turn's `extraBody` and `session`, so a retry after a restart can load and store. Must be JSON-serialisable. */
  extraBody: unknown;
  session: unknown;
  /** The last error (for `failed`) or conflict message (for `conflict`). */
  error: { code: string; message: string } | null;
  /** Files that could not be merged; empty unless `status` is `conflict` from a content clash. */
  conflicts: FileConflict[];
  /** Number of apply attempts so far, the first one included. */
  attempts: number;
  /**
   * When an automatic retry is due (`failed` records only); `null`: no automatic retry, a
   * person decides (conflicts, interrupted turns, retries exhausted).
   */
  nextAttemptAt: Date | null;
  /** The turn whose change set this is, when it came from a turn. */
  turnId: string | null;
  createdAt: Date;
  updatedAt: Date;
  resolvedAt: Date | null;
  resolution: CommitResolution | null;
  /** The backing cursor after the resolving store, when there was one. */
  resolvedCursor: DirCursor | null;
}

/**
 * What `appendCommit` needs; the log assigns timestamps and resolution fields, and `id` unless
 * one is given. A given `id` makes the append idempotent: a stable id (e.g. `turnCommitId`)
 * applied twice, or by two instances at once, stores one record.
 */
export type NewCommitRecord = Omit<
  CommitRecord,
  | "id"
  | "createdAt"
  | "updatedAt"
  | "resolvedAt"
  | "resolution"
  | "resolvedCursor"
  | "status"
  | "nextAttemptAt"
  | "turnId"
> & {
  status: "failed" | "conflict" | "interrupted";
  id?: string;
  nextAttemptAt?: Date | null;
  turnId?: string | null;
};

/**
 * Port: the durable log of commits that failed or conflicted. Implementations must keep
 * records across restarts (the in-memory one is the reference and test double). Records are
 * never deleted by the core; resolved ones remain as history.
 */
export interface CommitLog {
  /**
   * Stores a new open record and returns it with its id. When `commit.id` is given and a record
   * with that id exists, nothing is written and the existing record is returned (a unique key,
   * so two instances appending the same id at once store one record).
   *
   * `bounded`: the commit failed for a reason that would refuse it again as it is (a
   * `validation` error: a dir limit, a history quota). A log with a bound on what one owner's
   * open records may hold then declines to keep it when keeping it would pass that bound: it
   * stores nothing and throws `FailedCommitsQuotaError` (an existing record with `commit.id` is
   * still returned). Without `bounded` — conflicts, transient failures, spooled change sets,
   * interrupted turns — the record is always stored: nothing the person cannot redo is dropped.
   */
  appendCommit(options: {
    commit: NewCommitRecord;
    bounded?: boolean;
    abortSignal?: AbortSignal;
  }): Promise<CommitRecord>;
  /** The record with `id`, or `null`. */
  getCommit(options: { id: string; abortSignal?: AbortSignal }): Promise<CommitRecord | null>;
  /**
   * Records newest first, optionally filtered. `cursor` is the `nextCursor` of the previous
   * page; `limit` defaults to 50.
   */
  listCommits(options: {
    harnessDir?: string;
    owner?: string;
    /** Only the records of this turn. */
    turnId?: string;
    /** `open` means `failed`, `conflict` or `interrupted`. */
    status?: CommitRecordStatus | "open";
    limit?: number;
    cursor?: string;
    abortSignal?: AbortSignal;
  }): Promise<{ commits: CommitRecord[]; nextCursor: string | null }>;
  /**
   * Updates an open record after another failed attempt. Throws `not_found:commit` when missing
   * and `conflict:commit` when the record is already resolved.
   */
  updateCommit(options: {
    id: string;
    patch: Partial<
      Pick<
        CommitRecord,
        | "status"
        | "error"
        | "conflicts"
        | "attempts"
        | "changes"
        | "base"
        | "baseCursor"
        | "nextAttemptAt"
      >
    > & {
      status?: "failed" | "conflict";
    };
    abortSignal?: AbortSignal;
  }): Promise<CommitRecord>;
  /**
   * Closes an open record. Compare-and-set on the status: throws `conflict:commit` when the
   * record is already resolved (so two concurrent retries cannot both close it) and
   * `not_found:commit` when missing.
   */
  markResolved(options: {
    id: string;
    resolution: CommitResolution;
    cursor?: DirCursor | null;
    abortSignal?: AbortSignal;
  }): Promise<CommitRecord>;
  /**
   * Optional capability for automatic retries: claims up to `limit` `failed` records whose
   * `nextAttemptAt` is at or before `now`, by a conditional update that moves their
   * `nextAttemptAt` to `leaseUntil` — so two instances never claim the same record at once, and
   * a claimer that dies releases it when the lease passes. Returns the claimed records. With
   * `ids`, only those records are considered (a retry job claims its own record).
   */
  claimDueCommits?(options: {
    now: Date;
    leaseUntil: Date;
    limit: number;
    ids?: readonly string[];
    abortSignal?: AbortSignal;
  }): Promise<CommitRecord[]>;
}
