import { randomUUID } from "node:crypto";

import {
  type FileContent,
  fileMapFromEntries,
  HarnessConflictError,
  HarnessValidationError,
  type StoreOptions,
  type StoreResult,
  validateRelativePath,
} from "@/lib/harness";
import {
  DirIndexMap,
  type LazyDirCapability,
  type LoadOptions,
  type PersistentDirBacking,
} from "@/lib/harness/spi";
import { formatBytes } from "@/lib/harness/format-bytes";
import { commitContentsJson } from "./dir-commit-contents";
import {
  compactDirHistory,
  hasHistoryToCompact,
  historyRowBytes,
  retentionHorizon,
  type DirHistorySettings,
} from "./dir-history";
import { DirHistoryQuotaError, type DirHistoryQuota } from "./dir-history-quota-error";
import { parsePaths } from "./dir-history";
import { writeFileBodies } from "./file-bodies";
import { DirIndexCache } from "./internal/dir-index-cache";
import { DirSnapshotCache, copySnapshotOut } from "./internal/dir-snapshot-cache";
import { dirVersionReadsOf } from "./internal/dir-version-reads";
import {
  decodeFileContent,
  encodeFileContent,
  pageSize,
  sha256Hex,
  versionOf,
} from "./internal/files";
import {
  placeholders,
  toBool,
  toBytes,
  toDate,
  type Sql,
  type SqlExecutor,
  type SqlValue,
} from "./sql";

/** What produced a successful commit, as recorded in the dir's history. */
export type DirCommitSource =
  "turn" | "editor" | "retry" | "resolve" | "mcp" | "restore" | "import" | "review";

/** Options for `createDirBacking`. */
export interface DirBackingOptions<TExtraBody> {
  /** The database (`sqlFor(target)` / `getSql()`). */
  sql: Sql;
  /**
   * The row key of the dir for this turn, from the server-side `extraBody` (e.g. `user:<id>`,
   * `company:<workspaceId>`). Every load and store reads and writes only rows with this key.
   */
  dirKey: (options: { extraBody: TExtraBody }) => string;
  /** Who is committing, recorded on files (`updatedBy`) and history rows. Default: nobody. */
  actorId?: (extraBody: TExtraBody) => string | null;
  /** What the commit is, for the history. Default `"turn"`. */
  source?: DirCommitSource | ((extraBody: TExtraBody) => DirCommitSource);
  /** Where the commit came from outside the app (e.g. `mcp:laptop (claude-code)`), for the history. Default: none. */
  via?: (extraBody: TExtraBody) => string | null;
  /**
   * Where loads keep the snapshots they read (and commits refresh them), so a turn whose dir
   * has not changed since reads only its version from the database. Default: one cache per
   * database and process, bounded to 64 MiB of content (`DEFAULT_SNAPSHOT_CACHE_BYTES`).
   * `false` reads every file on every load.
   */
  snapshotCache?: DirSnapshotCache | false;
  /**
   * Where the lazy capability keeps the latest index of each dir (path → size, hash, time), so a
   * turn whose dir has not changed since reads only its version. Default: one cache per database
   * and process, bounded to `DEFAULT_INDEX_CACHE_ENTRIES` file entries. `false` reads the index
   * on every `loadIndex`.
   */
  indexCache?: DirIndexCache | false;
  /**
   * Bounds on the dir's history (decision 0030). Each commit adds its history row's bytes to the
   * dir's counter (`PersistentDirState.historyBytes`) and to its shared quota key's
   * (`DirHistoryUsage`) in its own transaction, whatever is set; a limit that is set is checked
   * there too, and a commit that would pass it writes nothing and throws `DirHistoryQuotaError`
   * — after compacting what is past the retention window, when that frees anything, and trying
   * once more. Default: no limits, no compaction.
   */
  history?: DirBackingHistoryOptions<TExtraBody>;
  /**
   * The seam for derived data (a search index, say): called inside the commit's own
   * transaction, after the file rows and the history row are written and before it commits, so
   * what it writes through `tx` lands with the commit or not at all. A throw rolls the whole
   * commit back (the store fails, and the change is kept on Commit failures as any failed
   * store). Not called for a lost compare-and-swap. Keep it to a few statements: the dir's
   * version row is locked meanwhile.
   */
  onDirCommitted?: (options: { tx: SqlExecutor; commit: DirCommitted }) => Promise<void>;
}

