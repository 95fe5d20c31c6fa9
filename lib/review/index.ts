export {
  approveSuggestion,
  dirSuggestionFiles,
  rejectSuggestion,
  type ApproveResult,
  type ReviewDeps,
  type SuggestionConflict,
  type SuggestionEdit,
} from "./review";
export { suggestGlobalEntryChange } from "./suggest-entry";
export {
  countOpenSuggestions,
  createSuggestion,
  dirProposalOf,
  getSuggestion,
  listPendingRefinements,
  listSuggestions,
  type PendingRefinementView,
  proposalPaths,
  type DirProposal,
  type EntryProposal,
  type EntryProposalFields,
  type NewSuggestion,
  type SuggestionSource,
  type SuggestionStatus,
  type SuggestionTarget,
  type SuggestionView,
} from "./suggestion-store";
export { promoteToTeam, type PromotionResult, type PromotionTarget } from "./promote";
