/**
 * The persistent-dir port: what a host (or an adapter) implements so the runtime can load a
 * directory of files into a turn's checkout and commit the turn's changes back.
 *
 * Paths inside a dir (keys of `files`, `snapshot`, `changes`) are always *relative* to the
 * dir's `harnessDir`, `/`-separated, NFC-normalised and validated (see `paths.ts`), e.g.
 * `notes/a.md` for `/persistent/user/notes/a.md`.
 */

import type { LazyDirCapability } from "./dir-index";

/** A file's content: text (stored as UTF-8) or raw bytes. */
export type FileContent = string | Uint8Array;

/**
 * What a host may pass to `files.write`: a file's content, or a web `ReadableStream` or an
 * async iterable (a Node stream is one) of text or byte chunks. Streams are read to the end —
 * but never past the dir's per-file limit — before anything is written.
 */
export type HostFileContent =
  FileContent | ReadableStream<string | Uint8Array> | AsyncIterable<string | Uint8Array>;

/**
 * How a host write can reach backing storage, as decided when it was applied:
 * - `after-turn`: with the turn's after-turn commit, if the turn completes;
 * - `manual`: through `commitManual()` on this turn's result;
 * - `none`: not at all — the dir's commit for this turn is over (or the turn did not
 *   complete); the next turn starts from backing storage and discards it.
 */
export type HostWriteCommit = "after-turn" | "manual" | "none";

/** What a host write or delete did. */
export interface HostFileChange {
  /** Absolute, NFC-normalised, e.g. `/persistent/uploads/report.pdf`. */
  path: string;
  harnessDir: string;
  mode: CommitMode;
  /** Size written; 0 for a delete. */
  bytes: number;
  commit: HostWriteCommit;
}

/**
 * Relative path → content. Build it with `Object.create(null)` (or `fileMapFromEntries`) so a
 * path named `__proto__` stays an ordinary key; the core only reads own keys.
 */
export type FileMap = Record<string, FileContent>;

/**
 * An opaque version of a dir's backing state, returned by `load` and `store` and handed back
 * to `store` for compare-and-swap. Must be JSON-serialisable: failed commits persist it.
 */
export type DirCursor = string | number;

/**
 * When a dir's changes reach its backing storage.
 * - `after-turn` (default): after every completed turn with a non-empty change set.
 * - `manual`: only through `commitManual()` on the turn handle.
 * - `read-only`: never; writes into the dir fail at once.
 */
export type CommitMode = "after-turn" | "manual" | "read-only";

export const COMMIT_MODES: readonly CommitMode[] = ["after-turn", "manual", "read-only"];

/** One created or updated file in a change set. */
export interface ChangedFile {
  /** Relative to the dir's `harnessDir`. */
  path: string;
  content: FileContent;
}

/**
 * The difference between a turn's before-snapshot and its checkout at commit time, for one
 * dir. Invariant: a path appears in at most one of the three lists; lists are sorted by path.
 */
export interface ChangeSet {
  created: ChangedFile[];
  updated: ChangedFile[];
  /** Relative paths of removed files. */
  deleted: string[];
}

/** Per-dir limits. Every field has a default (see `DEFAULT_DIR_LIMITS`). */
export interface DirLimits {
  /** Largest single file, in bytes. Default 25 MiB. */
  maxFileBytes: number;
  /** Sum of all file sizes in the dir, in bytes. Default 2 GiB. */
  maxDirBytes: number;
  /** Number of files in the dir. Default 100,000. */
  maxFiles: number;
}

/**
 * A dir's limits decided per turn from the turn's host data (the app reads the Actor's
 * workspace's settings): called once when a turn opens the dir, and once per commit made outside
 * a turn (a retry, a person's edit). Its result is validated as static limits are — each field a
 * positive integer, missing fields the defaults; a bad value or a throw is a `validation:dir`
 * error naming the dir (a turn does not start; a change set being committed is kept).
 */
export type DirLimitsResolver<TExtraBody = unknown, TSession = unknown> = {
  // Declared as a method so a dir typed for its host data still passes where the runtime holds
  // dirs of `unknown` host data, as `canWrite` and `owner` do.
  resolve(context: {
    extraBody: TExtraBody;
    session: TSession;
  }): Partial<DirLimits> | Promise<Partial<DirLimits>>;
}["resolve"];

export interface LoadOptions<TExtraBody = unknown, TSession = unknown> {
  /** Per-turn host data; the app carries the server-derived Actor here. */
  extraBody: TExtraBody;
  /** The chat this turn belongs to. */
  session: TSession;
  abortSignal?: AbortSignal;
}

/** What `load` returns: every file of the dir and the cursor they were read at. */
export interface LoadResult {
  files: FileMap;
  cursor: DirCursor;
  /**
   * Optional: when each file last changed (ISO string or Date). Used to list memory files
   * newest first; files without a time sort after those with one.
   */
  updatedAt?: Record<string, string | Date>;
}

