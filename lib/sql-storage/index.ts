/**
 * Adapters of the core's ports on the database, one per port for SQLite and PostgreSQL alike,
 * over the SQL layer in `./sql` (see docs/data-layer.md and docs/decisions/0017).
 */
export { SqlHarnessStorage, harnessStorageFor } from "./harness-storage";
export {
  createDirBacking,
  getDirVersion,
  listDirCommits,
  listDirFiles,
  readDirFile,
  type DirBackingHistoryOptions,
  type DirBackingOptions,
  type DirCommitted,
  type DirCommitEntry,
  type DirCommitSource,
  type DirFile,
  type DirFileInfo,
} from "./dir-backing";
export {
  DEFAULT_DIR_LISTING_LIMIT,
  MAX_DIR_LISTING_FOLDERS,
  MAX_DIR_LISTING_LIMIT,
  listDirPage,
  pageFiles,
  type DirListing,
  type DirListingFolder,
  type DirListingOptions,
  type DirListingPage,
} from "./dir-listing";
export {
  createCommitLog,
  DEFAULT_FAILED_COMMITS_MAX_BYTES,
  type DatabaseCommitLog,
  type ListCommitsForOwnersOptions,
} from "./sql-commit-log";
export { createTurnJournal } from "./turn-journal";
export { SqlRefinementStore } from "./sql-refinement-store";
export { SqlRefinementHistory } from "./sql-refinement-history";
export { DirSnapshotCache } from "./internal/dir-snapshot-cache";
export { closeSql, getSql, sqlFor, sqlForDb, type Sql } from "./sql";
export {
  commitContentsJson,
  readDirCommitDetail,
  type DirCommitDetail,
  type DirCommitFileChange,
  type RecordedContent,
} from "./dir-commit-contents";
export {
  compactDirHistories,
  compactDirHistory,
  DEFAULT_DIR_HISTORY_SETTINGS,
  getDirHistoryUsage,
  getSharedHistoryBytes,
  hasHistoryToCompact,
  retentionHorizon,
  type DirCompactionResult,
  type DirHistoryCompactionReport,
  type DirHistorySettings,
  type DirHistoryUsage,
} from "./dir-history";
export { DirHistoryQuotaError, type DirHistoryQuota } from "./dir-history-quota-error";
export {
  FILE_BODY_GRACE_MS,
  collectUnreferencedFileBodies,
  writeFileBodies,
  type FileBodyWrite,
} from "./file-bodies";
