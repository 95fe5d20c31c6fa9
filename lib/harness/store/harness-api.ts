/**
 * The harness's public API as types: the inputs of each call and the `Harness` interface that
 * `createHarness` returns. Kept apart from the implementation so the contract reads on its own.
 */
import type { Actor } from "../actor";
import type { SnapshotCache } from "./reconstruct-harness-state";
import type { HarnessStoragePort } from "./store-port";
import type {
  Entry,
  EntryKind,
  EntryScope,
  EntrySource,
  HarnessSnapshot,
  Page,
  Revision,
  RevisionCause,
} from "./types";

// ---------------------------------------------------------------------------------------------
// Inputs
// ---------------------------------------------------------------------------------------------

/**
 * Which scope a call addresses. `scope` defaults to `local` (this chat). Writing a global
 * entry needs `global: true` explicitly — `scope: "global"` alone is refused — and an actor
 * who may write global entries (`editor`, `admin`); otherwise `HarnessForbiddenError`.
 */
export interface ScopeSelector {
  scope?: EntryScope;
  /** The explicit opt-in for writing a global entry. Implies `scope: "global"`. */
  global?: boolean;
}

/** Fields every write accepts. */
export interface WriteOptions {
  /** Why the change is made; recorded on the revision. */
  reason?: string;
  /** Recorded on the revision. Default: derived from `source` (`agent` → `agent`, …, `user` → `manual`). */
  cause?: RevisionCause;
  /** Who wrote the content. Default: the harness's `source` (itself `user` by default). */
  source?: EntrySource;
  abortSignal?: AbortSignal;
}

/** Input of `createEntry`. */
export interface CreateEntryInput extends ScopeSelector, WriteOptions {
  kind: EntryKind;
  /** A slug (`[a-z0-9][a-z0-9_-]{0,79}`). Default: made from the title, with `-2`, `-3`… on collision. */
  id?: string;
  title: string;
  content: string;
  /** Default `general`. */
  path?: string;
  /** Default `{}`; skills and sub-agents must satisfy their kind contract. */
  metadata?: Record<string, unknown>;
  /** Default `false`. */
  pinned?: boolean;
}

/** Input of `updateEntry`. Omitted fields keep their value. */
export interface UpdateEntryInput extends ScopeSelector, WriteOptions {
  kind: EntryKind;
  id: string;
  /** The version the caller last saw; a stale version fails with `HarnessConflictError` and changes nothing. */
  expectedVersion: number;
  title?: string;
  content?: string;
  path?: string;
  /** Replaces the metadata as a whole. */
  metadata?: Record<string, unknown>;
  /** Shallow-merged into the metadata after `metadata`; a key set to `null` is removed. */
  metadataPatch?: Record<string, unknown>;
  pinned?: boolean;
}

/** Input of `deleteEntry`. */
export interface DeleteEntryInput extends ScopeSelector, WriteOptions {
  kind: EntryKind;
  id: string;
  /** The version the caller last saw; a stale version fails with `HarnessConflictError` and changes nothing. */
  expectedVersion: number;
}

/** Input of `restoreRevision`. */
export interface RestoreRevisionInput extends WriteOptions {
  revisionId: string;
  /** Required (as `true`) when the revision belongs to a global entry. */
  global?: boolean;
  /**
   * When given, the entry must currently be at this version (`null`: must not exist).
   * When omitted, the restore applies over whatever the current state is.
   */
  expectedVersion?: number | null;
}

/** Input of `setPinned`. */
export interface SetPinnedInput extends ScopeSelector, WriteOptions {
  kind: EntryKind;
  id: string;
  expectedVersion: number;
  pinned: boolean;
}

/** Reads address one entry; `scope` defaults to `local`. Reading global entries needs no flag. */
export interface EntryLocator {
  kind: EntryKind;
  id: string;
  scope?: EntryScope;
  abortSignal?: AbortSignal;
}

/** Input of `listEntries`: filters over the chat's merged view, paginated. */
export interface ListEntriesInput {
  kind?: EntryKind | readonly EntryKind[];
  /** Absent: global + this chat's local entries. */
  scope?: EntryScope;
  pathPrefix?: string;
  /** Case-insensitive substring of title or content. */
  text?: string;
  pinned?: boolean;
  cursor?: string | null;
  /** 1–500, default 50. */
  limit?: number;
  abortSignal?: AbortSignal;
}

/** One edit of a batch (`applyEdits`). */
export type HarnessEdit =
  | ({ op: "create" } & Omit<CreateEntryInput, "abortSignal">)
  | ({ op: "update" } & Omit<UpdateEntryInput, "abortSignal">)
  | ({ op: "delete" } & Omit<DeleteEntryInput, "abortSignal">)
  | ({ op: "restore" } & Omit<RestoreRevisionInput, "abortSignal">);

