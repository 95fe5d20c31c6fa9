import { createHash, randomUUID } from "node:crypto";

import type { Db } from "@/lib/db";
import { isNotFoundError, isUniqueConstraintError, joinSql, sql } from "@/lib/db";
import {
  DEFAULT_PAGE_SIZE,
  HarnessValidationError,
  MAX_PAGE_SIZE,
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

/** What produced a successful commit, as recorded in the dir's history. */
export type DirCommitSource = "turn" | "editor" | "retry" | "resolve" | "mcp" | "restore";

/** Options for `createPrismaDirBacking`. */
export interface PrismaDirBackingOptions<TExtraBody> {
  db: Db;
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
   * `db` client and process, bounded to 64 MiB of content (`DEFAULT_SNAPSHOT_CACHE_BYTES`).
   * `false` reads every file on every load.
   */
  snapshotCache?: DirSnapshotCache | false;
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

/**
 * Files per raw statement in a store: 8 bound values each keeps a statement far below SQLite's
 * 32,766 and PostgreSQL's 65,535 bound values, whatever a dir's `maxFiles` is.
 */
const ROWS_PER_STATEMENT = 500;

function chunks<T>(items: readonly T[]): T[][] {
  const result: T[][] = [];
  for (let start = 0; start < items.length; start += ROWS_PER_STATEMENT) {
    result.push(items.slice(start, start + ROWS_PER_STATEMENT));
  }
  return result;
}

/** A load re-reads when a commit landed between reading the version and the files. */
const MAX_LOAD_ATTEMPTS = 10;

type FileRow = NonNullable<Awaited<ReturnType<Db["persistentFile"]["findUnique"]>>>;

// ignoreBOM keeps a leading U+FEFF: text must round-trip exactly.
const textDecoder = new TextDecoder("utf-8", { ignoreBOM: true });

function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** The bytes to store for a content, and whether it is text (decoded back to a string on load). */
function encodeContent(content: FileContent): { bytes: Uint8Array<ArrayBuffer>; isText: boolean } {
  return typeof content === "string"
    ? { bytes: new Uint8Array(Buffer.from(content, "utf8")), isText: true }
    : { bytes: new Uint8Array(content), isText: false };
}

function decodeContent(row: Pick<FileRow, "content" | "isText">): FileContent {
  return row.isText ? textDecoder.decode(row.content) : new Uint8Array(row.content);
}

function versionOf(cursor: DirCursor): number | null {
  const version = typeof cursor === "string" && /^\d+$/.test(cursor) ? Number(cursor) : cursor;
  return typeof version === "number" && Number.isSafeInteger(version) && version >= 0
    ? version
    : null;
}

function pageSize(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return DEFAULT_PAGE_SIZE;
  return Math.min(MAX_PAGE_SIZE, Math.max(1, Math.floor(limit)));
}

// A raw statement: the version is read on every load, and the query builder costs more than
// the read itself (about 0.75 ms against 0.3 ms on SQLite). Same SQL on both providers.
async function readVersion(db: Db, dirKey: string): Promise<number> {
  const rows = await db.$queryRaw<{ version: number | bigint }[]>`
    SELECT "version" FROM "PersistentDirState" WHERE "dirKey" = ${dirKey}`;
  return rows.length === 0 ? 0 : Number(rows[0]!.version);
}

// One snapshot cache per client: two databases never share entries, and every backing made
// for the same client (the app makes them per request) shares one.
const sharedCaches = new WeakMap<Db, DirSnapshotCache>();

function sharedCacheOf(db: Db): DirSnapshotCache {
  let cache = sharedCaches.get(db);
  if (!cache) {
    cache = new DirSnapshotCache();
    sharedCaches.set(db, cache);
  }
  return cache;
}

/**
 * A `PersistentDirBacking` whose files are `PersistentFile` rows keyed by `dirKey` (an owner: a
 * user or a workspace), for SQLite and PostgreSQL alike.
 *
 * - The cursor is `PersistentDirState.version`: `0` before the first commit, `+1` per commit.
 * - `store` runs in one transaction: compare-and-swap on the version (an `UPDATE … WHERE
 *   version = cursor`, or creating the state row when the cursor is `0`), then the file rows,
 *   then a `DirCommit` history row. A lost race returns `conflict` and writes nothing.
 * - Text is stored as UTF-8 with `isText = true` and loads back as the same string; bytes load
 *   back as a `Uint8Array`, so both round-trip exactly.
 * - Loads go through a process-local snapshot cache (see `snapshotCache`), validated by the
 *   version read from the database on every load: versions only grow and a commit changes the
 *   rows and the version in one transaction, so a snapshot cached at version V is exactly the
 *   database state at V, whichever instance committed. This relies on the same invariant as
 *   compare-and-swap: a dir's `PersistentDirState` row is never deleted or set back.
 */
export function createPrismaDirBacking<TExtraBody = unknown, TSession = unknown>(
  options: PrismaDirBackingOptions<TExtraBody>,
): PersistentDirBacking<TExtraBody, TSession> {
  const { db } = options;
  const cache =
    options.snapshotCache === false ? null : (options.snapshotCache ?? sharedCacheOf(db));
  const sourceOf = (extraBody: TExtraBody): DirCommitSource =>
    typeof options.source === "function" ? options.source(extraBody) : (options.source ?? "turn");

  return {
    async load({ extraBody, abortSignal }: LoadOptions<TExtraBody, TSession>) {
      abortSignal?.throwIfAborted();
      const dirKey = options.dirKey({ extraBody });
      // Optimistic read without a long transaction: versions only grow and a commit's rows
      // become visible together, so equal versions before and after mean the files match it.
      for (let attempt = 0; attempt < MAX_LOAD_ATTEMPTS; attempt += 1) {
        const before = await readVersion(db, dirKey);
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
        const rows = await db.persistentFile.findMany({
          where: { dirKey },
          orderBy: { path: "asc" },
        });
        const after = await readVersion(db, dirKey);
        abortSignal?.throwIfAborted();
        if (before !== after) continue;
        const updatedAt: Record<string, string> = Object.create(null) as Record<string, string>;
        for (const row of rows) updatedAt[row.path] = row.updatedAt.toISOString();
        const files = rows.map((row) => [row.path, decodeContent(row)] as const);
        // The cache copies what it keeps, so the caller's map below is its own.
        cache?.set(dirKey, { version: after, files, updatedAt: Object.entries(updatedAt) });
        return { files: fileMapFromEntries(files), cursor: after, updatedAt };
      }
      throw new Error(`Dir ${dirKey} kept changing while it was loaded; try again.`);
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
      const source = sourceOf(extraBody);
      const via = options.via?.(extraBody) ?? null;
      const next = expected + 1;
      const now = new Date();
      abortSignal?.throwIfAborted();
      try {
        // One batch transaction, not an interactive one: no round trip back to this code
        // between statements. Compare-and-swap comes first and throws when the version moved
        // (P2025: no row at `expected`; P2002: a concurrent first commit), rolling back the rest.
        await db.$transaction([
          expected === 0
            ? db.persistentDirState.create({
                data: { dirKey, version: next, updatedAt: now },
                select: { version: true },
              })
            : db.persistentDirState.update({
                where: { dirKey, version: expected },
                data: { version: next, updatedAt: now },
                select: { version: true },
              }),
          // The rest as raw statements (the same SQL on SQLite and PostgreSQL): the query
          // builder costs two to three times the statement here, and an upsert through it
          // reads each file's content back. One statement per ROWS_PER_STATEMENT files.
          ...chunks(deletes).map(
            (paths) => db.$executeRaw`DELETE FROM "PersistentFile"
              WHERE "dirKey" = ${dirKey} AND "path" IN (${joinSql(paths)})`,
          ),
          ...chunks(writes).map(
            (rows) => db.$executeRaw`INSERT INTO "PersistentFile"
                ("dirKey", "path", "content", "isText", "size", "sha256", "updatedAt", "updatedBy")
              VALUES ${joinSql(
                rows.map(
                  (write) =>
                    sql`(${dirKey}, ${write.path}, ${write.bytes}, ${write.isText},
                      ${write.bytes.byteLength}, ${sha256Hex(write.bytes)}, ${now}, ${actorId})`,
                ),
              )}
              ON CONFLICT ("dirKey", "path") DO UPDATE SET "content" = excluded."content",
                "isText" = excluded."isText", "size" = excluded."size",
                "sha256" = excluded."sha256", "updatedAt" = excluded."updatedAt",
                "updatedBy" = excluded."updatedBy"`,
          ),
          db.$executeRaw`INSERT INTO "DirCommit"
              ("id", "dirKey", "version", "actorId", "source", "via", "created", "updated", "deleted", "contents", "createdAt")
            VALUES (${randomUUID()}, ${dirKey}, ${next}, ${actorId}, ${source}, ${via},
              ${JSON.stringify(changes.created.map((file) => file.path))},
              ${JSON.stringify(changes.updated.map((file) => file.path))},
              ${JSON.stringify(changes.deleted)}, ${commitContentsJson(changes)}, ${now})`,
        ]);
      } catch (error) {
        if (isNotFoundError(error) || (expected === 0 && isUniqueConstraintError(error))) {
          return conflict(dirKey, expected, await readVersion(db, dirKey));
        }
        throw error;
      }
      cache?.applyCommit(dirKey, {
        fromVersion: expected,
        toVersion: next,
        changes: { created, updated, deleted: deletes },
        updatedAt: now.toISOString(),
      });
      return { status: "stored", cursor: next };
    },
  };
}

function conflict(dirKey: string, expected: number, current: number | undefined): StoreResult {
  return {
    status: "conflict",
    ...(current === undefined ? {} : { currentCursor: current }),
    message: `${dirKey} is at version ${current ?? "?"}, not ${expected}: it changed since it was loaded.`,
  };
}

/** The current version (cursor) of a database-backed dir; `0` before its first commit. */
export async function getDirVersion(options: { db: Db; dirKey: string }): Promise<number> {
  return readVersion(options.db, options.dirKey);
}

/** Every file of a dir without content, sorted by path, and the version they were read at. */
export async function listDirFiles(options: {
  db: Db;
  dirKey: string;
  abortSignal?: AbortSignal;
}): Promise<{ files: DirFileInfo[]; version: number }> {
  const { db, dirKey } = options;
  for (let attempt = 0; attempt < MAX_LOAD_ATTEMPTS; attempt += 1) {
    options.abortSignal?.throwIfAborted();
    const before = await readVersion(db, dirKey);
    const files = await db.persistentFile.findMany({
      where: { dirKey },
      select: {
        path: true,
        size: true,
        isText: true,
        sha256: true,
        updatedAt: true,
        updatedBy: true,
      },
      orderBy: { path: "asc" },
    });
    if ((await readVersion(db, dirKey)) === before) return { files, version: before };
  }
  throw new Error(`Dir ${dirKey} kept changing while it was listed; try again.`);
}

/** One file with its content and the dir version it was read at, or `null` when missing. */
export async function readDirFile(options: {
  db: Db;
  dirKey: string;
  path: string;
  abortSignal?: AbortSignal;
}): Promise<(DirFile & { version: number }) | null> {
  const { db, dirKey } = options;
  const path = validateRelativePath({ path: options.path });
  for (let attempt = 0; attempt < MAX_LOAD_ATTEMPTS; attempt += 1) {
    options.abortSignal?.throwIfAborted();
    const before = await readVersion(db, dirKey);
    const row = await db.persistentFile.findUnique({ where: { dirKey_path: { dirKey, path } } });
    if ((await readVersion(db, dirKey)) !== before) continue;
    if (!row) return null;
    return {
      path: row.path,
      size: row.size,
      isText: row.isText,
      sha256: row.sha256,
      updatedAt: row.updatedAt,
      updatedBy: row.updatedBy,
      content: decodeContent(row),
      version: before,
    };
  }
  throw new Error(`Dir ${dirKey} kept changing while it was read; try again.`);
}

function parsePaths(json: string): string[] {
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value)
      ? value.filter((item): item is string => typeof item === "string")
      : [];
  } catch {
    return [];
  }
}

/**
 * A dir's successful commits, newest first. `cursor` is the previous page's `nextCursor`;
 * `limit` defaults to 50 (at most 500).
 */
export async function listDirCommits(options: {
  db: Db;
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
  const rows = await options.db.dirCommit.findMany({
    where: { dirKey: options.dirKey, ...(before === undefined ? {} : { version: { lt: before } }) },
    orderBy: [{ version: "desc" }, { createdAt: "desc" }],
    take: limit + 1,
  });
  const page = rows.slice(0, limit);
  return {
    commits: page.map((row) => ({
      id: row.id,
      dirKey: row.dirKey,
      version: row.version,
      actorId: row.actorId,
      source: row.source,
      via: row.via,
      created: parsePaths(row.created),
      updated: parsePaths(row.updated),
      deleted: parsePaths(row.deleted),
      createdAt: row.createdAt,
    })),
    nextCursor: rows.length > limit ? String(page.at(-1)!.version) : null,
  };
}
