import type { CommitRecord } from "../commit-log";
import type { DirCommitResult } from "../types";

/** What `onPersistenceError` receives for each commit that ended `conflict` or `failed`. */
export interface PersistenceErrorEvent {
  commit: DirCommitResult;
  /** The durable record, or `null` when the commit log itself failed (see `commit.unrecorded`). */
  record: CommitRecord | null;
  /** The underlying error for `failed`; `undefined` for conflicts. */
  error: unknown;
}