/** What a batch produced. */
export interface ApplyEditsResult {
  harnessVersion: number;
  /** One per edit that changed something, in edit order. */
  revisions: Revision[];
}

/**
 * `createMemory` input: `createEntry`'s without `kind` — title, content, optional path, id,
 * metadata, pinned, scope (`global: true` to write a global memory) and `reason`.
 */
export type CreateMemoryInput = Omit<CreateEntryInput, "kind">;
/** `updateMemory` input: `updateEntry`'s without `kind` (`id`, `expectedVersion`, the changed fields, `reason`). */
export type UpdateMemoryInput = Omit<UpdateEntryInput, "kind">;
/** `deleteMemory` input: `deleteEntry`'s without `kind` (`id`, `expectedVersion`, `reason`). */
export type DeleteMemoryInput = Omit<DeleteEntryInput, "kind">;
/** `createPrompt` input: `createEntry`'s without `kind`. */
export type CreatePromptInput = Omit<CreateEntryInput, "kind">;
/** `updatePrompt` input: `updateEntry`'s without `kind`. */
export type UpdatePromptInput = Omit<UpdateEntryInput, "kind">;
/** `deletePrompt` input: `deleteEntry`'s without `kind`. */
export type DeletePromptInput = Omit<DeleteEntryInput, "kind">;

/** `createSkill` input: content is the skill body; the title defaults to the name. */
export type CreateSkillInput = Omit<CreateEntryInput, "kind" | "content" | "title"> & {
  name: string;
  /** One line: when to use the skill. This is what the prompt shows. */
  description: string;
  /** The instructions the agent loads on demand. */
  body: string;
  title?: string;
};

/** `updateSkill` input. */
export type UpdateSkillInput = Omit<UpdateEntryInput, "kind" | "content"> & {
  name?: string;
  description?: string;
  body?: string;
};

/** `createSubagent` input: content is the sub-agent's instructions (its system prompt). */
export type CreateSubagentInput = Omit<CreateEntryInput, "kind" | "content" | "title"> & {
  name: string;
  /** One line: when to delegate to this sub-agent. */
  description: string;
  instructions: string;
  /** The tools the sub-agent may use. */
  tools: string[];
  model?: string;
  title?: string;
};

/** `updateSubagent` input. `model: null` removes the model. */
export type UpdateSubagentInput = Omit<UpdateEntryInput, "kind" | "content"> & {
  name?: string;
  description?: string;
  instructions?: string;
  tools?: string[];
  model?: string | null;
};

/** Options of `createHarness`. */
export interface CreateHarnessOptions {
  storage: HarnessStoragePort;
  /** Who acts; derived from the session by the host, never from request bodies or model output. */
  actor: Actor;
  /**
   * The chat this harness serves (local scope), or `null` outside any chat (then only global
   * entries are visible and local writes are refused). The host must have checked that the
   * actor may use this chat.
   */
  chatId: string | null;
  /** Default `() => new Date()`. */
  clock?: () => Date;
  /** Revision ids. Default `crypto.randomUUID()`. */
  generateId?: () => string;
  /** The default `source` of writes. Default `user`; a model's tool calls use `agent`. */
  source?: EntrySource;
  /**
   * Where current snapshots are remembered between calls (and between harness objects on the
   * same storage): `snapshot()` then costs one version read while nothing changed, and a read
   * of the revisions since when something did. Default `sharedSnapshotCache`; `null` reads
   * every snapshot afresh.
   */
  snapshotCache?: SnapshotCache | null;
  /**
   * Recorded on every revision this harness writes (`Revision.via`): where the change came from
   * outside the app, e.g. `mcp:laptop (claude-code)`. Default: none.
   */
  via?: string;
  /**
   * Called at the start of every write (never for reads): who makes this write, as the host
   * reads it now. The write is planned and authorized for the actor it returns — same person and
   * workspace as `actor`, the role read at this moment; throw to refuse the write. A host whose
   * harness outlives a request (a chat turn's tools) passes a membership read here, so a role
   * changed meanwhile counts at the next write. Default: `actor`, unchanged.
   */
  actorForWrite?: () => Promise<Actor>;
}

// ---------------------------------------------------------------------------------------------
// The API
// ---------------------------------------------------------------------------------------------

/**
 * The harness store as one chat sees it: global entries of the workspace plus this chat's
 * local ones. Every write is validated against the kind contracts, versioned, recorded as a
 * revision and applied atomically with the workspace's harness version.
 */
