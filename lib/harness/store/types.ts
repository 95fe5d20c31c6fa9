/**
 * The harness store's data model. Every type here is plain JSON (timestamps are ISO 8601
 * strings in UTC) so entries and revisions can be compared structurally, exported and
 * imported without a mapping layer.
 */

/** The four kinds of harness artifact, in the order the prompt view renders them. */
export const ENTRY_KINDS = ["prompt", "memory", "skill", "subagent"] as const;
/**
 * - `prompt`: a supplemental instruction note (never the base system prompt).
 * - `memory`: a fact, preference or lesson.
 * - `skill`: an Agent Skills-style instruction set: `metadata.name`, a one-line
 *   `metadata.description` of when to use it, and `content` = the body loaded on demand.
 * - `subagent`: a spec the agent can delegate to: `metadata.name`, `metadata.description`,
 *   `metadata.tools`, optional `metadata.model`, and `content` = its instructions.
 */
export type EntryKind = (typeof ENTRY_KINDS)[number];

/** How each kind is headed wherever entries are listed for a model or a person. */
export const KIND_LABELS: Record<EntryKind, string> = {
  prompt: "Prompt notes",
  memory: "Memories",
  skill: "Skills",
  subagent: "Sub-agents",
};

/** `local` = one chat; `global` = the whole workspace, across chats. */
export const ENTRY_SCOPES = ["local", "global"] as const;
export type EntryScope = (typeof ENTRY_SCOPES)[number];

/** Who wrote an entry's current content. */
export const ENTRY_SOURCES = ["user", "agent", "refinement", "import"] as const;
export type EntrySource = (typeof ENTRY_SOURCES)[number];

/** What a revision did to its entry. */
export const REVISION_ACTIONS = ["create", "update", "delete", "restore"] as const;
export type RevisionAction = (typeof REVISION_ACTIONS)[number];

/** Why a revision happened. */
export const REVISION_CAUSES = ["manual", "agent", "refinement", "rollback", "import"] as const;
export type RevisionCause = (typeof REVISION_CAUSES)[number];

/** The id no entry may take: the base system prompt is not a harness entry. */
export const RESERVED_ENTRY_ID = "base_system_prompt";

/** The path an entry gets when none is given. */
export const DEFAULT_ENTRY_PATH = "general";

/**
 * The identity of an entry inside one workspace. `id` is unique per
 * workspace + scope + (chat, for local entries) + kind, so the same `id` may exist as a
 * global and a local entry at once — both stay visible in a chat's merged view.
 */
export interface EntryRef {
  kind: EntryKind;
  scope: EntryScope;
  /** The owning chat for `local` entries; always `null` for `global` ones. */
  chatId: string | null;
  id: string;
}

/**
 * One harness artifact as it currently is. Invariants (enforced by the core on every write):
 * `id` matches `[a-z0-9][a-z0-9_-]{0,79}` and is not `base_system_prompt`; `title` is one
 * line of at most 200 characters; `content` is non-empty and at most 64 KB of UTF-8;
 * `metadata` is a JSON object of at most 16 KB and satisfies the kind's contract; `version`
 * starts at 1 and grows by one on every change of this entry key, never going back (a
 * restore after a delete continues the count).
 */
export interface Entry extends EntryRef {
  title: string;
  content: string;
  /** A `/`-separated grouping such as `project-x/build`. Defaults to `general`. */
  path: string;
  /** Kind-specific structured fields (see the kind contracts) plus anything imported. */
  metadata: Record<string, unknown>;
  /** Pinned entries come first in the prompt view. */
  pinned: boolean;
  source: EntrySource;
  version: number;
  /** ISO 8601 UTC. */
  createdAt: string;
  /** ISO 8601 UTC. */
  updatedAt: string;
  /** User id of the actor who created the entry. */
  createdBy: string;
  /** User id of the actor behind the latest change. */
  updatedBy: string;
}

/**
 * An immutable record of one entry change. Revisions are only ever appended: a restore is a
 * new revision, never a rewrite. `before`/`after` are full entry states (`null` before a
 * create and after a delete), so the harness at any version can be rebuilt exactly from
 * revisions alone.
 */
export interface Revision {
  id: string;
  workspaceId: string;
  /** `entryKeyOf(ref)`: scope + chat + kind + id, stable across deletes and restores. */
  entryKey: string;
  entryId: string;
  kind: EntryKind;
  scope: EntryScope;
  chatId: string | null;
  action: RevisionAction;
  before: Entry | null;
  after: Entry | null;
  /** User id of the actor. */
  actorId: string;
  /** Free-text reason given by the caller; empty when none. */
  reason: string;
  cause: RevisionCause;
  /**
   * Where the change came from outside the app (e.g. `mcp:laptop (claude-code)` for a change
   * made through the MCP endpoint); absent for changes made in the app itself.
   */
  via?: string;
  /** The workspace harness version this revision produced (shared by all revisions of one batch). */
  harnessVersion: number;
  /** ISO 8601 UTC. */
  createdAt: string;
}

/** A revision before the storage has assigned its harness version. */
export type RevisionDraft = Omit<Revision, "harnessVersion">;

/** A page of results. `nextCursor` is `null` on the last page; cursors are opaque. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** The state of (part of) a harness at one harness version. */
export interface HarnessSnapshot {
  workspaceId: string;
  harnessVersion: number;
  /** Sorted by kind (in `ENTRY_KINDS` order), scope, chat, id. */
  entries: Entry[];
}

/** A summary of one refinement, for the prompt view's "recent refinements" lines. */
export interface RecentRefinement {
  id: string;
  summary: string;
  /** e.g. `applied`, `rejected`, `rolled_back`. */
  status?: string;
  /** ISO 8601 UTC. */
  createdAt: string;
}
