export { Checkout } from "./checkout";
export { BodyCache, DEFAULT_BODY_CACHE_BYTES, sharedBodyCache } from "./body-cache";
export { tokensOf, type DirOverview } from "./dir-overview";
export {
  DirIndexMap,
  type DirIndex,
  type DirIndexEntry,
  type LazyDirCapability,
} from "./dir-index";
export {
  DIRECTORY_LISTING_DEFAULTS,
  type CheckoutDirInfo,
  type CheckoutFileInfo,
  type DirectoryEntry,
  type DirectoryListing,
} from "./checkout-listing";
export type { DirChanges } from "./checkout-state";
export { loadCheckout, type LoadCheckoutOptions } from "./load-checkout";
export { systemClock } from "./system-clock";
export {
  OPEN_COMMIT_STATUSES,
  PRIVATE_TO_SHARED,
  awaitsConfirmation,
  type CommitLog,
  type CommitRecord,
  type CommitRecordStatus,
  type CommitResolution,
  type FileConflict,
  type NewCommitRecord,
} from "./commit-log";
export {
  DEFAULT_RETRY_POLICY,
  JournalWriteError,
  createInMemorySpool,
  createInMemoryTurnJournal,
  createSpoolIdGenerator,
  nextAttemptAt,
  turnCommitId,
  type CommitSpool,
  type NewSpoolItem,
  type RetryPolicy,
  type SpoolItem,
  type TurnJournal,
  type TurnJournalEntry,
} from "./durability";
export {
  createFileSpool,
  decodeDurable,
  encodeDurable,
  isSpoolId,
  spoolKeyFromSecret,
  type RejectedSpoolFile,
  type SpoolRejection,
} from "./file-spool";
export {
  INTERRUPTED_ERROR,
  drainSpool,
  recoverInterruptedTurn,
  retryDueCommits,
  type DrainSpoolResult,
  type RecoverTurnResult,
  type RetrySweepResult,
} from "./recovery";
export { definePersistentDirs, resolveDirLimitsFor } from "./define-persistent-dirs";
export { FailedCommitsQuotaError } from "./failed-commits-quota-error";
export {
  DEFAULT_MIN_COPIED_CHARS,
  findCopiedText,
  type CopiedText,
  type NamedContent,
} from "./private-copies";
export { createInMemoryCommitLog, type InMemoryCommitLog } from "./in-memory-commit-log";
export { createInMemoryDirBacking, type InMemoryDirBacking } from "./in-memory-dir-backing";
export { fileMapFromEntries } from "./internal/content";
export {
  isProjectDirReference,
  loadLocalFolder,
  localDir,
  projectDir,
  resolveSourceDir,
  type LocalDirOptions,
  type ProjectDirReference,
  type SourceDir,
} from "./local-dir";
export {
  DEFAULT_MEMORY_DIR,
  DEFAULT_MEMORY_LISTING_LIMITS,
  memory,
  memorySkill,
  type MemoryDir,
  type MemoryListingLimits,
  type MemoryOptions,
  type MemorySkill,
} from "./memory";
export { DEFAULT_MAX_COMMIT_ATTEMPTS, summarizeChanges } from "./commit-engine";
export {
  openTurnCheckout,
  type OpenTurnCheckoutOptions,
  type PersistenceErrorEvent,
  type SessionFiles,
  type TurnCheckout,
  type TurnStatus,
} from "./open-turn-checkout";
export {
  DEFAULT_DIR_LIMITS,
  PATH_LIMITS,
  PERSISTENT_ROOT,
  joinHarnessPath,
  resolveDirLimits,
  resolvePersistentPath,
  validateHarnessDir,
  validateRelativePath,
} from "./paths";
export { commitChangeSet, type CommitChangeSetResult } from "./commit-change-set";
export {
  resolveConflict,
  retryCommit,
  type ConflictResolution,
  type RetryCommitOptions,
  type RetryCommitResult,
} from "./retry-commit";
export {
  COMMIT_MODES,
  type ChangeSet,
  type ChangeSummary,
  type ChangedFile,
  type Clock,
  type CommitMode,
  type DirCommitResult,
  type DirCursor,
  type DirLimits,
  type DirLimitsResolver,
  type FileContent,
  type FileMap,
  type HostFileChange,
  type HostFileContent,
  type HostWriteCommit,
  type LoadOptions,
  type LoadResult,
  type PersistenceResult,
  type PersistentDir,
  type PersistentDirBacking,
  type PersistentDirTraceEvent,
  type SkipReason,
  type StoreOptions,
  type StoreResult,
  type SuggestOptions,
} from "./types";
export { formatBytes } from "../format-bytes";
