import { randomBytes } from "node:crypto";

import {
  type ChangeSet,
  type CommitLog,
  type CommitRecord,
  type CommitRecordStatus,
  type DirCursor,
  FailedCommitsQuotaError,
  type FileConflict,
  type FileContent,
  HarnessConflictError,
  HarnessNotFoundError,
  HarnessValidationError,
} from "@/lib/harness";
import { type CommitResolution, OPEN_COMMIT_STATUSES } from "@/lib/harness/spi";
import { formatBytes } from "@/lib/harness/format-bytes";
import { pageSize } from "./internal/files";
import {
  isUniqueViolation,
  placeholders,
  toDate,
  toDateOrNull,
  type Sql,
  type SqlDialect,
  type SqlExecutor,
  type SqlValue,
} from "./sql";

const MIB = 1024 * 1024;

/** The default of `CAIRN_FAILED_COMMITS_MAX_BYTES`: what one owner's open commit records may hold. */
export const DEFAULT_FAILED_COMMITS_MAX_BYTES = 256 * MIB;

/**
 * The JSON columns whose UTF-8 bytes make up `DirCommitRecord.bytes` (the migration's backfill
 * counts the same, `COALESCE("error", '')` included).
 */
const SIZED_COLUMNS = ["changes", "base", "conflicts", "error", "extraBody", "session"] as const;
type SizedColumn = (typeof SIZED_COLUMNS)[number];

const utf8Bytes = (text: string | null) => (text === null ? 0 : Buffer.byteLength(text, "utf8"));

/** A column's UTF-8 byte length in SQL, on either database. */
function byteLengthOf(dialect: SqlDialect, column: SizedColumn): string {
  const value = column === "error" ? `COALESCE("error", '')` : `"${column}"`;
  return dialect === "postgres" ? `octet_length(${value})` : `length(CAST(${value} AS BLOB))`;
}

/** Whose Commit failures an owner key names, for the person reading the refusal. */
function failuresOf(owner: string): string {
  if (owner.startsWith("user:")) return "your Commit failures";
  if (owner.startsWith("workspace:")) return "the workspace's Commit failures (company knowledge)";
  return `the Commit failures of ${owner}`;
}

/** The refusal to keep a refused commit past the owner's bound, in words a person can act on. */
function failedCommitsQuotaError(options: {
  owner: string;
  limitBytes: number;
  usedBytes: number;
  addedBytes: number;
}): FailedCommitsQuotaError {
  const { owner, limitBytes, usedBytes, addedBytes } = options;
  return new FailedCommitsQuotaError({
    ...options,
    message:
      `This change was not kept either: ${failuresOf(owner)} already hold ` +
      `${formatBytes(usedBytes)} of changes waiting to be saved, and keeping this one would ` +
      `add ${formatBytes(addedBytes)}, past the limit of ${formatBytes(limitBytes)} ` +
      `(CAIRN_FAILED_COMMITS_MAX_BYTES). A change refused for a limit would be refused again as ` +
      `it is, so it is kept only while there is room: resolve or discard the waiting ones on ` +
      `Files → Commit failures (/files/failures), then try again.`,
  });
}

/** An injected clock (the core's `Clock` shape). */
type Clock = { now(): Date };

/** Content inside the JSON columns: text as it is, bytes as base64. */
type EncodedContent = { text: string } | { base64: string };

function encodeContent(content: FileContent | null): EncodedContent | null {
  if (content === null) return null;
  return typeof content === "string"
    ? { text: content }
    : { base64: Buffer.from(content).toString("base64") };
}

function decodeContent(value: EncodedContent | null | undefined): FileContent | null {
  if (value === null || value === undefined) return null;
  return "text" in value ? value.text : new Uint8Array(Buffer.from(value.base64, "base64"));
}

interface EncodedChangeSet {
  created: Array<{ path: string; content: EncodedContent }>;
  updated: Array<{ path: string; content: EncodedContent }>;
  deleted: string[];
}