/** What one commit changed, as `onDirCommitted` sees it (validated, NFC paths). */
export interface DirCommitted {
  dirKey: string;
  /** The dir's new version (cursor). */
  version: number;
  actorId: string | null;
  source: DirCommitSource;
  /** Where the commit came from outside the app (`mcp:…`, `upload`, `import`), as the history records it. */
  via: string | null;
  /** Files that did not exist at the commit's base, with their content. */
  created: readonly { path: string; content: FileContent }[];
  /** Files that existed and were changed, with their new content. */
  updated: readonly { path: string; content: FileContent }[];
  deleted: readonly string[];
  at: Date;
}

/** The history bounds of a database-backed dir (see `DirBackingOptions.history`). */
export interface DirBackingHistoryOptions<TExtraBody> extends Partial<DirHistorySettings> {
  /**
   * The shared quota a commit counts against besides its dir's own (the app: `workspace:<id>` of
   * the committing Actor), or `null` for none. Default: none.
   */
  quotaKey?: (extraBody: TExtraBody) => string | null;
  /** Clock for the retention window. Default: the system clock. */
  now?: () => Date;
}

/** Thrown inside a store's transaction to roll it back when a history limit would be passed. */
class HistoryLimitReached {
  constructor(
    readonly quota: DirHistoryQuota,
    readonly limitBytes: number,
    /** The bytes counted with this commit's. */
    readonly totalBytes: number,
  ) {}
}

/** One file of a database-backed dir, without its content. */
export interface DirFileInfo {
  path: string;
  size: number;
  isText: boolean;
  sha256: string;
  updatedAt: Date;
  updatedBy: string | null;
}

/** One file of a database-backed dir, with its content (text or bytes, as stored). */
export interface DirFile extends DirFileInfo {
  content: FileContent;
}

/** One successful commit in a dir's history. */
export interface DirCommitEntry {
  id: string;
  dirKey: string;
  /** The dir version (cursor) this commit produced. */
  version: number;
  actorId: string | null;
  source: string;
  /** Where the commit came from outside the app (`mcp:<token> (<client>)`), or `null`. */
  via: string | null;
  created: string[];
  updated: string[];
  deleted: string[];
  createdAt: Date;
}

/** A load re-reads when a commit landed between reading the version and the files. */
const MAX_LOAD_ATTEMPTS = 10;

/**
 * Files per statement in a store. PostgreSQL: one round trip per 100 files (8 bound values
 * each, far below its 65,535). SQLite: one file per statement, a prepared statement reused
 * (a statement costs microseconds there, and one text is prepared once).
 */
function rowsPerStatement(sql: SqlExecutor): number {
  return sql.dialect === "sqlite" ? 1 : 100;
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const result: T[][] = [];
  for (let start = 0; start < items.length; start += size) {
    result.push(items.slice(start, start + size));
  }
  return result;
}

const SELECT_VERSION = `SELECT "version" FROM "PersistentDirState" WHERE "dirKey" = ?`;

async function readVersion(sql: SqlExecutor, dirKey: string): Promise<number> {
  const row = await sql.get<{ version: number }>(SELECT_VERSION, [dirKey]);
  return row ? Number(row.version) : 0;
}

// One snapshot cache and one index cache per database: every backing made for it (the app makes
// them per request) shares them.
const sharedCaches = new WeakMap<Sql, DirSnapshotCache>();
const sharedIndexCaches = new WeakMap<Sql, DirIndexCache>();

function sharedIndexCacheOf(sql: Sql): DirIndexCache {
  let cache = sharedIndexCaches.get(sql);
  if (!cache) {
    cache = new DirIndexCache();
    sharedIndexCaches.set(sql, cache);
  }
  return cache;
}

interface IndexRow {
  path: string;
  size: unknown;
  sha256: string;
  isText: unknown;
  updatedAt: unknown;
}

/** Hashes per body read: well below both databases' bound-value limits. */
const BODIES_PER_STATEMENT = 200;

function sharedCacheOf(sql: Sql): DirSnapshotCache {
  let cache = sharedCaches.get(sql);
  if (!cache) {
    cache = new DirSnapshotCache();
    sharedCaches.set(sql, cache);
  }
  return cache;
}

