// Outcomes of answers: a person's thumbs up / down on an assistant turn, stored with what
// produced the answer (harness version, entries shown, dirs' cursors, model), counted per
// harness-version range, and fed back into refinement (the `feedback` trigger, the automatic
// supported / not supported verdict and the guard rail). See docs/refinements-in-the-app.md.
export {
  beforeAfter,
  judgeRefinement,
  versionRanges,
  wilsonInterval,
  type BeforeAfter,
  type Judgement,
  type RatedShare,
  type VersionRange,
} from "./stats";

export {
  FEEDBACK_TAG_LABELS,
  FEEDBACK_TAGS,
  rateTurnInputSchema,
  type ChatRating,
  type FeedbackTag,
  type RateTurnInput,
} from "./tags";
export {
  getTurnOutcome,
  listChatRatings,
  turnProvenance,
  type FeedbackRefinementRequester,
  type TurnOutcome,
} from "./turn-outcomes";
export { rateTurn, type RateTurnResult } from "./rate-turn";
export {
  countAnsweredFeedback,
  feedbackEvidence,
  listAnsweredFeedback,
  maybeFeedbackRefine,
  type AnsweredFeedback,
} from "./feedback-refine";
export {
  getAutoVerdicts,
  judgeRefinements,
  outcomeOverview,
  refinementOutcomes,
  scopeOfRefinement,
  type AutoVerdict,
  type OutcomeScope,
} from "./outcome-overview";
