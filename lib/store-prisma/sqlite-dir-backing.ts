import { createHash, randomUUID } from "node:crypto";

import Database from "better-sqlite3";

import {
  HarnessValidationError,
  fileMapFromEntries,
  validateRelativePath,
  type DirCursor,
  type FileContent,
  type LoadOptions,
  type PersistentDirBacking,
  type StoreOptions,
  type StoreResult,
} from "@/lib/harness";
import { commitContentsJson } from "./dir-commit-contents";
import { DirSnapshotCache, copySnapshotOut } from "./internal/dir-snapshot-cache";
import type { DirCommitSource } from "./prisma-dir-backing";

/** Options of `createSqliteDirBacking`: those of `createPrismaDirBacking`, on a connection. */
export type SqliteDirBackingOptions<TExtraBody> = {
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
   * Where loads keep the snapshots they read (and commits refresh them). Default: one cache
   * per connection, bounded to 64 MiB of content. `false` reads every file on every load.
   */
  snapshotCache?: DirSnapshotCache | false;
} & (
  | {
      /** A migrated Cairn SQLite database (the file Prisma uses). */
      filePath: string;
      /** How long a write waits for another connection's lock. Default 5,000 ms, as Prisma's. */
      busyTimeoutMs?: number;
    }
  | {
      /** A connection the caller owns; `close()` leaves it open. */
      database: Database.Database;
    }
);

/** A dir backing on a better-sqlite3 connection; `close()` closes a connection it opened. */
export type SqliteDirBacking<TExtraBody = unknown, TSession = unknown> = PersistentDirBacking<
  TExtraBody,
  TSession
> & { close(): void };

interface FileRow {
  path: string;
  content: Buffer;
  isText: number;
  updatedAt: string | number;
}

// ignoreBOM keeps a leading U+FEFF: text must round-trip exactly (as the Prisma backing).
const textDecoder = new TextDecoder("utf-8", { ignoreBOM: true });

function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** The same encoding as the Prisma backing: UTF-8 with `isText = 1`, or the bytes as they are. */
function encodeContent(content: FileContent): { bytes: Buffer; isText: boolean } {
  return typeof content === "string"
    ? { bytes: Buffer.from(content, "utf8"), isText: true }
    : { bytes: Buffer.from(content.buffer, content.byteOffset, content.byteLength), isText: false };
}

function decodeContent(row: Pick<FileRow, "content" | "isText">): FileContent {
  return row.isText !== 0 ? textDecoder.decode(row.content) : new Uint8Array(row.content);
}

/**
 * Dates in the format Prisma writes to SQLite (ISO 8601 with `+00:00`), so rows written here
 * and through Prisma compare, sort and read back alike.
 */
function toStoredDate(date: Date): string {
  return date.toISOString().replace(/Z$/, "+00:00");
}

function fromStoredDate(value: string | number): string {
  return new Date(value).toISOString();
}

function versionOf(cursor: DirCursor): number | null {
  const version = typeof cursor === "string" && /^\d+$/.test(cursor) ? Number(cursor) : cursor;
  return typeof version === "number" && Number.isSafeInteger(version) && version >= 0
    ? version
    : null;
}

function isConstraintError(error: unknown): boolean {
  return (
    error instanceof Database.SqliteError &&
    (error.code === "SQLITE_CONSTRAINT_PRIMARYKEY" || error.code === "SQLITE_CONSTRAINT_UNIQUE")
  );
}

interface Write {
  path: string;
  bytes: Buffer;
  isText: boolean;
}

interface Commit {
  dirKey: string;
  expected: number;
  writes: readonly Write[];
  deletes: readonly string[];
  actorId: string | null;
  source: DirCommitSource;
  via: string | null;
  history: { created: string; updated: string; deleted: string; contents: string };
  now: Date;
}

/** What a connection needs for dirs, prepared once and shared by every backing on it. */
interface Connection {
  cache: DirSnapshotCache;
  readVersion(dirKey: string): number;
  /** The version and every file of a dir, read in one transaction (one consistent snapshot). */
  readDir(dirKey: string): { version: number; rows: FileRow[] };
  /** The commit in one `BEGIN IMMEDIATE` transaction; the current version on a lost race. */
  commit(commit: Commit): { status: "stored" } | { status: "conflict"; current: number };
}