interface FileRow {
  path: string;
  content: unknown;
  isText: unknown;
  updatedAt: unknown;
}

/**
 * A `PersistentDirBacking` whose files are `PersistentFile` rows keyed by `dirKey` (an owner: a
 * user or a workspace), on SQLite and PostgreSQL alike (the SQL layer).
 *
 * - The cursor is `PersistentDirState.version`: `0` before the first commit, `+1` per commit.
 * - `store` runs in one write transaction: compare-and-swap on the version (an `UPDATE … WHERE
 *   version = cursor`, or creating the state row when the cursor is `0`), then the file rows,
 *   then a `DirCommit` history row. A lost race returns `conflict` and writes nothing.
 * - Text is stored as UTF-8 with `isText = true` and loads back as the same string; bytes load
 *   back as a `Uint8Array`, so both round-trip exactly.
 * - Loads go through a process-local snapshot cache (see `snapshotCache`), validated by the
 *   version read from the database on every load (loads that start together, a turn's dirs,
 *   read their versions in one statement): versions only grow and a commit changes the
 *   rows and the version in one transaction, so a snapshot cached at version V is exactly the
 *   database state at V, whichever instance committed. This relies on the same invariant as
 *   compare-and-swap: a dir's `PersistentDirState` row is never deleted or set back.
 */