function encodeChanges(changes: ChangeSet): string {
  const encoded: EncodedChangeSet = {
    created: changes.created.map((file) => ({
      path: file.path,
      content: encodeContent(file.content)!,
    })),
    updated: changes.updated.map((file) => ({
      path: file.path,
      content: encodeContent(file.content)!,
    })),
    deleted: [...changes.deleted],
  };
  return JSON.stringify(encoded);
}

function decodeChanges(json: string): ChangeSet {
  const encoded = JSON.parse(json) as EncodedChangeSet;
  return {
    created: encoded.created.map((file) => ({
      path: file.path,
      content: decodeContent(file.content)!,
    })),
    updated: encoded.updated.map((file) => ({
      path: file.path,
      content: decodeContent(file.content)!,
    })),
    deleted: [...encoded.deleted],
  };
}

// Entries rather than an object: a path named `__proto__` stays an ordinary key both ways.
function encodeBase(base: Record<string, FileContent | null>): string {
  return JSON.stringify(Object.keys(base).map((path) => [path, encodeContent(base[path] ?? null)]));
}

function decodeBase(json: string): Record<string, FileContent | null> {
  const entries = JSON.parse(json) as Array<[string, EncodedContent | null]>;
  const base = Object.create(null) as Record<string, FileContent | null>;
  for (const [path, content] of entries) base[path] = decodeContent(content);
  return base;
}

type EncodedConflict = Omit<FileConflict, "base" | "ours" | "theirs"> & {
  base: EncodedContent | null;
  ours: EncodedContent | null;
  theirs: EncodedContent | null;
};

function encodeConflicts(conflicts: FileConflict[]): string {
  return JSON.stringify(
    conflicts.map((conflict): EncodedConflict => ({
      ...conflict,
      base: encodeContent(conflict.base),
      ours: encodeContent(conflict.ours),
      theirs: encodeContent(conflict.theirs),
    })),
  );
}

function decodeConflicts(json: string): FileConflict[] {
  return (JSON.parse(json) as EncodedConflict[]).map((conflict) => ({
    ...conflict,
    base: decodeContent(conflict.base),
    ours: decodeContent(conflict.ours),
    theirs: decodeContent(conflict.theirs),
  }));
}

// `undefined` has no JSON form; it is kept as `null`.
const toJson = (value: unknown): string => JSON.stringify(value ?? null);

interface RecordRow {
  id: string;
  harnessDir: string;
  mode: string;
  status: string;
  owner: string | null;
  changes: string;
  baseCursor: string;
  base: string;
  extraBody: string;
  session: string;
  error: string | null;
  conflicts: string;
  attempts: number;
  nextAttemptAt: unknown;
  turnId: string | null;
  createdAt: unknown;
  updatedAt: unknown;
  resolvedAt: unknown;
  resolution: string | null;
  resolvedCursor: string | null;
}

const RECORD_COLUMNS = `"id", "harnessDir", "mode", "status", "owner", "changes", "baseCursor", "base", "extraBody", "session", "error", "conflicts", "attempts", "nextAttemptAt", "turnId", "createdAt", "updatedAt", "resolvedAt", "resolution", "resolvedCursor"`;

/** What a row about to be written holds (`DirCommitRecord.bytes`). */
function rowBytes(row: Pick<RecordRow, SizedColumn>): number {
  return SIZED_COLUMNS.reduce((sum, column) => sum + utf8Bytes(row[column]), 0);
}

