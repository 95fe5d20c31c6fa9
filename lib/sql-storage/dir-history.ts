import type { Sql, SqlExecutor } from "./sql";

/**
 * Bounds on a database-backed dir's history (decision 0030). Every commit adds a `DirCommit` row
 * holding the text of each file it wrote; these settings cap what those rows may hold and say
 * when old contents may go.
 */
export interface DirHistorySettings {
  /** Bytes of history one dir may hold. `null`: no limit. Default 200 MiB. */
  maxDirBytes: number | null;
  /**
   * Bytes of history all dirs charged to one shared quota key may hold together (the app: one
   * workspace). `null`: no limit. Default 1 GiB.
   */
  maxSharedBytes: number | null;
  /**
   * Days a version's contents are kept in full; older versions are compacted (their contents
   * dropped, except what a kept version needs as its "before"). `null`: never compacted.
   * Default 30.
   */
  retentionDays: number | null;
}

const MIB = 1024 * 1024;

/** The defaults of `CAIRN_DIR_HISTORY_MAX_BYTES`, `CAIRN_WORKSPACE_HISTORY_MAX_BYTES`, `CAIRN_DIR_HISTORY_RETENTION_DAYS`. */
export const DEFAULT_DIR_HISTORY_SETTINGS: Readonly<DirHistorySettings> = Object.freeze({
  maxDirBytes: 200 * MIB,
  maxSharedBytes: 1024 * MIB,
  retentionDays: 30,
});

/** The start of the retention window at `now`: versions made before it may be compacted. */
export function retentionHorizon(options: { retentionDays: number; now?: Date }): Date {
  return new Date((options.now ?? new Date()).getTime() - options.retentionDays * 86_400_000);
}

/**
 * The bytes a history row holds: its `contents` JSON and its three path lists, UTF-8. The
 * migration's backfill computes the same (`octet_length` / `length(CAST(… AS BLOB))`).
 */
export function historyRowBytes(row: {
  contents: string | null;
  created: string;
  updated: string;
  deleted: string;
}): number {
  return (
    Buffer.byteLength(row.contents ?? "", "utf8") +
    Buffer.byteLength(row.created, "utf8") +
    Buffer.byteLength(row.updated, "utf8") +
    Buffer.byteLength(row.deleted, "utf8")
  );
}

/** What a dir's history holds, from its counters. */
export interface DirHistoryUsage {
  /** Bytes the dir's history rows hold (`PersistentDirState.historyBytes`). */
  dirBytes: number;
  /** Versions below this were compacted; 0 when never. */
  compactedBelow: number;
}

/** The dir's history counter and compaction mark (zeros before its first commit). */
export async function getDirHistoryUsage(options: {
  sql: SqlExecutor;
  dirKey: string;
}): Promise<DirHistoryUsage> {
  const row = await options.sql.get<{ historyBytes: number; compactedBelow: number }>(
    `SELECT "historyBytes", "compactedBelow" FROM "PersistentDirState" WHERE "dirKey" = ?`,
    [options.dirKey],
  );
  return {
    dirBytes: Number(row?.historyBytes ?? 0),
    compactedBelow: Number(row?.compactedBelow ?? 0),
  };
}

/** Bytes of history counted against a shared quota key (0 when none). */
export async function getSharedHistoryBytes(options: {
  sql: SqlExecutor;
  quotaKey: string;
}): Promise<number> {
  const row = await options.sql.get<{ bytes: number }>(
    `SELECT "bytes" FROM "DirHistoryUsage" WHERE "quotaKey" = ?`,
    [options.quotaKey],
  );
  return Number(row?.bytes ?? 0);
}

/**
 * Whether the dir has versions made before `before` that no compaction has looked at yet: one
 * indexed read (the newest row before `before` against the dir's compaction mark), so a commit
 * refused by its quota can afford to ask before compacting.
 */
export async function hasHistoryToCompact(options: {
  sql: SqlExecutor;
  dirKey: string;
  before: Date;
}): Promise<boolean> {
  const { sql, dirKey } = options;
  const newest = await sql.get<{ version: number }>(
    `SELECT "version" FROM "DirCommit" WHERE "dirKey" = ? AND "createdAt" < ?
     ORDER BY "createdAt" DESC, "version" DESC LIMIT 1`,
    [dirKey, options.before],
  );
  if (!newest) return false;
  const { compactedBelow } = await getDirHistoryUsage({ sql, dirKey });
  return Number(newest.version) >= compactedBelow;
}

/** What compacting one dir's history did. */
export interface DirCompactionResult {
  dirKey: string;
  /** Versions below this are compacted now (the oldest version inside the window). */
  compactedBelow: number;
  /** History rows whose contents were cut down. */
  rowsCompacted: number;
  /** Bytes taken off the dir's history (and off each row's shared quota). */
  bytesFreed: number;
}