export function createDirBacking<TExtraBody = unknown, TSession = unknown>(
  options: DirBackingOptions<TExtraBody>,
): PersistentDirBacking<TExtraBody, TSession> & LazyDirCapability<TExtraBody, TSession> {
  const { sql } = options;
  const cache =
    options.snapshotCache === false ? null : (options.snapshotCache ?? sharedCacheOf(sql));
  const sourceOf = (extraBody: TExtraBody): DirCommitSource =>
    typeof options.source === "function" ? options.source(extraBody) : (options.source ?? "turn");
  const perStatement = rowsPerStatement(sql);
  const indexCache =
    options.indexCache === false ? null : (options.indexCache ?? sharedIndexCacheOf(sql));
  // Loads of several dirs that start together read their versions in one statement.
  const versions = dirVersionReadsOf(sql);

  return {
    async loadIndex({ extraBody, abortSignal }: LoadOptions<TExtraBody, TSession>) {
      abortSignal?.throwIfAborted();
      const dirKey = options.dirKey({ extraBody });
      for (let attempt = 0; attempt < MAX_LOAD_ATTEMPTS; attempt += 1) {
        const before = await versions.read(dirKey);
        const cached = indexCache?.get(dirKey, before);
        if (cached) return { cursor: before, entries: cached };
        const rows = await sql.all<IndexRow>(
          `SELECT "path", "size", "sha256", "isText", "updatedAt" FROM "PersistentFile"
           WHERE "dirKey" = ?`,
          [dirKey],
        );
        const after = await versions.read(dirKey);
        abortSignal?.throwIfAborted();
        if (before !== after) continue;
        const entries = DirIndexMap.from(
          rows.map((row) => [
            row.path,
            {
              bytes: Number(row.size),
              hash: row.sha256,
              updatedAt: toDate(row.updatedAt),
              text: toBool(row.isText),
            },
          ]),
        );
        indexCache?.set(dirKey, after, entries);
        return { cursor: after, entries };
      }
      throw new HarnessConflictError({
        surface: "dir",
        message: `Dir ${dirKey} kept changing while its index was read; try again.`,
      });
    },

    async readBodies({ hashes, abortSignal }) {
      abortSignal?.throwIfAborted();
      // Bodies are content-addressed and never change: any version's body is valid, and one
      // that a turn pinned to an older version reads is still there (collection waits a grace
      // period after the last commit that wrote it).
      const result = new Map<string, FileContent>();
      const wanted = [...new Set(hashes)];
      for (const batch of chunks(wanted, BODIES_PER_STATEMENT)) {
        const rows = await sql.all<{ sha256: string; content: unknown }>(
          `SELECT "sha256", "content" FROM "FileBody" WHERE "sha256" IN (${placeholders(batch.length)})`,
          batch,
        );
        for (const row of rows) result.set(row.sha256, new Uint8Array(toBytes(row.content)));
        abortSignal?.throwIfAborted();
      }
      return result;
    },

    async load({ extraBody, abortSignal }: LoadOptions<TExtraBody, TSession>) {
      abortSignal?.throwIfAborted();
      const dirKey = options.dirKey({ extraBody });
      // Optimistic read without a long transaction: versions only grow and a commit's rows
      // become visible together, so equal versions before and after mean the files match it.
      for (let attempt = 0; attempt < MAX_LOAD_ATTEMPTS; attempt += 1) {
        const before = await versions.read(dirKey);
        const cached = cache?.get(dirKey, before);
        if (cached) {
          abortSignal?.throwIfAborted();
          const copy = copySnapshotOut(cached);
          return {
            files: fileMapFromEntries(copy.files),
            cursor: before,
            updatedAt: copy.updatedAt,
          };
        }
        const rows = await sql.all<FileRow>(
          `SELECT f."path", b."content", f."isText", f."updatedAt" FROM "PersistentFile" f
           JOIN "FileBody" b ON b."sha256" = f."sha256"
           WHERE f."dirKey" = ? ORDER BY f."path" ASC`,
          [dirKey],
        );
        const after = await versions.read(dirKey);
        abortSignal?.throwIfAborted();
        if (before !== after) continue;
        const updatedAt: Record<string, string> = Object.create(null) as Record<string, string>;
        for (const row of rows) updatedAt[row.path] = toDate(row.updatedAt).toISOString();
        const files = rows.map(
          (row) => [row.path, decodeFileContent(toBytes(row.content), toBool(row.isText))] as const,
        );
        // The cache copies what it keeps, so the caller's map below is its own.
        cache?.set(dirKey, { version: after, files, updatedAt: Object.entries(updatedAt) });
        return { files: fileMapFromEntries(files), cursor: after, updatedAt };
      }
      throw new HarnessConflictError({
        surface: "dir",
        message: `Dir ${dirKey} kept changing while it was loaded; try again.`,
      });
    },

    async store(storeOptions: StoreOptions<TExtraBody, TSession>): Promise<StoreResult> {
      const { extraBody, changes, cursor, abortSignal } = storeOptions;
      abortSignal?.throwIfAborted();
      const dirKey = options.dirKey({ extraBody });
      const expected = versionOf(cursor);
      if (expected === null) {
        throw new HarnessValidationError({
          surface: "commit",
          message: `Cursor ${JSON.stringify(cursor)} is not a version of a database-backed dir.`,
        });
      }
      // Validate everything before the transaction: a store is all or nothing.
      const created = changes.created.map((file) => ({
        path: validateRelativePath({ path: file.path }),
        content: file.content,
      }));
      const updated = changes.updated.map((file) => ({
        path: validateRelativePath({ path: file.path }),
        content: file.content,
      }));
      const writes = [...created, ...updated].map((file) => {
        const encoded = encodeFileContent(file.content);
        return { path: file.path, ...encoded, sha256: sha256Hex(encoded.bytes) };
      });
      const deletes = changes.deleted.map((path) => validateRelativePath({ path }));
      const actorId = options.actorId?.(extraBody) ?? null;
      const source = sourceOf(extraBody);
      const via = options.via?.(extraBody) ?? null;
      const next = expected + 1;
      const history = options.history;
      const quotaKey = history?.quotaKey?.(extraBody) ?? null;
      const maxDirBytes = history?.maxDirBytes ?? null;
      const maxSharedBytes = history?.maxSharedBytes ?? null;
      // The history row, and the bytes it adds to the counters (the paths as the change set gave them).
      const row = {
        contents: commitContentsJson(changes),
        created: JSON.stringify(changes.created.map((file) => file.path)),
        updated: JSON.stringify(changes.updated.map((file) => file.path)),
        deleted: JSON.stringify(changes.deleted),
      };
      const rowBytes = historyRowBytes(row);
      abortSignal?.throwIfAborted();
      let now = new Date();
      const commit = () =>
        sql.transaction(async (tx) => {
          // Compare-and-swap first: on a lost race nothing has been written. The dir's history
          // counter moves with the version, in the same statement.
          let dirBytes: number | null;
          if (expected === 0) {
            const inserted = await tx.run(
              `INSERT INTO "PersistentDirState" ("dirKey", "version", "updatedAt", "historyBytes")
               VALUES (?, ?, ?, ?) ON CONFLICT ("dirKey") DO NOTHING`,
              [dirKey, next, now, rowBytes],
            );
            dirBytes = inserted.changes === 1 ? rowBytes : null;
          } else {
            const swapped = await tx.get<{ historyBytes: number }>(
              `UPDATE "PersistentDirState"
               SET "version" = ?, "updatedAt" = ?, "historyBytes" = "historyBytes" + ?
               WHERE "dirKey" = ? AND "version" = ? RETURNING "historyBytes"`,
              [next, now, rowBytes, dirKey, expected],
            );
            dirBytes = swapped ? Number(swapped.historyBytes) : null;
          }
          if (dirBytes === null) return readVersion(tx, dirKey);
          if (maxDirBytes !== null && dirBytes > maxDirBytes) {
            throw new HistoryLimitReached("dir", maxDirBytes, dirBytes);
          }
          for (const paths of chunks(deletes, perStatement)) {
            await tx.run(
              `DELETE FROM "PersistentFile" WHERE "dirKey" = ? AND "path" IN (${placeholders(paths.length)})`,
              [dirKey, ...paths],
            );
          }
          // Bodies once by hash, then the manifest rows that point at them: O(changed) rows.
          await writeFileBodies({ tx, bodies: writes, now, rowsPerStatement: perStatement });
          for (const rows of chunks(writes, perStatement)) {
            const values: SqlValue[] = [];
            for (const write of rows) {
              values.push(
                dirKey,
                write.path,
                write.isText,
                write.bytes.byteLength,
                write.sha256,
                now,
                actorId,
              );
            }
            await tx.run(
              `INSERT INTO "PersistentFile"
                 ("dirKey", "path", "isText", "size", "sha256", "updatedAt", "updatedBy")
               VALUES ${rows.map(() => "(?, ?, ?, ?, ?, ?, ?)").join(", ")}
               ON CONFLICT ("dirKey", "path") DO UPDATE SET
                 "isText" = excluded."isText", "size" = excluded."size",
                 "sha256" = excluded."sha256", "updatedAt" = excluded."updatedAt",
                 "updatedBy" = excluded."updatedBy"`,
              values,
            );
          }
          await tx.run(
            `INSERT INTO "DirCommit"
               ("id", "dirKey", "version", "actorId", "source", "via", "created", "updated", "deleted", "contents", "createdAt", "historyBytes", "quotaKey")
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
            [
              randomUUID(),
              dirKey,
              next,
              actorId,
              source,
              via,
              row.created,
              row.updated,
              row.deleted,
              row.contents,
              now,
              rowBytes,
              quotaKey,
            ],
          );
          await options.onDirCommitted?.({
            tx,
            commit: {
              dirKey,
              version: next,
              actorId,
              source,
              via,
              created,
              updated,
              deleted: deletes,
              at: now,
            },
          });
          // The shared counter last: on PostgreSQL its row lock is held to the end of the
          // transaction, and every dir of the quota key (a workspace) commits through it.
          if (quotaKey !== null) {
            const shared = await tx.get<{ bytes: number }>(
              `INSERT INTO "DirHistoryUsage" ("quotaKey", "bytes", "updatedAt") VALUES (?, ?, ?)
               ON CONFLICT ("quotaKey") DO UPDATE SET "bytes" = "DirHistoryUsage"."bytes" + excluded."bytes",
                 "updatedAt" = excluded."updatedAt"
               RETURNING "bytes"`,
              [quotaKey, rowBytes, now],
            );
            const sharedBytes = Number(shared!.bytes);
            if (maxSharedBytes !== null && sharedBytes > maxSharedBytes) {
              throw new HistoryLimitReached("shared", maxSharedBytes, sharedBytes);
            }
          }
          return null;
        });
      let current: number | null;
      try {
        current = await commit();
      } catch (error) {
        if (!(error instanceof HistoryLimitReached)) throw error;
        // Past a limit: compact what is past the retention window (when there is anything new
        // there; one indexed read otherwise) and try once more before refusing.
        const retentionDays = history?.retentionDays ?? null;
        let retried: number | null | HistoryLimitReached = error;
        if (retentionDays !== null) {
          const before = retentionHorizon({ retentionDays, now: history?.now?.() });
          if (await hasHistoryToCompact({ sql, dirKey, before })) {
            const compacted = await compactDirHistory({ sql, dirKey, before, abortSignal });
            if (compacted.bytesFreed > 0) {
              abortSignal?.throwIfAborted();
              now = new Date();
              try {
                retried = await commit();
              } catch (again) {
                if (!(again instanceof HistoryLimitReached)) throw again;
                retried = again;
              }
            }
          }
        }
        if (retried instanceof HistoryLimitReached) {
          throw historyQuotaError({
            reached: retried,
            harnessDir: storeOptions.harnessDir,
            dirKey,
            quotaKey,
            addedBytes: rowBytes,
            retentionDays,
          });
        }
        current = retried;
      }
      if (current !== null) {
        return {
          status: "conflict",
          currentCursor: current,
          message: `${dirKey} is at version ${current}, not ${expected}: it changed since it was loaded.`,
        };
      }
      cache?.applyCommit(dirKey, {
        fromVersion: expected,
        toVersion: next,
        changes: { created, updated, deleted: deletes },
        updatedAt: now.toISOString(),
      });
      indexCache?.applyCommit(dirKey, {
        fromVersion: expected,
        toVersion: next,
        set: writes.map((write) => [
          write.path,
          { bytes: write.bytes.byteLength, hash: write.sha256, updatedAt: now, text: write.isText },
        ]),
        deleted: deletes,
      });
      return { status: "stored", cursor: next };
    },
  };
}

/** The refusal of a commit past a history limit, in words a person can act on. */
function historyQuotaError(options: {
  reached: HistoryLimitReached;
  harnessDir: string;
  dirKey: string;
  quotaKey: string | null;
  addedBytes: number;
  retentionDays: number | null;
}): DirHistoryQuotaError {
  const { reached, harnessDir, addedBytes, retentionDays } = options;
  const usedBytes = reached.totalBytes - addedBytes;
  const whose =
    reached.quota === "dir"
      ? `The history of ${harnessDir} is full`
      : `The history of this workspace's dirs is full`;
  const limit =
    reached.quota === "dir"
      ? `${formatBytes(reached.limitBytes)} per dir (CAIRN_DIR_HISTORY_MAX_BYTES)`
      : `${formatBytes(reached.limitBytes)} per workspace (CAIRN_WORKSPACE_HISTORY_MAX_BYTES)`;
  const compaction =
    retentionDays === null
      ? "Old versions are not compacted on this server (CAIRN_DIR_HISTORY_RETENTION_DAYS is off)"
      : `Versions older than ${retentionDays} day${retentionDays === 1 ? "" : "s"} are compacted automatically`;
  return new DirHistoryQuotaError({
    message:
      `${whose}: it keeps ${formatBytes(usedBytes)} of earlier versions, and this change ` +
      `would add ${formatBytes(addedBytes)}, past the limit of ${limit}. Nothing was ` +
      `written. ${compaction}; to save sooner, ask an admin to compact the history now ` +
      `(\`npx cairn dirs compact\`, with \`--retention-days\` for a shorter window) or to raise ` +
      `the limit.`,
    quota: reached.quota,
    dirKey: options.dirKey,
    quotaKey: reached.quota === "shared" ? options.quotaKey : null,
    limitBytes: reached.limitBytes,
    usedBytes,
    addedBytes,
  });
}

/** The current version (cursor) of a database-backed dir; `0` before its first commit. */
export async function getDirVersion(options: { sql: Sql; dirKey: string }): Promise<number> {
  return readVersion(options.sql, options.dirKey);
}

/** A `PersistentFile` row as listings read it (no content). */
export interface FileInfoRow {
  path: string;
  size: number;
  isText: unknown;
  sha256: string;
  updatedAt: unknown;
  updatedBy: string | null;
}

export function fileInfoOf(row: FileInfoRow): DirFileInfo {
  return {
    path: row.path,
    size: Number(row.size),
    isText: toBool(row.isText),
    sha256: row.sha256,
    updatedAt: toDate(row.updatedAt),
    updatedBy: row.updatedBy,
  };
}

/** Every file of a dir without content, sorted by path, and the version they were read at. */
export async function listDirFiles(options: {
  sql: Sql;
  dirKey: string;
  abortSignal?: AbortSignal;
}): Promise<{ files: DirFileInfo[]; version: number }> {
  const { sql, dirKey } = options;
  for (let attempt = 0; attempt < MAX_LOAD_ATTEMPTS; attempt += 1) {
    options.abortSignal?.throwIfAborted();
    const before = await readVersion(sql, dirKey);
    const rows = await sql.all<FileInfoRow>(
      `SELECT "path", "size", "isText", "sha256", "updatedAt", "updatedBy" FROM "PersistentFile"
       WHERE "dirKey" = ? ORDER BY "path" ASC`,
      [dirKey],
    );
    if ((await readVersion(sql, dirKey)) === before) {
      return { files: rows.map(fileInfoOf), version: before };
    }
  }
  throw new HarnessConflictError({
    surface: "dir",
    message: `Dir ${dirKey} kept changing while it was listed; try again.`,
  });
}

/** One file with its content and the dir version it was read at, or `null` when missing. */
export async function readDirFile(options: {
  sql: Sql;
  dirKey: string;
  path: string;
  abortSignal?: AbortSignal;
}): Promise<(DirFile & { version: number }) | null> {
  const { sql, dirKey } = options;
  const path = validateRelativePath({ path: options.path });
  for (let attempt = 0; attempt < MAX_LOAD_ATTEMPTS; attempt += 1) {
    options.abortSignal?.throwIfAborted();
    const before = await readVersion(sql, dirKey);
    const row = await sql.get<FileInfoRow & { content: unknown }>(
      `SELECT f."path", f."size", f."isText", f."sha256", f."updatedAt", f."updatedBy", b."content"
       FROM "PersistentFile" f JOIN "FileBody" b ON b."sha256" = f."sha256"
       WHERE f."dirKey" = ? AND f."path" = ?`,
      [dirKey, path],
    );
    if ((await readVersion(sql, dirKey)) !== before) continue;
    if (!row) return null;
    const info = fileInfoOf(row);
    return {
      ...info,
      content: decodeFileContent(toBytes(row.content), info.isText),
      version: before,
    };
  }
  throw new HarnessConflictError({
    surface: "dir",
    message: `Dir ${dirKey} kept changing while it was read; try again.`,
  });
}

/** A `DirCommit` row as the drivers return it: the path lists as JSON, the time as the driver's. */
interface DirCommitRow extends Omit<
  DirCommitEntry,
  "created" | "updated" | "deleted" | "createdAt"
> {
  created: string;
  updated: string;
  deleted: string;
  createdAt: unknown;
}

/**
 * A dir's successful commits, newest first. `cursor` is the previous page's `nextCursor`;
 * `limit` defaults to 50 (at most 500).
 */
export async function listDirCommits(options: {
  sql: Sql;
  dirKey: string;
  limit?: number;
  cursor?: string | null;
  abortSignal?: AbortSignal;
}): Promise<{ commits: DirCommitEntry[]; nextCursor: string | null }> {
  options.abortSignal?.throwIfAborted();
  const limit = pageSize(options.limit);
  let before: number | undefined;
  if (options.cursor !== undefined && options.cursor !== null && options.cursor !== "") {
    if (!/^\d+$/.test(options.cursor)) {
      throw new HarnessValidationError({
        surface: "cursor",
        message: "Invalid pagination cursor",
        details: { cursor: options.cursor },
      });
    }
    before = Number(options.cursor);
  }
  const rows = await options.sql.all<DirCommitRow>(
    `SELECT "id", "dirKey", "version", "actorId", "source", "via", "created", "updated", "deleted", "createdAt"
     FROM "DirCommit" WHERE "dirKey" = ? ${before === undefined ? "" : `AND "version" < ?`}
     ORDER BY "version" DESC, "createdAt" DESC LIMIT ?`,
    [options.dirKey, ...(before === undefined ? [] : [before]), limit + 1],
  );
  const page = rows.slice(0, limit);
  return {
    commits: page.map((row) => ({
      id: row.id,
      dirKey: row.dirKey,
      version: Number(row.version),
      actorId: row.actorId,
      source: row.source,
      via: row.via,
      created: parsePaths(row.created),
      updated: parsePaths(row.updated),
      deleted: parsePaths(row.deleted),
      createdAt: toDate(row.createdAt),
    })),
    nextCursor: rows.length > limit ? String(page.at(-1)!.version) : null,
  };
}
