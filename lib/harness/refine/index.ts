export {
  AUTOMATIC_TRIGGERS,
  EDIT_RESULTS,
  REFINEMENT_EDIT_ACTIONS,
  REFINEMENT_STATUSES,
  REFINEMENT_TRIGGERS,
  type ApprovalDecision,
  type AutomaticTrigger,
  type ConversationMessage,
  type EditResult,
  type ModelCallUsage,
  type NewRefinement,
  type OutcomeVerdict,
  type ProposedEdit,
  type RecordedEdit,
  type Refinement,
  type RefinementEditAction,
  type RefinementErrorInfo,
  type RefinementPlan,
  type RefinementStatus,
  type RefinementTrigger,
  type RefinementUsage,
  type ReviewDecision,
} from "./types";
export { RefinementError } from "./refinement-error";
export {
  InMemoryRefinementStore,
  clampRefinementLimit,
  decodeRefinementCursor,
  encodeRefinementCursor,
  filterLists,
  newRefinement,
  refinementIdTaken,
  refinementPage,
  wantsImported,
  type RefinementFilter,
  type RefinementPatch,
  type RefinementStore,
  type CreateRefinementOptions,
  type GetLastReviewAtOptions,
  type GetRefinementOptions,
  type ListRefinementsOptions,
  type UpdateRefinementOptions,
} from "./refinement-store";
export {
  REFINEMENT_CONTEXT_LIMITS,
  buildRefinementContext,
  conversationTail,
  type BuildRefinementContextOptions,
  type RefinementContext,
  type RefinementScopePolicy,
} from "./build-refinement-context";
export { PLANNING_SYSTEM_PROMPT, REVIEW_SYSTEM_PROMPT } from "./prompts";
export {
  REVIEW_MAX_OUTPUT_TOKENS,
  reviewDecisionSchema,
  reviewRefinement,
} from "./review-refinement";
export {
  PLANNING_MAX_OUTPUT_TOKENS,
  planRefinement,
  refinementPlanSchema,
} from "./plan-refinement";
export {
  MAX_REFINEMENT_EDITS,
  applyRefinement,
  type ApplyRefinementOptions,
  type ApplyRefinementResult,
} from "./apply-refinement";
export {
  createRefinementLock,
  defaultRefinementLock,
  heldRefinementLock,
  refinementLockKey,
  type RefinementLock,
} from "./refinement-lock";
export {
  listRecentRefinements,
  runRefinement,
  type RefinementTriggerInput,
  type RunRefinementOptions,
} from "./run-refinement";
export {
  MAX_OUTCOME_NOTE_LENGTH,
  approveRefinement,
  rejectRefinement,
  setOutcomeVerdict,
} from "./approve-refinement";
export {
  rollbackRefinement,
  type RollbackConflict,
  type RollbackDecisions,
  type RollbackResult,
} from "./rollback-refinement";
export { restoreHarnessToVersion } from "./restore-harness-to-version";
