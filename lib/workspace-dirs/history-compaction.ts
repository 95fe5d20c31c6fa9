import type { JobQueue } from "@/lib/jobs";
import {
  FILE_BODY_GRACE_MS,
  collectUnreferencedFileBodies,
  compactDirHistories,
  retentionHorizon,
  type DirHistoryCompactionReport,
  type DirHistorySettings,
  type Sql,
} from "@/lib/sql-storage";
import type { SqlExecutor } from "@/lib/sql-storage/sql";
import { companyDirKey, userDirKey } from "./app-dirs";

/** The job that compacts every dir's history past the retention window (decision 0030). */
export const DIR_HISTORY_COMPACT_JOB = "dir-history-compact";

/** How often the compaction job runs (it schedules its next run as it starts). */
export const DIR_HISTORY_COMPACT_INTERVAL_SECONDS = 6 * 60 * 60;

/** The one waiting compaction job: enqueueing another while it waits is dropped. */
const SINGLETON_KEY = "all";

/** What `compactHistory` did, with the window it used. */
export interface HistoryCompactionReport extends DirHistoryCompactionReport {
  /** Versions made before this were compacted; `null` when compaction is off. */
  before: Date | null;
}

/**
 * The database-backed dirs of one workspace: its company knowledge and the personal memory of
 * its members (whose history counts against the workspace they commit in).
 */
export async function workspaceDirKeys(options: { sql: SqlExecutor; workspaceId: string }) {
  const { sql } = options;
  const members = await sql.all<{ userId: string }>(
    `SELECT "userId" FROM "Membership" WHERE "workspaceId" = ? ORDER BY "userId" ASC`,
    [options.workspaceId],
  );
  return [
    companyDirKey({ workspaceId: options.workspaceId }),
    ...members.map((member) => userDirKey(member)),
  ];
}

/**
 * Compacts the history of `dirKeys` (default: every database-backed dir) past the retention
 * window `retentionDays` (default: the settings'). Does nothing when retention is off.
 */
export async function compactHistory(options: {
  sql: Sql;
  settings: Pick<DirHistorySettings, "retentionDays">;
  dirKeys?: readonly string[];
  now?: Date;
  abortSignal?: AbortSignal;
}): Promise<HistoryCompactionReport> {
  const { retentionDays } = options.settings;
  if (retentionDays === null) return { dirs: [], rowsCompacted: 0, bytesFreed: 0, before: null };
  const before = retentionHorizon({ retentionDays, now: options.now });
  const report = await compactDirHistories({
    sql: options.sql,
    before,
    dirKeys: options.dirKeys,
    abortSignal: options.abortSignal,
  });
  return { ...report, before };
}

/**
 * Puts the next compaction on the job queue, `startAfterSeconds` from now (default one
 * interval). While one waits, another is dropped, so every instance may call this at start.
 */
export async function scheduleHistoryCompaction(options: {
  queue: JobQueue;
  startAfterSeconds?: number;
}): Promise<string | null> {
  return options.queue.enqueue(
    DIR_HISTORY_COMPACT_JOB,
    {},
    {
      singletonKey: SINGLETON_KEY,
      startAfterSeconds: options.startAfterSeconds ?? DIR_HISTORY_COMPACT_INTERVAL_SECONDS,
      retryLimit: 2,
    },
  );
}

/**
 * The compaction job's handler: schedules the next run first (so a run that fails, or a worker
 * that dies, does not end the cycle), then compacts every dir. Idempotent: a run repeated after
 * a crash finds nothing new to compact.
 */
export function historyCompactionJob(options: {
  sql: () => Sql;
  queue: () => JobQueue;
  settings: () => DirHistorySettings;
  log?: (line: string) => void;
}) {
  return async () => {
    await scheduleHistoryCompaction({ queue: options.queue() });
    const sql = options.sql();
    const report = await compactHistory({ sql, settings: options.settings() });
    if (report.bytesFreed > 0) {
      options.log?.(
        `cairn: compacted dir history: ${report.rowsCompacted} version(s) in ${report.dirs.length} dir(s), ${report.bytesFreed} bytes freed`,
      );
    }
    const bodies = await collectFileBodies({ sql });
    if (bodies.deleted > 0) {
      options.log?.(
        `cairn: removed ${bodies.deleted} file bodies no dir holds any more (${bodies.bytes} bytes)`,
      );
    }
    return {
      rowsCompacted: report.rowsCompacted,
      bytesFreed: report.bytesFreed,
      bodiesDeleted: bodies.deleted,
      bodyBytesFreed: bodies.bytes,
    };
  };
}

/**
 * Removes the file bodies no dir's file holds any more, once `graceMs` (default a day) has
 * passed since a commit last wrote them (decision 0035). Loops over pages until none are left.
 */
export async function collectFileBodies(options: {
  sql: Sql;
  now?: Date;
  graceMs?: number;
  abortSignal?: AbortSignal;
}): Promise<{ deleted: number; bytes: number }> {
  const before = new Date(
    (options.now ?? new Date()).getTime() - (options.graceMs ?? FILE_BODY_GRACE_MS),
  );
  let deleted = 0;
  let bytes = 0;
  for (;;) {
    const page = await collectUnreferencedFileBodies({
      sql: options.sql,
      before,
      abortSignal: options.abortSignal,
    });
    deleted += page.deleted;
    bytes += page.bytes;
    if (!page.more || page.deleted === 0) return { deleted, bytes };
  }
}
