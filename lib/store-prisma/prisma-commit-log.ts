import { randomBytes } from "node:crypto";

import type { Db } from "@/lib/db";
import {
  HarnessConflictError,
  HarnessNotFoundError,
  HarnessValidationError,
  MAX_PAGE_SIZE,
  OPEN_COMMIT_STATUSES,
  type ChangeSet,
  type CommitLog,
  type CommitRecord,
  type CommitRecordStatus,
  type CommitResolution,
  type DirCursor,
  type FileConflict,
  type FileContent,
} from "@/lib/harness";

/** An injected clock (the core's `Clock` shape). */
type Clock = { now(): Date };

type RecordRow = NonNullable<Awaited<ReturnType<Db["dirCommitRecord"]["findUnique"]>>>;
type RecordWhere = NonNullable<
  NonNullable<Parameters<Db["dirCommitRecord"]["findMany"]>[0]>["where"]
>;

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
    attempts: row.attempts,
    nextAttemptAt: row.nextAttemptAt,
    turnId: row.turnId,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    resolvedAt: row.resolvedAt,
    resolution: row.resolution as CommitResolution | null,
    resolvedCursor:
      row.resolvedCursor === null ? null : (JSON.parse(row.resolvedCursor) as DirCursor),
  };
}

function pageSize(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return 50;
  return Math.min(MAX_PAGE_SIZE, Math.max(1, Math.floor(limit)));
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

/** Options of `listCommitsForOwners`, the Prisma log's extension for the failures page. */
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
export interface PrismaCommitLog extends CommitLog {
  /** Like `listCommits`, filtered to any of `owners`; same order and cursors. */
  listCommitsForOwners(
    options: ListCommitsForOwnersOptions,
  ): Promise<{ commits: CommitRecord[]; nextCursor: string | null }>;
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
 * `CommitLog` on Prisma (`DirCommitRecord` rows), for SQLite and PostgreSQL alike. Change sets,
 * base content and conflicts are JSON text with bytes as base64; cursors, `extraBody` and
 * `session` are JSON too, so they come back with their types. Records list newest first by
 * `(createdAt, id)`. `updateCommit` and `markResolved` are compare-and-set on the status
 * (`UPDATE … WHERE status <> 'resolved'`), so two concurrent retries cannot both close a record.
 */
export function createPrismaCommitLog(options: {
  db: Db;
  clock?: Clock;
  generateId?: () => string;
}): PrismaCommitLog {
  const { db } = options;
  const now = () => options.clock?.now() ?? new Date();
  const generateId = options.generateId ?? defaultIdGenerator();

  const notOpen = async (id: string): Promise<never> => {
    const exists = await db.dirCommitRecord.findUnique({ where: { id }, select: { id: true } });
    if (!exists) {
      throw new HarnessNotFoundError({
        surface: "commit",
        message: `No commit record ${id}.`,
        details: { id },
      });
    }
    throw new HarnessConflictError({
      surface: "commit",
      message: `Commit record ${id} is already resolved.`,
      details: { id },
    });
  };

  const getOrThrow = async (id: string): Promise<CommitRecord> => {
    const row = await db.dirCommitRecord.findUnique({ where: { id } });
    if (!row) {
      throw new HarnessNotFoundError({
        surface: "commit",
        message: `No commit record ${id}.`,
        details: { id },
      });
    }
    return recordFromRow(row);
  };

  const list = async (
    filter: RecordWhere[],
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
    const and: RecordWhere[] = [...filter];
    if (listOptions.harnessDir !== undefined) and.push({ harnessDir: listOptions.harnessDir });
    if (listOptions.turnId !== undefined) and.push({ turnId: listOptions.turnId });
    if (listOptions.status === "open") and.push({ status: { in: [...OPEN_COMMIT_STATUSES] } });
    else if (listOptions.status !== undefined) and.push({ status: listOptions.status });
    const after = decodeListCursor(listOptions.cursor);
    if (after) {
      and.push({
        OR: [
          { createdAt: { lt: after.createdAt } },
          { createdAt: after.createdAt, id: { lt: after.id } },
        ],
      });
    }
    const rows = await db.dirCommitRecord.findMany({
      where: { AND: and },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: limit + 1,
    });
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      commits: page.map(recordFromRow),
      nextCursor:
        rows.length > limit && last
          ? JSON.stringify([last.createdAt.toISOString(), last.id])
          : null,
    };
  };

  return {
    async appendCommit({ commit, abortSignal }) {
      abortSignal?.throwIfAborted();
      const at = now();
      const data = {
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
        nextAttemptAt: commit.nextAttemptAt ?? null,
        turnId: commit.turnId ?? null,
        createdAt: at,
        updatedAt: at,
        resolvedAt: null,
        resolution: null,
        resolvedCursor: null,
      };
      if (commit.id === undefined) return recordFromRow(await db.dirCommitRecord.create({ data }));
      // A stable id (a spooled change, a turn's record): the primary key makes it idempotent,
      // also when two instances import the same change at once.
      try {
        return recordFromRow(await db.dirCommitRecord.create({ data }));
      } catch (error) {
        if ((error as { code?: string }).code !== "P2002") throw error;
        return getOrThrow(commit.id);
      }
    },

    async getCommit({ id, abortSignal }) {
      abortSignal?.throwIfAborted();
      const row = await db.dirCommitRecord.findUnique({ where: { id } });
      return row ? recordFromRow(row) : null;
    },

    async listCommits({ owner, ...rest }) {
      return list(owner === undefined ? [] : [{ owner }], rest);
    },

    async listCommitsForOwners({ owners, automaticRetry, ...rest }) {
      const filter: RecordWhere[] = [{ owner: { in: [...owners] } }];
      if (automaticRetry === "exclude")
        filter.push({ OR: [{ status: { not: "failed" } }, { nextAttemptAt: null }] });
      if (automaticRetry === "only")
        filter.push({ status: "failed", nextAttemptAt: { not: null } });
      return list(filter, rest);
    },

    async updateCommit({ id, patch, abortSignal }) {
      abortSignal?.throwIfAborted();
      const data: Parameters<Db["dirCommitRecord"]["updateMany"]>[0]["data"] = {
        updatedAt: now(),
      };
      if (patch.status !== undefined) data.status = patch.status;
      if (patch.error !== undefined) data.error = patch.error === null ? null : toJson(patch.error);
      if (patch.conflicts !== undefined) data.conflicts = encodeConflicts(patch.conflicts);
      if (patch.attempts !== undefined) data.attempts = patch.attempts;
      if (patch.changes !== undefined) data.changes = encodeChanges(patch.changes);
      if (patch.base !== undefined) data.base = encodeBase(patch.base);
      if (patch.baseCursor !== undefined) data.baseCursor = toJson(patch.baseCursor);
      if (patch.nextAttemptAt !== undefined) data.nextAttemptAt = patch.nextAttemptAt;
      const updated = await db.dirCommitRecord.updateMany({
        where: { id, status: { not: "resolved" } },
        data,
      });
      if (updated.count === 0) return notOpen(id);
      return getOrThrow(id);
    },

    async markResolved({ id, resolution, cursor = null, abortSignal }) {
      abortSignal?.throwIfAborted();
      const at = now();
      const updated = await db.dirCommitRecord.updateMany({
        where: { id, status: { not: "resolved" } },
        data: {
          status: "resolved",
          resolution,
          resolvedCursor: cursor === null ? null : toJson(cursor),
          resolvedAt: at,
          updatedAt: at,
          nextAttemptAt: null,
        },
      });
      if (updated.count === 0) return notOpen(id);
      return getOrThrow(id);
    },

    async claimDueCommits({ now: due, leaseUntil, limit, ids, abortSignal }) {
      abortSignal?.throwIfAborted();
      const candidates = await db.dirCommitRecord.findMany({
        where: {
          status: "failed",
          nextAttemptAt: { lte: due },
          ...(ids ? { id: { in: [...ids] } } : {}),
        },
        orderBy: { nextAttemptAt: "asc" },
        take: limit,
        select: { id: true, nextAttemptAt: true },
      });
      const claimed: CommitRecord[] = [];
      for (const candidate of candidates) {
        // Conditional on the value just read: of two instances, exactly one moves it.
        const moved = await db.dirCommitRecord.updateMany({
          where: { id: candidate.id, status: "failed", nextAttemptAt: candidate.nextAttemptAt },
          data: { nextAttemptAt: leaseUntil },
        });
        if (moved.count === 1) claimed.push(await getOrThrow(candidate.id));
      }
      return claimed;
    },
  };
}
