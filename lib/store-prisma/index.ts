export { harnessStorageFor } from "./harness-storage-for";
export { SqliteHarnessStorage, type SqliteHarnessStorageOptions } from "./sqlite-harness-storage";
export { PrismaHarnessStorage } from "./harness-storage";
export {
  createPrismaDirBacking,
  getDirVersion,
  listDirCommits,
  listDirFiles,
  readDirFile,
  type DirCommitEntry,
  type DirCommitSource,
  type DirFile,
  type DirFileInfo,
  type PrismaDirBackingOptions,
} from "./prisma-dir-backing";
export {
  createPrismaCommitLog,
  type ListCommitsForOwnersOptions,
  type PrismaCommitLog,
} from "./prisma-commit-log";
export { PrismaRefinementHistory } from "./refinement-history";
export { PrismaRefinementStore } from "./refinement-store";
export {
  createSqliteDirBacking,
  type SqliteDirBacking,
  type SqliteDirBackingOptions,
} from "./sqlite-dir-backing";
export { dirBackingFor } from "./dir-backing-for";
export {
  commitContentsJson,
  readDirCommitDetail,
  type DirCommitDetail,
  type DirCommitFileChange,
  type RecordedContent,
} from "./dir-commit-contents";
export { createPrismaTurnJournal } from "./prisma-turn-journal";