interface CandidateRow {
  id: string;
  version: number;
  created: string;
  updated: string;
  deleted: string;
}

/** A commit row's JSON list of paths (`created`, `updated`, `deleted`); `[]` when unreadable. */
export function parsePaths(json: string): string[] {
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value)
      ? value.filter((item): item is string => typeof item === "string")
      : [];
  } catch {
    return [];
  }
}

const SCAN_BATCH = 500;
/** History rows rewritten per transaction by a compaction. */
const REWRITE_BATCH = 50;

/**
 * Drops `paths` from one history row's contents and takes the bytes off its dir's counter and
 * its shared quota's, in the caller's transaction; conditional on the row being unchanged since
 * it was read, so a concurrent compaction never counts a row twice. Returns the bytes freed.
 */
async function dropContents(
  tx: SqlExecutor,
  dirKey: string,
  id: string,
  paths: ReadonlySet<string>,
): Promise<number> {
  const row = await tx.get<{
    contents: string | null;
    created: string;
    updated: string;
    deleted: string;
    historyBytes: number;
    quotaKey: string | null;
  }>(
    `SELECT "contents", "created", "updated", "deleted", "historyBytes", "quotaKey"
     FROM "DirCommit" WHERE "id" = ?`,
    [id],
  );
  if (!row || row.contents === null) return 0;
  let contents: Record<string, unknown>;
  try {
    contents = JSON.parse(row.contents) as Record<string, unknown>;
  } catch {
    return 0;
  }
  let dropped = false;
  for (const path of paths) {
    if (Object.hasOwn(contents, path)) {
      delete contents[path];
      dropped = true;
    }
  }
  if (!dropped) return 0;
  const json = JSON.stringify(contents);
  const bytes = historyRowBytes({ ...row, contents: json });
  const delta = Number(row.historyBytes) - bytes;
  const { changes } = await tx.run(
    `UPDATE "DirCommit" SET "contents" = ?, "historyBytes" = ? WHERE "id" = ? AND "historyBytes" = ?`,
    [json, bytes, id, row.historyBytes],
  );
  if (changes !== 1) return 0;
  await tx.run(
    `UPDATE "PersistentDirState" SET "historyBytes" = "historyBytes" - ? WHERE "dirKey" = ?`,
    [delta, dirKey],
  );
  if (row.quotaKey !== null) {
    await tx.run(
      `UPDATE "DirHistoryUsage" SET "bytes" = "bytes" - ?, "updatedAt" = ? WHERE "quotaKey" = ?`,
      [delta, new Date(), row.quotaKey],
    );
  }
  return delta;
}

/**
 * Compacts one dir's history before `before` (decision 0030). The versions kept in full are
 * every version from the oldest one made at or after `before`; below it, a version keeps only
 * the content a later version needs as its "before" — for each path, the content of the newest
 * compacted version that touched it — and drops the rest. Rows are never deleted: who, when,
 * which paths and where from stay (the Files history and the Memory page's provenance read
 * them); a dropped file reads as `compacted` in the history.
 *
 * Rows are rewritten in transactions of up to 50 that also take their bytes off the dir's
 * counter and their shared quota's, each conditional on the row being unchanged since it was read:
 * concurrent commits (which only add) and a concurrent compaction (which loses the race) leave
 * the counters exact. Versions already compacted are only read again when they still hold
 * contents.
 */
