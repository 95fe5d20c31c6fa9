export * from "./app-dirs";
export {
  WORKSPACE_DIR_LIMITS_TTL_MS,
  createWorkspaceDirLimitsCache,
  type WorkspaceDirLimitsCache,
} from "./workspace-dir-limits";
export {
  InjectedFaultError,
  changeSetFingerprint,
  parseFaultInjection,
  withFaultInjection,
  type FaultInjectionSetting,
} from "./fault-injection";
export {
  createPersistentDirsService,
  EMPTY_TURN_SAVE_STATUS,
  type CommitDetail,
  type DirBrowsePage,
  type ContentView,
  type DirFileView,
  type FailureResolution,
  type FailureView,
  type HistoryEntry,
  type OpenedFile,
  type PendingChange,
  type PendingChangeResult,
  type PersistentDirsService,
  type PersistentDirsServiceOptions,
  type RestoreResult,
  type RetryResult,
  type SaveFileResult,
  type TurnRetryResult,
  type TurnSaveStatus,
  type VisibleDir,
} from "./dirs-service";
export {
  COMMIT_RETRY_JOB,
  DEFAULT_DURABILITY_INTERVAL_MS,
  DEFAULT_TURN_LEASE_MS,
  createDurability,
  type CommitRetryPayload,
  type CommitRetryRunner,
  type RetryScheduleResult,
  type Durability,
  type DurabilityOptions,
  type DurabilityPassResult,
} from "./durability-setup";
export {
  DIR_HISTORY_COMPACT_INTERVAL_SECONDS,
  DIR_HISTORY_COMPACT_JOB,
  collectFileBodies,
  compactHistory,
  historyCompactionJob,
  scheduleHistoryCompaction,
  workspaceDirKeys,
  type HistoryCompactionReport,
} from "./history-compaction";
export { getDurability, getPersistentDirs } from "./process-dirs";