export interface Harness {
  readonly actor: Actor;
  readonly chatId: string | null;

  /** Creates an entry at version 1 (or the next version of a previously deleted entry key). */
  createEntry(input: CreateEntryInput): Promise<Entry>;
  /** Updates an entry; returns it unchanged (and writes nothing) when no field differs. */
  updateEntry(input: UpdateEntryInput): Promise<Entry>;
  /** Deletes an entry; returns the delete revision (its `before` is what was deleted). */
  deleteEntry(input: DeleteEntryInput): Promise<Revision>;
  /** The entry, or `null` when it does not exist or is not visible to this chat. */
  getEntry(input: EntryLocator): Promise<Entry | null>;
  /** Like `getEntry`, but throws `HarnessNotFoundError` instead of returning `null`. */
  getEntryOrThrow(input: EntryLocator): Promise<Entry>;
  /** A page of the merged view, newest first. */
  listEntries(input?: ListEntriesInput): Promise<Page<Entry>>;

  /**
   * The continual-harness design's typed calls for the two plain kinds (`create_memory`,
   * `update_memory` with a reason, `delete_memory`, and the same for prompt notes): exactly
   * `createEntry` / `updateEntry` / `deleteEntry` with the kind filled in — the same scope and
   * role rules, validation, errors and revision (`reason`, `cause`, `source`).
   */
  createMemory(input: CreateMemoryInput): Promise<Entry>;
  updateMemory(input: UpdateMemoryInput): Promise<Entry>;
  deleteMemory(input: DeleteMemoryInput): Promise<Revision>;
  /** Prompt notes: reusable instruction fragments (the base system prompt is not one). */
  createPrompt(input: CreatePromptInput): Promise<Entry>;
  updatePrompt(input: UpdatePromptInput): Promise<Entry>;
  deletePrompt(input: DeletePromptInput): Promise<Revision>;

  /** Skills and sub-agents take their parts (name, description, body) instead of raw content. */
  createSkill(input: CreateSkillInput): Promise<Entry>;
  updateSkill(input: UpdateSkillInput): Promise<Entry>;
  createSubagent(input: CreateSubagentInput): Promise<Entry>;
  updateSubagent(input: UpdateSubagentInput): Promise<Entry>;

  /** Sets `pinned` (a versioned change like any other). */
  setPinned(input: SetPinnedInput): Promise<Entry>;

  /**
   * Applies several edits in one transaction and one harness version: all or nothing.
   * An entry may appear only once per batch. `reason`/`cause`/`source` given here apply to
   * edits that set none of their own.
   */
  applyEdits(input: {
    edits: readonly HarnessEdit[];
    reason?: string;
    cause?: RevisionCause;
    source?: EntrySource;
    /** Apply only if the harness is still at this version (else `HarnessConflictError`). */
    expectedHarnessVersion?: number;
    abortSignal?: AbortSignal;
  }): Promise<ApplyEditsResult>;

  /**
   * Brings an entry back to the state a revision recorded — its `after`, or, for a delete
   * revision, its `before` (an undelete) — as a new `restore` revision. The past is never
   * rewritten. Default cause `rollback`.
   */
  restoreRevision(input: RestoreRevisionInput): Promise<Revision>;

  /**
   * The revisions of every visible entry named `entryId` (narrowed by `kind`/`scope` when
   * given), oldest first.
   */
  history(input: {
    entryId: string;
    kind?: EntryKind;
    scope?: EntryScope;
    abortSignal?: AbortSignal;
  }): Promise<Revision[]>;

  /** The merged view exactly as it was at `atVersion` (default: now). */
  snapshot(input?: { atVersion?: number; abortSignal?: AbortSignal }): Promise<HarnessSnapshot>;

  /** The workspace's current harness version. */
  getHarnessVersion(input?: { abortSignal?: AbortSignal }): Promise<number>;

  /**
   * The design's `overview(limit)`: a compact text summary of the merged view (what this chat
   * sees) at the current harness version, built from `snapshot()`. First line
   * `Harness vN: <count per kind> (<global> global, <local> local)`; then, per kind that has
   * entries, `<Kind> (<count>):` and up to `limit` lines `[scope:id] title (path, vN[, pinned])`
   * — pinned first, then most recently updated, then kind/scope/id — and `+N more` when some
   * were left out. Skills and sub-agents show their name. No contents. `limit` is per kind,
   * a whole number ≥ 0 (0: counts only); default 5; anything else is a `validation:input`
   * error.
   */
  overview(input?: { limit?: number; abortSignal?: AbortSignal }): Promise<string>;
}
