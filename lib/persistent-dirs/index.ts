export {
  COMPANY_DIR,
  DOCS_DIR,
  USER_DIR,
  actorOf,
  companyDirKey,
  createAppDirs,
  userDirKey,
  userOwner,
  workspaceOwner,
  type AppDir,
  type AppDirKind,
  type AppDirsOptions,
  type AppExtraBody,
  type AppSession,
} from "./app-dirs";
export {
  InjectedFaultError,
  changeSetFingerprint,
  parseFaultInjection,
  withFaultInjection,
  type FaultInjectionSetting,
} from "./fault-injection";
export {
  createPersistentDirsService,
  type ContentView,
  type DirFileView,
  type FailureResolution,
  type FailureView,
  type HistoryEntry,
  type OpenedFile,
  type PersistentDirsService,
  type PersistentDirsServiceOptions,
  type RetryResult,
  type SaveFileResult,
  type TurnSaveStatus,
  type VisibleDir,
} from "./service";
export {
  DEFAULT_DURABILITY_INTERVAL_MS,
  DEFAULT_TURN_LEASE_MS,
  createDurability,
  durabilitySettingsFromEnv,
  type CommitRetryRunner,
  type Durability,
  type DurabilityOptions,
  type DurabilityPassResult,
} from "./durability";
export { getDurability, getPersistentDirs } from "./server";