export interface StoreOptions<TExtraBody = unknown, TSession = unknown> {
  extraBody: TExtraBody;
  session: TSession;
  harnessDir: string;
  /** Exactly what changed relative to the state at `cursor`. Never empty. */
  changes: ChangeSet;
  /**
   * The dir's full contents after applying `changes`. Absent for a dir that offers the lazy
   * capability (`loadIndex` + `readBodies`): its checkout never holds the whole dir.
   */
  snapshot?: FileMap;
  /** The cursor the change set was computed against. */
  cursor: DirCursor;
  abortSignal?: AbortSignal;
}

/**
 * The outcome of a store. A backing must either apply the whole change set atomically and
 * return `stored` with a new cursor, or apply nothing and return `conflict` (its state is no
 * longer at `cursor`). Any other failure is a thrown error; nothing may be half-applied.
 */
export type StoreResult =
  | { status: "stored"; cursor: DirCursor }
  | { status: "conflict"; currentCursor?: DirCursor; message: string };

/** The two operations a backing provides: the conformance suite tests exactly these. */
export interface PersistentDirBacking<TExtraBody = unknown, TSession = unknown> {
  /**
   * Reads every file of the dir for this turn. Must return copies the caller may keep, paths
   * that pass `validateRelativePath`, and a cursor identifying this state.
   */
  load(options: LoadOptions<TExtraBody, TSession>): Promise<LoadResult>;
  /**
   * Applies `changes` atomically if the backing is still at `cursor` (compare-and-swap);
   * otherwise changes nothing and returns `conflict`.
   */
  store(options: StoreOptions<TExtraBody, TSession>): Promise<StoreResult>;
  /** Optional lazy capability, with `readBodies` (both or neither; see `LazyDirCapability`). */
  loadIndex?: LazyDirCapability<TExtraBody, TSession>["loadIndex"];
  readBodies?: LazyDirCapability<TExtraBody, TSession>["readBodies"];
}

/**
 * A persistent dir: a directory of files at `harnessDir` that survives beyond one turn.
 * Define a list with `definePersistentDirs`, which checks the invariants below.
 *
 * Invariants: `harnessDir` lies under `/persistent/` and overlaps no other dir; a dir whose
 * mode is not `read-only` has a `store`.
 */
export interface PersistentDir<TExtraBody = unknown, TSession = unknown> {
  /** Absolute mount point, e.g. `/persistent/user`. */
  harnessDir: string;
  /** Default `after-turn`. */
  commit?: CommitMode;
  load(options: LoadOptions<TExtraBody, TSession>): Promise<LoadResult>;
  /** Required unless `commit` is `read-only` (it is never called then). */
  store?(options: StoreOptions<TExtraBody, TSession>): Promise<StoreResult>;
  /**
   * Optional lazy capability, with `readBodies` (both or neither; see `LazyDirCapability`): the
   * turn reads the dir's index at the start and file bodies on first use, instead of `load`.
   */
  loadIndex?: LazyDirCapability<TExtraBody, TSession>["loadIndex"];
  readBodies?: LazyDirCapability<TExtraBody, TSession>["readBodies"];
  /**
   * Decides, once per turn when the dir loads, whether this turn may write. `false` makes the
   * dir read-only for the turn. Derive the answer from the server-side Actor in `extraBody`,
   * never from text. A throwing `canWrite` fails closed (read-only). Absent: writable.
   */
  canWrite?(options: { extraBody: TExtraBody }): boolean | Promise<boolean>;
  /**
   * Optional owner key recorded on failed commits (e.g. the user id for a user's memory,
   * the workspace id for company knowledge) so the host can list one owner's failures.
   */
  owner?(options: { extraBody: TExtraBody }): string;
  /**
   * Overrides of `DEFAULT_DIR_LIMITS` for this dir: a value, checked when the dirs are defined,
   * or a resolver called once per turn (and per commit outside a turn) with its host data.
   */
  limits?: Partial<DirLimits> | DirLimitsResolver<TExtraBody, TSession>;
  /**
   * Who reads the dir besides the person whose turn it is: `private` — only them (their memory);
   * `shared` — others too (company knowledge). A turn's change to a `shared` dir that holds text
   * of a `private` dir which the shared dir did not hold before is not committed: it is kept in
   * the commit log, owned by the private dir's owner, until that person confirms it
   * (`PRIVATE_TO_SHARED`; docs/decisions/0031). Absent: neither, no check.
   */
  audience?: "private" | "shared";
  /**
   * Optional: where a turn's change goes when `canWrite` says no. A dir with `suggest` is not
   * read-only for such a turn: its writes land in the checkout as usual (the agent sees its own
   * change), and after a completed turn the change set is handed to `suggest` instead of
   * `store` — a proposal someone who may write reviews (the app's review queue). Nothing is
   * applied. When `suggest` throws, the change set is kept in the commit log like a failed
   * commit (never lost). Absent: such a turn's writes fail at once (`forbidden:dir`).
   */
  suggest?(options: SuggestOptions<TExtraBody, TSession>): Promise<{ id: string }>;
}

