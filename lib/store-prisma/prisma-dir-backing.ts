import { createHash } from "node:crypto";

import type { Db } from "@/lib/db";
import { isUniqueConstraintError } from "@/lib/db";
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

/** What produced a successful commit, as recorded in the dir's history. */
export type DirCommitSource = "turn" | "editor" | "retry" | "resolve";

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
  created: string[];
  updated: string[];
  deleted: string[];
  createdAt: Date;
}

/** Interactive transactions may queue behind many concurrent turns; the 2 s default is too short. */
const TRANSACTION_OPTIONS = { maxWait: 30_000, timeout: 60_000 } as const;
/** A load re-reads when a commit landed between reading the version and the files. */
const MAX_LOAD_ATTEMPTS = 10;

type Transaction = Parameters<Parameters<Db["$transaction"]>[0]>[0];
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

// Thrown inside a transaction to roll it back when compare-and-swap finds another version.
class CursorMoved extends Error {
  constructor(readonly currentVersion: number | undefined) {
    super("cursor moved");
  }
}

async function readVersion(db: Db | Transaction, dirKey: string): Promise<number> {
  const state = await db.persistentDirState.findUnique({
    where: { dirKey },
    select: { version: true },
  });
  return state?.version ?? 0;
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
 */
export function createPrismaDirBacking<TExtraBody = unknown, TSession = unknown>(
  options: PrismaDirBackingOptions<TExtraBody>,
): PersistentDirBacking<TExtraBody, TSession> {
  const { db } = options;
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
        const rows = await db.persistentFile.findMany({
          where: { dirKey },
          orderBy: { path: "asc" },
        });
        const after = await readVersion(db, dirKey);
        abortSignal?.throwIfAborted();
        if (before !== after) continue;
        const updatedAt: Record<string, string> = Object.create(null) as Record<string, string>;
        for (const row of rows) updatedAt[row.path] = row.updatedAt.toISOString();
        return {
          files: fileMapFromEntries(rows.map((row) => [row.path, decodeContent(row)] as const)),
          cursor: after,
          updatedAt,
        };
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
      const writes = [...changes.created, ...changes.updated].map((file) => ({
        path: validateRelativePath({ path: file.path }),
        ...encodeContent(file.content),
      }));
      const deletes = changes.deleted.map((path) => validateRelativePath({ path }));
      const actorId = options.actorId?.(extraBody) ?? null;
      const source = sourceOf(extraBody);
      const next = expected + 1;
      try {
        await db.$transaction(async (tx) => {
          const now = new Date();
          if (expected === 0) {
            // The first commit creates the state row; a concurrent first commit hits the key.
            await tx.persistentDirState.create({ data: { dirKey, version: next, updatedAt: now } });
          } else {
            const swapped = await tx.persistentDirState.updateMany({
              where: { dirKey, version: expected },
              data: { version: next, updatedAt: now },
            });
            if (swapped.count !== 1) throw new CursorMoved(await readVersion(tx, dirKey));
          }
          for (const write of writes) {
            const data = {
              content: write.bytes,
              isText: write.isText,
              size: write.bytes.byteLength,
              sha256: sha256Hex(write.bytes),
              updatedAt: now,
              updatedBy: actorId,
            };
            await tx.persistentFile.upsert({
              where: { dirKey_path: { dirKey, path: write.path } },
              create: { dirKey, path: write.path, ...data },
              update: data,
            });
          }
          if (deletes.length > 0) {
            await tx.persistentFile.deleteMany({ where: { dirKey, path: { in: deletes } } });
          }
          await tx.dirCommit.create({
            data: {
              dirKey,
              version: next,
              actorId,
              source,
              created: JSON.stringify(changes.created.map((file) => file.path)),
              updated: JSON.stringify(changes.updated.map((file) => file.path)),
              deleted: JSON.stringify(changes.deleted),
              createdAt: now,
            },
          });
          // An abort that arrives mid-transaction rolls everything back.
          abortSignal?.throwIfAborted();
        }, TRANSACTION_OPTIONS);
      } catch (error) {
        if (error instanceof CursorMoved) return conflict(dirKey, expected, error.currentVersion);
        if (expected === 0 && isUniqueConstraintError(error)) {
          return conflict(dirKey, expected, await readVersion(db, dirKey));
        }
        throw error;
      }
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
      created: parsePaths(row.created),
      updated: parsePaths(row.updated),
      deleted: parsePaths(row.deleted),
      createdAt: row.createdAt,
    })),
    nextCursor: rows.length > limit ? String(page.at(-1)!.version) : null,
  };
}