const connections = new WeakMap<Database.Database, Connection>();

function connectionOf(database: Database.Database): Connection {
  const existing = connections.get(database);
  if (existing) return existing;
  const selectVersion = database
    .prepare<[string], number>(`SELECT "version" FROM "PersistentDirState" WHERE "dirKey" = ?`)
    .pluck();
  const selectFiles = database.prepare<[string], FileRow>(
    `SELECT "path", "content", "isText", "updatedAt" FROM "PersistentFile"
      WHERE "dirKey" = ? ORDER BY "path" ASC`,
  );
  const createState = database.prepare(
    `INSERT INTO "PersistentDirState" ("dirKey", "version", "updatedAt") VALUES (?, ?, ?)`,
  );
  const swapState = database.prepare(
    `UPDATE "PersistentDirState" SET "version" = ?, "updatedAt" = ?
      WHERE "dirKey" = ? AND "version" = ?`,
  );
  const deleteFile = database.prepare(
    `DELETE FROM "PersistentFile" WHERE "dirKey" = ? AND "path" = ?`,
  );
  const upsertFile = database.prepare(
    `INSERT INTO "PersistentFile"
        ("dirKey", "path", "content", "isText", "size", "sha256", "updatedAt", "updatedBy")
      VALUES (?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT ("dirKey", "path") DO UPDATE SET "content" = excluded."content",
        "isText" = excluded."isText", "size" = excluded."size",
        "sha256" = excluded."sha256", "updatedAt" = excluded."updatedAt",
        "updatedBy" = excluded."updatedBy"`,
  );
  const insertHistory = database.prepare(
    `INSERT INTO "DirCommit"
        ("id", "dirKey", "version", "actorId", "source", "via", "created", "updated", "deleted", "contents", "createdAt")
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );

  const readVersion = (dirKey: string) => selectVersion.get(dirKey) ?? 0;
  const readDir = database.transaction((dirKey: string) => ({
    version: readVersion(dirKey),
    rows: selectFiles.all(dirKey),
  }));
  const commit = database.transaction((commit: Commit) => {
    const { dirKey, expected, now, actorId } = commit;
    const next = expected + 1;
    const at = toStoredDate(now);
    // Compare-and-swap first: on a lost race nothing has been written, so returning commits
    // an empty transaction.
    if (expected === 0) {
      try {
        createState.run(dirKey, next, at);
      } catch (error) {
        if (isConstraintError(error)) {
          return { status: "conflict" as const, current: readVersion(dirKey) };
        }
        throw error;
      }
    } else if (swapState.run(next, at, dirKey, expected).changes !== 1) {
      return { status: "conflict" as const, current: readVersion(dirKey) };
    }
    for (const path of commit.deletes) deleteFile.run(dirKey, path);
    for (const write of commit.writes) {
      upsertFile.run(
        dirKey,
        write.path,
        write.bytes,
        write.isText ? 1 : 0,
        write.bytes.byteLength,
        sha256Hex(write.bytes),
        at,
        actorId,
      );
    }
    insertHistory.run(
      randomUUID(),
      dirKey,
      next,
      actorId,
      commit.source,
      commit.via,
      commit.history.created,
      commit.history.updated,
      commit.history.deleted,
      commit.history.contents,
      at,
    );
    return { status: "stored" as const };
  });

  const connection: Connection = {
    cache: new DirSnapshotCache(),
    readVersion,
    readDir: (dirKey) => readDir.deferred(dirKey),
    commit: (value) => commit.immediate(value),
  };
  connections.set(database, connection);
  return connection;
}

/**
 * `createPrismaDirBacking` on SQLite through better-sqlite3 prepared statements, on the same
 * database file and schema (PersistentFile / PersistentDirState / DirCommit): rows written by
 * either backing read back identically through the other. It exists for latency: a Prisma
 * query costs ≥ 0.4 ms through the driver adapter, a prepared statement a few microseconds.
 *
 * - The cursor is `PersistentDirState.version`: `0` before the first commit, `+1` per commit.
 * - `store` runs in one `BEGIN IMMEDIATE` transaction (SQLite's write lock taken up front, so
 *   concurrent writers — this process or Prisma's connection — queue on `busy_timeout`):
 *   compare-and-swap on the version, then the file rows, then a `DirCommit` history row. A
 *   lost race returns `conflict` and writes nothing.
 * - Loads go through the same kind of version-validated snapshot cache as the Prisma
 *   backing's, one per connection (never shared between databases).
 *
 * SQLite only: PostgreSQL deployments use `createPrismaDirBacking` (see `dirBackingFor`).
 */
export function createSqliteDirBacking<TExtraBody = unknown, TSession = unknown>(
  options: SqliteDirBackingOptions<TExtraBody>,
): SqliteDirBacking<TExtraBody, TSession> {
  let database: Database.Database;
  let ownsDatabase: boolean;
  if ("database" in options) {
    database = options.database;
    ownsDatabase = false;
  } else {
    database = new Database(options.filePath);
    ownsDatabase = true;
    database.pragma(`busy_timeout = ${Math.max(0, options.busyTimeoutMs ?? 5000)}`);
  }
  const connection = connectionOf(database);
  const cache =
    options.snapshotCache === false ? null : (options.snapshotCache ?? connection.cache);
  const sourceOf = (extraBody: TExtraBody): DirCommitSource =>
    typeof options.source === "function" ? options.source(extraBody) : (options.source ?? "turn");

  return {
    async load({ extraBody, abortSignal }: LoadOptions<TExtraBody, TSession>) {
      abortSignal?.throwIfAborted();
      const dirKey = options.dirKey({ extraBody });
      if (cache) {
        const version = connection.readVersion(dirKey);
        const cached = cache.get(dirKey, version);
        if (cached) {
          const copy = copySnapshotOut(cached);
          return {
            files: fileMapFromEntries(copy.files),
            cursor: version,
            updatedAt: copy.updatedAt,
          };
        }
      }
      // One read transaction: the version and the files are one snapshot of the database.
      const { version, rows } = connection.readDir(dirKey);
      abortSignal?.throwIfAborted();
      const updatedAt: Record<string, string> = Object.create(null) as Record<string, string>;
      for (const row of rows) updatedAt[row.path] = fromStoredDate(row.updatedAt);
      const files = rows.map((row) => [row.path, decodeContent(row)] as const);
      // The cache copies what it keeps, so the caller's map below is its own.
      cache?.set(dirKey, { version, files, updatedAt: Object.entries(updatedAt) });
      return { files: fileMapFromEntries(files), cursor: version, updatedAt };
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
      const writes = [...created, ...updated].map((file) => ({
        path: file.path,
        ...encodeContent(file.content),
      }));
      const deletes = changes.deleted.map((path) => validateRelativePath({ path }));
      const actorId = options.actorId?.(extraBody) ?? null;
      const now = new Date();
      abortSignal?.throwIfAborted();
      const result = connection.commit({
        dirKey,
        expected,
        writes,
        deletes,
        actorId,
        source: sourceOf(extraBody),
        via: options.via?.(extraBody) ?? null,
        // As the Prisma backing records them: the paths as the change set gave them.
        history: {
          created: JSON.stringify(changes.created.map((file) => file.path)),
          updated: JSON.stringify(changes.updated.map((file) => file.path)),
          deleted: JSON.stringify(changes.deleted),
          contents: commitContentsJson(changes),
        },
        now,
      });
      if (result.status === "conflict") {
        return {
          status: "conflict",
          currentCursor: result.current,
          message: `${dirKey} is at version ${result.current}, not ${expected}: it changed since it was loaded.`,
        };
      }
      const next = expected + 1;
      cache?.applyCommit(dirKey, {
        fromVersion: expected,
        toVersion: next,
        changes: { created, updated, deleted: deletes },
        updatedAt: now.toISOString(),
      });
      return { status: "stored", cursor: next };
    },

    close() {
      if (ownsDatabase) database.close();
    },
  };
}