export async function compactDirHistory(options: {
  sql: Sql;
  dirKey: string;
  before: Date;
  abortSignal?: AbortSignal;
}): Promise<DirCompactionResult> {
  const { sql, dirKey, abortSignal } = options;
  const result: DirCompactionResult = {
    dirKey,
    compactedBelow: 0,
    rowsCompacted: 0,
    bytesFreed: 0,
  };
  const state = await sql.get<{ compactedBelow: number }>(
    `SELECT "compactedBelow" FROM "PersistentDirState" WHERE "dirKey" = ?`,
    [dirKey],
  );
  if (!state) return result;
  const compactedBelow = Number(state.compactedBelow);
  result.compactedBelow = compactedBelow;
  // Kept in full: every version from the oldest one made inside the window. Both reads walk the
  // (dirKey, createdAt) index from the window's edge; versions follow commit time, and where two
  // instances' clocks disagree the lower version wins, so a version inside the window is kept.
  const lastBefore = await sql.get<{ version: number }>(
    `SELECT "version" FROM "DirCommit" WHERE "dirKey" = ? AND "createdAt" < ?
     ORDER BY "createdAt" DESC, "version" DESC LIMIT 1`,
    [dirKey, options.before],
  );
  if (!lastBefore) return result;
  const firstInside = await sql.get<{ version: number }>(
    `SELECT "version" FROM "DirCommit" WHERE "dirKey" = ? AND "createdAt" >= ?
     ORDER BY "createdAt" ASC, "version" ASC LIMIT 1`,
    [dirKey, options.before],
  );
  const keepFrom = Math.min(
    Number(lastBefore.version) + 1,
    firstInside ? Number(firstInside.version) : Number.MAX_SAFE_INTEGER,
  );
  if (keepFrom <= compactedBelow) return result;

  // Pass 1, newest first and without contents: which paths of which rows a newer compacted
  // version supersedes. Rows compacted before are read only while they still hold contents.
  const seen = new Set<string>();
  const superseded: Array<{ id: string; paths: Set<string> }> = [];
  let below = keepFrom;
  for (;;) {
    abortSignal?.throwIfAborted();
    const rows = await sql.all<CandidateRow>(
      `SELECT "id", "version", "created", "updated", "deleted" FROM "DirCommit"
       WHERE "dirKey" = ? AND "version" < ?
         AND ("version" >= ? OR ("contents" IS NOT NULL AND "contents" <> '{}'))
       ORDER BY "version" DESC LIMIT ?`,
      [dirKey, below, compactedBelow, SCAN_BATCH],
    );
    for (const row of rows) {
      const written = [...parsePaths(row.created), ...parsePaths(row.updated)];
      const drop = new Set(written.filter((path) => seen.has(path)));
      if (drop.size > 0) superseded.push({ id: row.id, paths: drop });
      for (const path of [...written, ...parsePaths(row.deleted)]) seen.add(path);
    }
    if (rows.length < SCAN_BATCH) break;
    below = Number(rows.at(-1)!.version);
  }

  // Pass 2: rewrite the rows that hold superseded contents, with their counters, a batch of rows
  // per transaction.
  for (let start = 0; start < superseded.length; start += REWRITE_BATCH) {
    abortSignal?.throwIfAborted();
    const batch = superseded.slice(start, start + REWRITE_BATCH);
    const freed = await sql.transaction(async (tx) => {
      const done: number[] = [];
      for (const { id, paths } of batch) {
        const delta = await dropContents(tx, dirKey, id, paths);
        if (delta > 0) done.push(delta);
      }
      return done;
    });
    result.rowsCompacted += freed.length;
    result.bytesFreed += freed.reduce((sum, delta) => sum + delta, 0);
  }
  // Only ever forward: a compaction that read an older window changes nothing it did not see.
  await sql.run(
    `UPDATE "PersistentDirState" SET "compactedBelow" = ? WHERE "dirKey" = ? AND "compactedBelow" < ?`,
    [keepFrom, dirKey, keepFrom],
  );
  result.compactedBelow = keepFrom;
  return result;
}

/** What compacting several dirs did. */
export interface DirHistoryCompactionReport {
  dirs: DirCompactionResult[];
  rowsCompacted: number;
  bytesFreed: number;
}

/**
 * Compacts the history of `dirKeys`, or of every database-backed dir when absent, before
 * `before` (see `compactDirHistory`). One dir at a time; dirs with nothing new past the window
 * cost one indexed read each.
 */
export async function compactDirHistories(options: {
  sql: Sql;
  before: Date;
  dirKeys?: readonly string[];
  abortSignal?: AbortSignal;
}): Promise<DirHistoryCompactionReport> {
  const { sql, before, abortSignal } = options;
  const report: DirHistoryCompactionReport = { dirs: [], rowsCompacted: 0, bytesFreed: 0 };
  const compact = async (dirKey: string) => {
    if (!(await hasHistoryToCompact({ sql, dirKey, before }))) return;
    const result = await compactDirHistory({ sql, dirKey, before, abortSignal });
    report.dirs.push(result);
    report.rowsCompacted += result.rowsCompacted;
    report.bytesFreed += result.bytesFreed;
  };
  if (options.dirKeys) {
    for (const dirKey of options.dirKeys) await compact(dirKey);
    return report;
  }
  let after = "";
  for (;;) {
    abortSignal?.throwIfAborted();
    const rows = await sql.all<{ dirKey: string }>(
      `SELECT "dirKey" FROM "PersistentDirState" WHERE "dirKey" > ? ORDER BY "dirKey" ASC LIMIT ?`,
      [after, SCAN_BATCH],
    );
    for (const row of rows) await compact(row.dirKey);
    if (rows.length < SCAN_BATCH) break;
    after = rows.at(-1)!.dirKey;
  }
  return report;
}