function recordFromRow(row: RecordRow): CommitRecord {
  return {
    id: row.id,
    harnessDir: row.harnessDir,
    mode: row.mode as CommitRecord["mode"],
    status: row.status as CommitRecordStatus,
    owner: row.owner,
    changes: decodeChanges(row.changes),
    baseCursor: JSON.parse(row.baseCursor) as DirCursor,
    base: decodeBase(row.base),
    extraBody: JSON.parse(row.extraBody) as unknown,
    session: JSON.parse(row.session) as unknown,
    error: row.error === null ? null : (JSON.parse(row.error) as { code: string; message: string }),
    conflicts: decodeConflicts(row.conflicts),
    attempts: Number(row.attempts),
    nextAttemptAt: toDateOrNull(row.nextAttemptAt),
    turnId: row.turnId,
    createdAt: toDate(row.createdAt),
    updatedAt: toDate(row.updatedAt),
    resolvedAt: toDateOrNull(row.resolvedAt),
    resolution: row.resolution as CommitResolution | null,
    resolvedCursor:
      row.resolvedCursor === null ? null : (JSON.parse(row.resolvedCursor) as DirCursor),
  };
}

function decodeListCursor(cursor: string | undefined): { createdAt: Date; id: string } | null {
  if (cursor === undefined || cursor === "") return null;
  try {
    const value: unknown = JSON.parse(cursor);
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      typeof value[0] === "string" &&
      typeof value[1] === "string" &&
      !Number.isNaN(Date.parse(value[0]))
    ) {
      return { createdAt: new Date(value[0]), id: value[1] };
    }
  } catch {
    // reported below
  }
  throw new HarnessValidationError({
    surface: "cursor",
    message: "Invalid pagination cursor",
    details: { cursor },
  });
}

/** Options of `listCommitsForOwners`, the database log's extension for the failures page. */
export interface ListCommitsForOwnersOptions {
  /** Records whose owner is any of these (a person sees their own and their workspace's). */
  owners: readonly string[];
  harnessDir?: string;
  status?: CommitRecordStatus | "open";
  /**
   * `exclude`: leave out failed records an automatic retry is scheduled for (nobody needs to act
   * yet); `only`: just those. Default: no filter.
   */
  automaticRetry?: "exclude" | "only";
  limit?: number;
  cursor?: string;
  abortSignal?: AbortSignal;
}

/** The database-backed `CommitLog`, plus a listing across several owners. */
export interface DatabaseCommitLog extends CommitLog {
  /** Like `listCommits`, filtered to any of `owners`; same order and cursors. */
  listCommitsForOwners(
    options: ListCommitsForOwnersOptions,
  ): Promise<{ commits: CommitRecord[]; nextCursor: string | null }>;
  /**
   * Bytes the open (`failed`, `conflict`, `interrupted`) records of `owner` hold: the sum the
   * bound on `bounded` appends is checked against (one index range, `owner, status, bytes`).
   */
  getOpenCommitBytes(options: { owner: string; abortSignal?: AbortSignal }): Promise<number>;
  /** The bound on what one owner's open records may hold for a `bounded` append; `null`: none. */
  readonly maxOwnerBytes: number | null;
}

/**
 * Ids that sort by creation within a process (time, then a counter), with random bits so
 * several instances never collide.
 */
function defaultIdGenerator(): () => string {
  let counter = 0;
  return () => {
    counter = (counter + 1) % 36 ** 4;
    return `cr${Date.now().toString(36).padStart(9, "0")}${counter.toString(36).padStart(4, "0")}${randomBytes(6).toString("hex")}`;
  };
}

/**
 * `CommitLog` on the SQL layer (`DirCommitRecord` rows), for SQLite and PostgreSQL alike.
 * Change sets, base content and conflicts are JSON text with bytes as base64; cursors,
 * `extraBody` and `session` are JSON too, so they come back with their types. Records list
 * newest first by `(createdAt, id)`. `updateCommit` and `markResolved` are compare-and-set on
 * the status (`UPDATE … WHERE status <> 'resolved'`), so two concurrent retries cannot both
 * close a record.
 */
