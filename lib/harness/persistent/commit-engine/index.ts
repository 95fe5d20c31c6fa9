// The commit engine: one place that applies a change set to a dir (see commit-change.ts).
export {
  applyChangeSet,
  DEFAULT_MAX_COMMIT_ATTEMPTS,
  loadCurrent,
  MAX_COMMIT_ROUNDS,
  type ApplyChangeSetOptions,
  type ApplyOutcome,
} from "./apply-change-set";
export {
  commitChange,
  mergedOf,
  type CommitChangeOptions,
  type CommitChangeResult,
  type SettledCommit,
} from "./commit-change";
export {
  summarizeChanges,
  toPersistenceResult,
  type CommitTraceContext,
  type CommitTraceSink,
} from "./commit-trace";
export {
  keepUnsettledTurnCommit,
  type KeepUnsettledTurnCommitOptions,
} from "./keep-unsettled-turn-commit";
