import { type ErrorInfo } from "../errors";
import { type Entry, type EntryScope } from "../store";

/**
 * The refinement pipeline's data model. Everything here is plain JSON (timestamps are ISO 8601
 * strings in UTC) so a refinement can be stored, compared and shown without a mapping layer.
 */

/**
 * What started a refinement.
 * - `explicit`: `/refine`, a Refine button or the agent's `refine` tool (skips the review gate).
 * - `every-n-turns`, `compaction`, `feedback`: automatic triggers (go through the review gate);
 *   `feedback` is started by thumbs-down ratings on answers, which the host hands in as evidence.
 * - `rollback`, `restore`: undo operations, recorded as refinements themselves.
 * - `import`: history imported from a Prime Agent harness (read-only).
 */
export const REFINEMENT_TRIGGERS = [
  "explicit",
  "every-n-turns",
  "compaction",
  "feedback",
  "rollback",
  "restore",
  "import",
] as const;
export type RefinementTrigger = (typeof REFINEMENT_TRIGGERS)[number];

/** The triggers that go through the review gate (and count for the review cooldown). */
export const AUTOMATIC_TRIGGERS = ["every-n-turns", "compaction", "feedback"] as const;
export type AutomaticTrigger = (typeof AUTOMATIC_TRIGGERS)[number];

/**
 * Where a refinement ended.
 * - `applied`: every proposed edit applied (or was already in effect).
 * - `partial`: some edits applied, some failed validation.
 * - `no_changes`: the plan proposed no edits (a valid outcome), or none changed anything.
 * - `declined`: the review gate decided not to refine.
 * - `failed`: nothing applied (model error, truncated/malformed output, all edits invalid).
 * - `pending`: a global proposal waiting for an editor's or admin's approval.
 * - `rejected`: a pending proposal an editor or admin rejected.
 * - `imported`: read-only history imported from another harness; excluded from pipeline
 *   queries unless asked for.
 * - `queued`: requested and waiting in the job queue (the host records it before the run).
 * - `running`: a worker holds the scope's lock and is running it.
 */
export const REFINEMENT_STATUSES = [
  "queued",
  "running",
  "applied",
  "partial",
  "no_changes",
  "declined",
  "failed",
  "pending",
  "rejected",
  "imported",
] as const;
export type RefinementStatus = (typeof REFINEMENT_STATUSES)[number];

/** The actions a plan may propose. */
export const REFINEMENT_EDIT_ACTIONS = ["create", "update", "delete"] as const;
export type RefinementEditAction = (typeof REFINEMENT_EDIT_ACTIONS)[number];

/**
 * One edit exactly as the planning model proposed it. `action` and `kind` are plain strings on
 * purpose: an unknown value fails that one edit during validation instead of the whole plan.
 */
export interface ProposedEdit {
  action: string;
  kind: string;
  /** Required for update/delete; optional for create (then a slug of the title). */
  id?: string;
  title?: string;
  content?: string;
  path?: string;
  /** On create: the metadata. On update: shallow-merged into the current metadata (`null` removes a key). */
  metadata?: Record<string, unknown>;
  /** Why this edit; recorded on the entry's revision. */
  reason: string;
}

/** The planning model's proposal. */
export interface RefinementPlan {
  summary: string;
  rationale: string;
  expectedOutcome: string;
  edits: ProposedEdit[];
}

/** The review gate's decision. */
export interface ReviewDecision {
  shouldRefine: boolean;
  rationale: string;
  /** Focus for the planning step when `shouldRefine`. */
  instructions?: string;
}

/** An editor's or admin's decision on a pending global proposal. */
export interface ApprovalDecision {
  decision: "approved" | "rejected";
  /** User id. */
  by: string;
  /** ISO 8601 UTC. */
  at: string;
  note?: string;
}

/** A structured error as recorded on a refinement or one of its edits. */
export type RefinementErrorInfo = ErrorInfo;

/**
 * What happened to one edit.
 * - `applied`: written (its revision is `revisionId`).
 * - `unchanged`: valid, but the entry already had that state; nothing written.
 * - `failed`: refused with `error`; nothing written.
 * - `skipped`: left alone on purpose (a rollback whose person chose "keep").
 * - `pending`: valid, waiting for approval (`after` is the proposed state, unversioned).
 */
export const EDIT_RESULTS = ["applied", "unchanged", "failed", "skipped", "pending"] as const;
export type EditResult = (typeof EDIT_RESULTS)[number];

/** One edit of a refinement as recorded: what was proposed, what it touched and how it ended. */
export interface RecordedEdit {
  /** The edit as proposed (for rollbacks and restores: the inverse edit that was computed). */
  proposed: ProposedEdit;
  /** The entry's key (`entryKeyOf`) once known; `null` when the edit was too broken to address an entry. */
  entryKey: string | null;
  scope: EntryScope;
  /** The entry's version when the plan was made (`null`: it did not exist). Used by approval. */
  plannedVersion: number | null;
  /** The entry before the edit (`null` for a create or when unknown). */
  before: Entry | null;
  /** The entry after the edit (`null` for a delete or a failed edit). For `pending`: the proposed state. */
  after: Entry | null;
  result: EditResult;
  error?: RefinementErrorInfo;
  /** The revision the edit produced, when applied. */
  revisionId?: string;
}

/** Token usage of one model call. */
export interface ModelCallUsage {
  modelId: string;
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
}

/** Token usage of a refinement, per model call that ran. */
export interface RefinementUsage {
  review?: ModelCallUsage;
  plan?: ModelCallUsage;
}

/** A verdict on a refinement's expected outcome. */
export interface OutcomeVerdict {
  verdict: "confirmed" | "refuted";
  note: string;
  /** User id. */
  by: string;
  /** ISO 8601 UTC. */
  at: string;
}

/** One recorded run of the pipeline (or a rollback/restore, which are refinements too). */
export interface Refinement {
  id: string;
  workspaceId: string;
  /** The chat it ran in; `null` for workspace-level operations (restore, import). */
  chatId: string | null;
  /** Which entries it may edit: this chat's local ones, or the workspace's global ones. */
  scope: EntryScope;
  trigger: RefinementTrigger;
  status: RefinementStatus;
  /** The review gate's decision; `null` when it did not run (explicit, rollback, …) or failed. */
  review: ReviewDecision | null;
  /** The approval decision of a global proposal made in approval mode. */
  approval: ApprovalDecision | null;
  summary: string;
  rationale: string;
  expectedOutcome: string;
  /** User instructions (explicit trigger) or the review gate's instructions. */
  instructions: string | null;
  edits: RecordedEdit[];
  /** Why the refinement failed as a whole (model error, truncated/malformed output, forbidden). */
  error: RefinementErrorInfo | null;
  harnessVersionBefore: number | null;
  harnessVersionAfter: number | null;
  /** The model that produced the plan (or the review, when no plan was made). */
  model: string | null;
  usage: RefinementUsage | null;
  /** User id of the actor it ran for. */
  actorId: string | null;
  /** The refinement this one rolled back. */
  rollbackOf: string | null;
  outcome: OutcomeVerdict | null;
  /** ISO 8601 UTC. */
  createdAt: string;
  /** ISO 8601 UTC. */
  updatedAt: string;
}

/** A refinement to record: every field but `updatedAt` (which starts equal to `createdAt`). */
export type NewRefinement = Omit<Refinement, "updatedAt">;

/** One message of the conversation the pipeline reads (a UIMessage reduced to its text). */
export interface ConversationMessage {
  role: string;
  text: string;
}