export function createCommitLog(options: {
  sql: Sql;
  clock?: Clock;
  generateId?: () => string;
  /**
   * What one owner's open records may hold before a `bounded` append (a refusal that would
   * repeat) is declined with `FailedCommitsQuotaError`. Default `null`: no bound. The app passes
   * `CAIRN_FAILED_COMMITS_MAX_BYTES` (parsed in lib/config).
   */
  maxOwnerBytes?: number | null;
}): DatabaseCommitLog {
  const { sql } = options;
  const maxOwnerBytes = options.maxOwnerBytes ?? null;
  const now = () => options.clock?.now() ?? new Date();
  const generateId = options.generateId ?? defaultIdGenerator();

  const read = async (id: string) => {
    const row = await sql.get<RecordRow>(
      `SELECT ${RECORD_COLUMNS} FROM "DirCommitRecord" WHERE "id" = ?`,
      [id],
    );
    return row ? recordFromRow(row) : null;
  };

  const notFound = (id: string) =>
    new HarnessNotFoundError({
      surface: "commit",
      message: `No commit record ${id}.`,
      details: { id },
    });

  const getOrThrow = async (id: string): Promise<CommitRecord> => {
    const record = await read(id);
    if (!record) throw notFound(id);
    return record;
  };

  /** An update that matched no open record: missing, or already resolved. */
  const notOpen = async (id: string): Promise<never> => {
    if (!(await read(id))) throw notFound(id);
    throw new HarnessConflictError({
      surface: "commit",
      message: `Commit record ${id} is already resolved.`,
      details: { id },
    });
  };

  const openBytes = async (executor: SqlExecutor, owner: string): Promise<number> => {
    const row = await executor.get<{ bytes: number | string | null }>(
      `SELECT SUM("bytes") AS "bytes" FROM "DirCommitRecord"
       WHERE "owner" = ? AND "status" IN (${placeholders(OPEN_COMMIT_STATUSES.length)})`,
      [owner, ...OPEN_COMMIT_STATUSES],
    );
    return Number(row?.bytes ?? 0);
  };

  /** `UPDATE … SET <columns> WHERE id AND status <> 'resolved' RETURNING *`. */
  const updateOpen = async (
    id: string,
    columns: Record<string, SqlValue>,
    size?: { expression: string; parameters: SqlValue[] },
  ) => {
    const names = Object.keys(columns);
    const assignments = names.map((name) => `"${name}" = ?`);
    if (size) assignments.push(`"bytes" = ${size.expression}`);
    const row = await sql.get<RecordRow>(
      `UPDATE "DirCommitRecord" SET ${assignments.join(", ")}
       WHERE "id" = ? AND "status" <> 'resolved' RETURNING ${RECORD_COLUMNS}`,
      [...names.map((name) => columns[name]), ...(size?.parameters ?? []), id],
    );
    return row ? recordFromRow(row) : notOpen(id);
  };

  /**
   * `"bytes"` after an update that sets `columns`, in the same statement: a SET expression sees
   * the row as it was, so a rewritten column counts its new text (bound) and every other one its
   * stored length. `undefined` when no sized column changes.
   */
  const sizeAfter = (columns: Record<string, SqlValue>) => {
    if (!SIZED_COLUMNS.some((column) => column in columns)) return undefined;
    const parts: string[] = [];
    const parameters: SqlValue[] = [];
    for (const column of SIZED_COLUMNS) {
      if (column in columns) {
        parts.push("?");
        parameters.push(utf8Bytes(columns[column] as string | null));
      } else parts.push(byteLengthOf(sql.dialect, column));
    }
    return { expression: parts.join(" + "), parameters };
  };

  const list = async (
    where: string[],
    parameters: SqlValue[],
    listOptions: {
      harnessDir?: string;
      turnId?: string;
      status?: CommitRecordStatus | "open";
      limit?: number;
      cursor?: string;
      abortSignal?: AbortSignal;
    },
  ) => {
    listOptions.abortSignal?.throwIfAborted();
    const limit = pageSize(listOptions.limit);
    if (listOptions.harnessDir !== undefined) {
      where.push(`"harnessDir" = ?`);
      parameters.push(listOptions.harnessDir);
    }
    if (listOptions.turnId !== undefined) {
      where.push(`"turnId" = ?`);
      parameters.push(listOptions.turnId);
    }
    if (listOptions.status === "open") {
      where.push(`"status" IN (${placeholders(OPEN_COMMIT_STATUSES.length)})`);
      parameters.push(...OPEN_COMMIT_STATUSES);
    } else if (listOptions.status !== undefined) {
      where.push(`"status" = ?`);
      parameters.push(listOptions.status);
    }
    const after = decodeListCursor(listOptions.cursor);
    if (after) {
      where.push(`("createdAt" < ? OR ("createdAt" = ? AND "id" < ?))`);
      parameters.push(after.createdAt, after.createdAt, after.id);
    }
    const rows = await sql.all<RecordRow>(
      `SELECT ${RECORD_COLUMNS} FROM "DirCommitRecord"
       ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
       ORDER BY "createdAt" DESC, "id" DESC LIMIT ?`,
      [...parameters, limit + 1],
    );
    const page = rows.slice(0, limit).map(recordFromRow);
    const last = page.at(-1);
    return {
      commits: page,
      nextCursor:
        rows.length > limit && last
          ? JSON.stringify([last.createdAt.toISOString(), last.id])
          : null,
    };
  };

  return {
    maxOwnerBytes,

    async appendCommit({ commit, bounded = false, abortSignal }) {
      abortSignal?.throwIfAborted();
      const at = now();
      const row: RecordRow = {
        id: commit.id ?? generateId(),
        harnessDir: commit.harnessDir,
        mode: commit.mode,
        status: commit.status,
        owner: commit.owner,
        changes: encodeChanges(commit.changes),
        baseCursor: toJson(commit.baseCursor),
        base: encodeBase(commit.base),
        extraBody: toJson(commit.extraBody),
        session: toJson(commit.session),
        error: commit.error === null ? null : toJson(commit.error),
        conflicts: encodeConflicts(commit.conflicts),
        attempts: commit.attempts,
        nextAttemptAt: commit.nextAttemptAt ? new Date(commit.nextAttemptAt) : null,
        turnId: commit.turnId ?? null,
        createdAt: at,
        updatedAt: new Date(at),
        resolvedAt: null,
        resolution: null,
        resolvedCursor: null,
      };
      const bytes = rowBytes(row);
      const insert = (executor: SqlExecutor) =>
        executor.run(
          `INSERT INTO "DirCommitRecord" (${RECORD_COLUMNS}, "bytes")
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          [
            row.id,
            row.harnessDir,
            row.mode,
            row.status,
            row.owner,
            row.changes,
            row.baseCursor,
            row.base,
            row.extraBody,
            row.session,
            row.error,
            row.conflicts,
            row.attempts,
            row.nextAttemptAt as Date | null,
            row.turnId,
            at,
            at,
            null,
            null,
            null,
            bytes,
          ],
        );
      const owner = commit.owner;
      try {
        if (!bounded || maxOwnerBytes === null || owner === null) await insert(sql);
        else {
          // Checked and inserted in one transaction; on PostgreSQL a lock per owner keeps two
          // bounded appends of one owner from both reading the sum before either inserts
          // (SQLite's write transaction is one at a time anyway).
          const existing = await sql.transaction(async (tx) => {
            if (commit.id !== undefined) {
              const found = await tx.get<{ id: string }>(
                `SELECT "id" FROM "DirCommitRecord" WHERE "id" = ?`,
                [commit.id],
              );
              if (found) return found.id;
            }
            if (tx.dialect === "postgres") {
              await tx.run(`SELECT pg_advisory_xact_lock(hashtextextended(?, 0))`, [
                `DirCommitRecord.owner:${owner}`,
              ]);
            }
            const usedBytes = await openBytes(tx, owner);
            if (usedBytes + bytes > maxOwnerBytes) {
              throw failedCommitsQuotaError({
                owner,
                limitBytes: maxOwnerBytes,
                usedBytes,
                addedBytes: bytes,
              });
            }
            await insert(tx);
            return null;
          });
          if (existing !== null) return getOrThrow(existing);
        }
      } catch (error) {
        // A stable id (a spooled change, a turn's record): the primary key makes it idempotent,
        // also when two instances import the same change at once.
        if (commit.id === undefined || !isUniqueViolation(error)) throw error;
        return getOrThrow(commit.id);
      }
      // What a read returns: the JSON columns decoded, so callers never share the input's objects.
      return recordFromRow(row);
    },

    async getCommit({ id, abortSignal }) {
      abortSignal?.throwIfAborted();
      return read(id);
    },

    async listCommits({ owner, ...rest }) {
      return owner === undefined ? list([], [], rest) : list([`"owner" = ?`], [owner], rest);
    },

    async listCommitsForOwners({ owners, automaticRetry, ...rest }) {
      const where = [`"owner" IN (${placeholders(owners.length)})`];
      if (automaticRetry === "exclude") {
        where.push(`("status" <> 'failed' OR "nextAttemptAt" IS NULL)`);
      }
      if (automaticRetry === "only") {
        where.push(`"status" = 'failed' AND "nextAttemptAt" IS NOT NULL`);
      }
      return list(where, [...owners], rest);
    },

    async getOpenCommitBytes({ owner, abortSignal }) {
      abortSignal?.throwIfAborted();
      return openBytes(sql, owner);
    },

    async updateCommit({ id, patch, abortSignal }) {
      abortSignal?.throwIfAborted();
      const columns: Record<string, SqlValue> = { updatedAt: now() };
      if (patch.status !== undefined) columns.status = patch.status;
      if (patch.error !== undefined) {
        columns.error = patch.error === null ? null : toJson(patch.error);
      }
      if (patch.conflicts !== undefined) columns.conflicts = encodeConflicts(patch.conflicts);
      if (patch.attempts !== undefined) columns.attempts = patch.attempts;
      if (patch.changes !== undefined) columns.changes = encodeChanges(patch.changes);
      if (patch.base !== undefined) columns.base = encodeBase(patch.base);
      if (patch.baseCursor !== undefined) columns.baseCursor = toJson(patch.baseCursor);
      if (patch.nextAttemptAt !== undefined) columns.nextAttemptAt = patch.nextAttemptAt;
      return updateOpen(id, columns, sizeAfter(columns));
    },

    async markResolved({ id, resolution, cursor = null, abortSignal }) {
      abortSignal?.throwIfAborted();
      const at = now();
      return updateOpen(id, {
        status: "resolved",
        resolution,
        resolvedCursor: cursor === null ? null : toJson(cursor),
        resolvedAt: at,
        updatedAt: at,
        nextAttemptAt: null,
      });
    },

    async claimDueCommits({ now: due, leaseUntil, limit, ids, abortSignal }) {
      abortSignal?.throwIfAborted();
      const only = ids ? ` AND "id" IN (${ids.map(() => "?").join(", ")})` : "";
      const candidates =
        ids && ids.length === 0
          ? []
          : await sql.all<{ id: string; nextAttemptAt: string | Date }>(
              `SELECT "id", "nextAttemptAt" FROM "DirCommitRecord"
               WHERE "status" = 'failed' AND "nextAttemptAt" <= ?${only}
               ORDER BY "nextAttemptAt" ASC LIMIT ?`,
              [due, ...(ids ?? []), limit],
            );
      const claimed: CommitRecord[] = [];
      for (const candidate of candidates) {
        // Conditional on the value just read (bound as read): of two instances, exactly one moves it.
        const row = await sql.get<RecordRow>(
          `UPDATE "DirCommitRecord" SET "nextAttemptAt" = ?
           WHERE "id" = ? AND "status" = 'failed' AND "nextAttemptAt" = ?
           RETURNING ${RECORD_COLUMNS}`,
          [leaseUntil, candidate.id, candidate.nextAttemptAt],
        );
        if (row) claimed.push(recordFromRow(row));
      }
      return claimed;
    },
  };
}
