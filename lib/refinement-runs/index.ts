/**
 * The app's refinements: `/refine` and the agent's `refine` tool (`refine-tool.ts`), and the
 * jobs that run them, sweep stuck ones and refine automatically (`refinement-jobs.ts`).
 */
export {
  GLOBAL_REFINE_TOOL_REFUSED,
  createRefineTool,
  parseRefineCommand,
  type RefineRequest,
} from "./refine-tool";
export {
  REFINEMENT_JOB,
  maybeAutoRefine,
  refinementLock,
  refinementStore,
  requestFeedbackRefinement,
  requestRefinement,
  runRefinementJob,
  scheduleRefinement,
  sweepStuckRefinements,
  type RefinementJobPayload,
  type RefinementSweepResult,
} from "./refinement-jobs";