/** What a dir's `suggest` receives: the change set and the base it was made against. */
export interface SuggestOptions<TExtraBody = unknown, TSession = unknown> {
  extraBody: TExtraBody;
  session: TSession;
  harnessDir: string;
  changes: ChangeSet;
  /** The content each changed path had at `baseCursor` (`null`: it did not exist). */
  base: Record<string, FileContent | null>;
  baseCursor: DirCursor;
  /** The host's turn id, when the turn has one. */
  turnId?: string;
  /** Why (the agent's words this turn), when the host gave one. */
  note?: string;
  abortSignal?: AbortSignal;
}

/** Paths and counts of a change set; what the host result and trace carry (no content). */
export interface ChangeSummary {
  created: string[];
  updated: string[];
  deleted: string[];
  counts: { created: number; updated: number; deleted: number; total: number };
}

/** Why a dir was not committed. */
export type SkipReason = "no-changes" | "read-only" | "turn-not-completed";

/** The outcome of committing one dir. */
export interface DirCommitResult {
  harnessDir: string;
  mode: CommitMode;
  status: "skipped" | "succeeded" | "suggested" | "conflict" | "failed";
  changes: ChangeSummary;
  /** `suggested` only: the id `suggest` returned — the change awaits review, nothing applied. */
  suggestionId?: string;
  /** Set when `status` is `skipped`. */
  skipReason?: SkipReason;
  /** The backing's new cursor when `succeeded`. */
  cursor?: DirCursor;
  /** `succeeded` after a clean three-way merge with concurrent changes. */
  merged?: boolean;
  /** The commit-log record holding the change set when `conflict` or `failed`. */
  commitId?: string;
  /** `failed` only: the change set is kept and retried automatically (no person needed yet). */
  retrying?: boolean;
  /**
   * `failed` only: not committed because it copies text of a `private` dir into this `shared`
   * one; kept (error code `PRIVATE_TO_SHARED`) until the person confirms or discards it.
   */
  awaitsConfirmation?: boolean;
  /**
   * `failed` only: refused for a reason that would refuse it again as it is (a limit or quota),
   * and not kept either, because the open commit records of its owner already hold the commit
   * log's bound (`FailedCommitsQuotaError`; `error` says both). Nothing of it is stored and
   * nothing waits for a person: the change is gone unless the caller still holds it.
   */
  notKept?: boolean;
  /**
   * `failed` only: the commit log did not answer either, so the change set is in the local
   * spool; it reaches the commit log (and is retried) when the database answers again.
   */
  spooled?: boolean;
  error?: { code: string; message: string };
  /**
   * Only when neither the commit log nor the spool could keep a failed commit: the change set and
   * its base, so the host still holds everything needed to retry (the turn's journal keeps it
   * too). Normally absent.
   */
  unrecorded?: {
    changes: ChangeSet;
    baseCursor: DirCursor;
    base: Record<string, FileContent | null>;
  };
}

/**
 * What a turn reports about persistence. Host-facing only; never enters the model's context.
 * `failedCommits` lists the commits whose status is `conflict` or `failed`.
 */
export type PersistenceResult =
  | { status: "not-configured" }
  | { status: "succeeded"; commits: DirCommitResult[] }
  | { status: "failed"; commits: DirCommitResult[]; failedCommits: DirCommitResult[] };

/** Trace events of persistent dirs; `at` is an ISO timestamp from the injected clock. */
export type PersistentDirTraceEvent =
  | {
      type: "dir.loaded";
      at: string;
      harnessDir: string;
      mode: CommitMode;
      fileCount: number;
      bytes: number;
      readOnly: boolean;
      /** Why the dir is read-only this turn, when it is. */
      readOnlyReason?: "commit-mode" | "can-write" | "can-write-error";
      /** The backing's cursor the files were read at (what the turn saw). */
      cursor?: DirCursor;
    }
  | {
      type: "commit.started";
      at: string;
      harnessDir: string;
      mode: CommitMode;
      changes: ChangeSummary;
    }
  | {
      type: "commit.succeeded";
      at: string;
      harnessDir: string;
      mode: CommitMode;
      cursor: DirCursor;
      merged: boolean;
      changes: ChangeSummary;
    }
  | {
      type: "commit.conflict";
      at: string;
      harnessDir: string;
      mode: CommitMode;
      message: string;
      conflictedPaths: string[];
      commitId?: string;
    }
  | ({ type: "host.write" | "host.delete"; at: string } & HostFileChange)
  | {
      /** A host write or delete that was refused; nothing changed. */
      type: "host.refused";
      at: string;
      operation: "write" | "delete";
      /** As given, made printable. */
      path: string;
      error: { code: string; message: string };
    }
  | {
      type: "commit.failed";
      at: string;
      harnessDir: string;
      mode: CommitMode;
      error: { code: string; message: string };
      commitId?: string;
    };

/** An injected clock, so traces and records are deterministic in tests. */
export interface Clock {
  now(): Date;
}
