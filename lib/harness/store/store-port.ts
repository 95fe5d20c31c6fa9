import {
  type Entry,
  type EntryKind,
  type EntryRef,
  type EntryScope,
  type Page,
  type Revision,
  type RevisionDraft,
} from "./types";

/** Options every port method accepts. */
export interface StorageCallOptions {
  /** Aborts the call; an aborted call rejects with the signal's reason and changes nothing. */
  abortSignal?: AbortSignal;
}

/**
 * One change to apply: the revision to append and, through it, the entry write.
 *
 * The entry row identified by (`revision.scope`, `revision.chatId`, `revision.kind`,
 * `revision.entryId`) becomes `revision.after` — inserted or replaced — or is removed when
 * `revision.after` is `null`. The storage does not derive, merge or validate anything: the
 * core has already computed the full new state.
 */
export interface StorageChange {
  /**
   * The version the entry must have right now for this change to apply, or `null` when the
   * entry must not exist (a create, or a restore of a deleted entry).
   */
  expectedVersion: number | null;
  /** The revision to append; its `after` is the entry's new state (`null` = delete the row). */
  revision: RevisionDraft;
}

/** Filters for `listEntries`. All given filters must match (AND). */
export interface EntryFilter {
  /** One kind or any of several. */
  kind?: EntryKind | readonly EntryKind[];
  /**
   * - `"global"`: global entries only (`chatId` must be absent).
   * - `"local"`: local entries; of `chatId` only when given, else of every chat.
   * - absent: with `chatId`, the chat's merged view (global entries + that chat's local
   *   ones); without, every entry of the workspace.
   */
  scope?: EntryScope;
  chatId?: string;
  /** Matches `path === pathPrefix` or `path` starting with `pathPrefix + "/"`. */
  pathPrefix?: string;
  /**
   * Case-insensitive substring match against `title` or `content`. Folding ASCII letters is
   * required; folding beyond ASCII is allowed but not relied on.
   */
  text?: string;
  pinned?: boolean;
}

/** What `applyChanges` is given. */
export type ApplyChangesOptions = StorageCallOptions & {
  workspaceId: string;
  changes: readonly StorageChange[];
  /** When given, apply only if the harness is still at exactly this version. */
  expectedHarnessVersion?: number;
};

/** What `listEntries` is given. */
export type ListEntriesOptions = StorageCallOptions & {
  workspaceId: string;
  filter?: EntryFilter;
  cursor?: string | null;
  limit?: number;
};

/** What `listRevisions` is given. */
export type ListRevisionsOptions = StorageCallOptions & {
  workspaceId: string;
  entryKey: string;
  order?: "asc" | "desc";
  cursor?: string | null;
  limit?: number;
};

/** What `listRevisionsInRange` is given. */
export type ListRevisionsInRangeOptions = StorageCallOptions & {
  workspaceId: string;
  afterHarnessVersion?: number;
  upToHarnessVersion?: number;
  cursor?: string | null;
  limit?: number;
};

/**
 * The harness store's storage port: the only way the core reads or writes entries and
 * revisions. Implementations move data; they hold no policy (ids, slugs, versions,
 * validation, scope rules and conflict detection are decided by the core before a call).
 *
 * Every implementation must pass `runHarnessStorageConformance`. All methods are scoped to
 * one workspace: nothing of another workspace is ever read or written. Returned objects are
 * the caller's to keep: mutating them must not change stored state.
 */
export interface HarnessStoragePort {
  /**
   * Applies a batch of changes atomically (one transaction): for every change, checks that
   * the entry's current version equals `expectedVersion` (or that the entry is absent when
   * it is `null`), writes or deletes the entry row, and appends the revision stamped with
   * the new harness version; then advances the workspace's harness version counter by
   * exactly one. Either every change applies or none does.
   *
   * - Throws `HarnessConflictError` (surface `entry`) if any expectation fails, and
   *   (surface `harness`) if `expectedHarnessVersion` is given and is not the current
   *   harness version. Nothing is written in either case.
   * - The core never sends two changes for the same entry in one batch, and revision ids
   *   are unique; an implementation may reject a duplicate revision id with a conflict.
   * - An empty `changes` array writes nothing and returns the current version.
   *
   * @returns the workspace's new harness version and the stored revisions, in input order.
   */
  applyChanges(
    options: ApplyChangesOptions,
  ): Promise<{ harnessVersion: number; revisions: Revision[] }>;

  /** The current state of one entry, or `null` if it does not exist (never created, or deleted). */
  getEntry(
    options: StorageCallOptions & { workspaceId: string; ref: EntryRef },
  ): Promise<Entry | null>;

  /**
   * Optional capability: `getEntry` and the last revision of the same key (highest harness
   * version, across deletes and restores — what `listRevisions({ order: "desc", limit: 1 })`
   * returns first), read in one call. A create needs both (is the id free, and where does the
   * key's version count continue), so a backend with a per-call cost implements this to save a
   * round trip; the core falls back to the two calls when it is absent.
   *
   * The two parts need not come from one snapshot: the core treats them as a hint, and
   * `applyChanges` checks the expectation again inside its transaction.
   */
  getEntryAndLastRevision?(
    options: StorageCallOptions & { workspaceId: string; ref: EntryRef },
  ): Promise<{ entry: Entry | null; lastRevision: Revision | null }>;

  /**
   * One page of the entries matching `filter`, ordered by `updatedAt` descending, then by
   * entry key ascending (a total order, so pages never overlap while nothing is written).
   *
   * @param limit page size, 1–500 (the core clamps it); default 50.
   * @param cursor the `nextCursor` of the previous page; opaque to the caller.
   */
  listEntries(options: ListEntriesOptions): Promise<Page<Entry>>;

  /**
   * One page of the revisions of one entry key (across deletes and restores), ordered by
   * harness version — ascending (oldest first, the default) or descending.
   */
  listRevisions(options: ListRevisionsOptions): Promise<Page<Revision>>;

  /** One revision by id, or `null` if it does not exist in this workspace. */
  getRevision(
    options: StorageCallOptions & { workspaceId: string; revisionId: string },
  ): Promise<Revision | null>;

  /**
   * One page of the workspace's revisions with `afterHarnessVersion < harnessVersion <=
   * upToHarnessVersion`, ordered by harness version ascending, then entry key ascending.
   * This is what snapshots are rebuilt from.
   *
   * @param afterHarnessVersion exclusive lower bound; default 0 (from the beginning).
   * @param upToHarnessVersion inclusive upper bound; default no bound.
   */
  listRevisionsInRange(options: ListRevisionsInRangeOptions): Promise<Page<Revision>>;

  /** The workspace's current harness version: 0 before the first change. */
  getHarnessVersion(options: StorageCallOptions & { workspaceId: string }): Promise<number>;
}

/** The page size used when a caller gives none. */
export const DEFAULT_PAGE_SIZE = 50;
/** The largest page size a port must serve. */
export const MAX_PAGE_SIZE = 500;
