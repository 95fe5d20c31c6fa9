import type { Db } from "@/lib/db";
import { isUniqueConstraintError } from "@/lib/db";
import {
  DEFAULT_PAGE_SIZE,
  HarnessConflictError,
  HarnessValidationError,
  MAX_PAGE_SIZE,
  entryKeyOf,
  type Entry,
  type EntryFilter,
  type EntryRef,
  type HarnessStoragePort,
  type Page,
  type Revision,
  type StorageCallOptions,
  type StorageChange,
} from "@/lib/harness";

type EntryRow = NonNullable<Awaited<ReturnType<Db["harnessEntry"]["findUnique"]>>>;
type RevisionRow = NonNullable<Awaited<ReturnType<Db["harnessRevision"]["findUnique"]>>>;
type Transaction = Parameters<Parameters<Db["$transaction"]>[0]>[0];
type EntryWhere = NonNullable<NonNullable<Parameters<Db["harnessEntry"]["findMany"]>[0]>["where"]>;

/** Large restores write thousands of rows in one transaction; the default 5 s is too short. */
const TRANSACTION_OPTIONS = { maxWait: 10_000, timeout: 120_000 } as const;

function pageSize(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return DEFAULT_PAGE_SIZE;
  return Math.min(MAX_PAGE_SIZE, Math.max(1, Math.floor(limit)));
}

function decodeCursor<T>(
  cursor: string | null | undefined,
  isValid: (value: unknown) => value is T,
): T | null {
  if (cursor === null || cursor === undefined || cursor === "") return null;
  try {
    const value: unknown = JSON.parse(cursor);
    if (isValid(value)) return value;
  } catch {
    // reported below
  }
  throw new HarnessValidationError({
    surface: "cursor",
    message: "Invalid pagination cursor",
    details: { cursor },
  });
}

const isEntryCursor = (value: unknown): value is [string, string] =>
  Array.isArray(value) &&
  value.length === 2 &&
  typeof value[0] === "string" &&
  typeof value[1] === "string";
const isRangeCursor = (value: unknown): value is [number, string] =>
  Array.isArray(value) &&
  value.length === 2 &&
  typeof value[0] === "number" &&
  typeof value[1] === "string";
const isVersionCursor = (value: unknown): value is number => typeof value === "number";

function entryFromRow(row: EntryRow): Entry {
  return {
    id: row.id,
    kind: row.kind as Entry["kind"],
    scope: row.scope as Entry["scope"],
    chatId: row.chatId,
    title: row.title,
    content: row.content,
    path: row.path,
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    pinned: row.pinned,
    source: row.source as Entry["source"],
    version: row.version,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    createdBy: row.createdBy,
    updatedBy: row.updatedBy,
  };
}

function rowFromEntry(workspaceId: string, entryKey: string, entry: Entry) {
  return {
    workspaceId,
    entryKey,
    id: entry.id,
    kind: entry.kind,
    scope: entry.scope,
    chatId: entry.chatId,
    title: entry.title,
    content: entry.content,
    path: entry.path,
    metadata: JSON.stringify(entry.metadata),
    pinned: entry.pinned,
    source: entry.source,
    version: entry.version,
    createdAt: new Date(entry.createdAt),
    updatedAt: new Date(entry.updatedAt),
    createdBy: entry.createdBy,
    updatedBy: entry.updatedBy,
    searchText: `${entry.title}\n${entry.content}`.toLowerCase(),
  };
}

function revisionFromRow(row: RevisionRow): Revision {
  return {
    id: row.id,
    workspaceId: row.workspaceId,
    entryKey: row.entryKey,
    entryId: row.entryId,
    kind: row.kind as Revision["kind"],
    scope: row.scope as Revision["scope"],
    chatId: row.chatId,
    action: row.action as Revision["action"],
    before: row.before === null ? null : (JSON.parse(row.before) as Entry),
    after: row.after === null ? null : (JSON.parse(row.after) as Entry),
    actorId: row.actorId,
    reason: row.reason,
    cause: row.cause as Revision["cause"],
    harnessVersion: row.harnessVersion,
    createdAt: row.createdAt.toISOString(),
  };
}

function whereOf(workspaceId: string, filter: EntryFilter): EntryWhere {
  const and: EntryWhere[] = [{ workspaceId }];
  if (filter.kind !== undefined) {
    and.push({ kind: { in: typeof filter.kind === "string" ? [filter.kind] : [...filter.kind] } });
  }
  if (filter.scope === "global") and.push({ scope: "global" });
  else if (filter.scope === "local") {
    and.push({ scope: "local" });
    if (filter.chatId !== undefined) and.push({ chatId: filter.chatId });
  } else if (filter.chatId !== undefined) {
    and.push({ OR: [{ scope: "global" }, { scope: "local", chatId: filter.chatId }] });
  }
  if (filter.pathPrefix) {
    and.push({
      OR: [{ path: filter.pathPrefix }, { path: { startsWith: `${filter.pathPrefix}/` } }],
    });
  }
  if (filter.text) and.push({ searchText: { contains: filter.text.toLowerCase() } });
  if (filter.pinned !== undefined) and.push({ pinned: filter.pinned });
  return { AND: and };
}

/**
 * `HarnessStoragePort` on Prisma, for SQLite and PostgreSQL alike. Policy stays in the core;
 * this class only maps rows and keeps `applyChanges` atomic.
 *
 * Concurrency: `applyChanges` first advances the workspace's counter row. On PostgreSQL that
 * row lock serialises all writers of one workspace, so the version checks that follow read
 * committed state; SQLite serialises writers anyway.
 */
export class PrismaHarnessStorage implements HarnessStoragePort {
  constructor(private readonly db: Db) {}

  async applyChanges(
    options: StorageCallOptions & {
      workspaceId: string;
      changes: readonly StorageChange[];
      expectedHarnessVersion?: number;
    },
  ): Promise<{ harnessVersion: number; revisions: Revision[] }> {
    options.abortSignal?.throwIfAborted();
    const { workspaceId, changes, expectedHarnessVersion } = options;
    if (changes.length === 0) {
      const harnessVersion = await this.getHarnessVersion({ workspaceId });
      if (expectedHarnessVersion !== undefined && expectedHarnessVersion !== harnessVersion) {
        throw harnessConflict(expectedHarnessVersion, harnessVersion);
      }
      return { harnessVersion, revisions: [] };
    }
    const keys = changes.map(({ revision }) =>
      entryKeyOf({
        scope: revision.scope,
        chatId: revision.chatId,
        kind: revision.kind,
        id: revision.entryId,
      }),
    );
    const duplicate = keys.find((key, index) => keys.indexOf(key) !== index);
    if (duplicate) {
      throw new HarnessConflictError({
        surface: "entry",
        message: `Entry ${duplicate} appears twice in one batch`,
        details: { entryKey: duplicate },
      });
    }
    try {
      return await this.db.$transaction(async (tx) => {
        const counter = await tx.harnessCounter.upsert({
          where: { workspaceId },
          create: { workspaceId, version: 1 },
          update: { version: { increment: 1 } },
        });
        const harnessVersion = counter.version;
        if (expectedHarnessVersion !== undefined && expectedHarnessVersion !== harnessVersion - 1) {
          throw harnessConflict(expectedHarnessVersion, harnessVersion - 1);
        }
        const revisions: Revision[] = [];
        for (const [index, change] of changes.entries()) {
          options.abortSignal?.throwIfAborted();
          revisions.push(
            await this.applyOne(tx, workspaceId, keys[index]!, change, harnessVersion),
          );
        }
        return { harnessVersion, revisions };
      }, TRANSACTION_OPTIONS);
    } catch (error) {
      if (isUniqueConstraintError(error)) {
        // Either a revision id was reused, or a concurrent writer created the same entry first.
        throw new HarnessConflictError({
          surface: "entry",
          message:
            "A concurrent change or a duplicate revision id conflicted with this batch; nothing was applied",
          cause: error,
        });
      }
      throw error;
    }
  }

  private async applyOne(
    tx: Transaction,
    workspaceId: string,
    entryKey: string,
    change: StorageChange,
    harnessVersion: number,
  ): Promise<Revision> {
    const current = await tx.harnessEntry.findUnique({
      where: { workspaceId_entryKey: { workspaceId, entryKey } },
      select: { version: true },
    });
    const currentVersion = current ? current.version : null;
    if (currentVersion !== change.expectedVersion) {
      throw new HarnessConflictError({
        surface: "entry",
        message:
          change.expectedVersion === null
            ? `Entry ${entryKey} already exists (version ${currentVersion})`
            : current
              ? `Entry ${entryKey} is at version ${currentVersion}, not ${change.expectedVersion}`
              : `Entry ${entryKey} no longer exists (expected version ${change.expectedVersion})`,
        details: { entryKey, expectedVersion: change.expectedVersion, currentVersion },
      });
    }
    const { revision } = change;
    if (revision.after) {
      const data = rowFromEntry(workspaceId, entryKey, revision.after);
      if (current)
        await tx.harnessEntry.update({
          where: { workspaceId_entryKey: { workspaceId, entryKey } },
          data,
        });
      else await tx.harnessEntry.create({ data });
    } else if (current) {
      await tx.harnessEntry.delete({ where: { workspaceId_entryKey: { workspaceId, entryKey } } });
    }
    const row = await tx.harnessRevision.create({
      data: {
        id: revision.id,
        workspaceId,
        entryKey,
        entryId: revision.entryId,
        kind: revision.kind,
        scope: revision.scope,
        chatId: revision.chatId,
        action: revision.action,
        before: revision.before === null ? null : JSON.stringify(revision.before),
        after: revision.after === null ? null : JSON.stringify(revision.after),
        actorId: revision.actorId,
        reason: revision.reason,
        cause: revision.cause,
        harnessVersion,
        createdAt: new Date(revision.createdAt),
      },
    });
    return revisionFromRow(row);
  }

  async getEntry(
    options: StorageCallOptions & { workspaceId: string; ref: EntryRef },
  ): Promise<Entry | null> {
    options.abortSignal?.throwIfAborted();
    const row = await this.db.harnessEntry.findUnique({
      where: {
        workspaceId_entryKey: {
          workspaceId: options.workspaceId,
          entryKey: entryKeyOf(options.ref),
        },
      },
    });
    return row ? entryFromRow(row) : null;
  }

  async listEntries(
    options: StorageCallOptions & {
      workspaceId: string;
      filter?: EntryFilter;
      cursor?: string | null;
      limit?: number;
    },
  ): Promise<Page<Entry>> {
    options.abortSignal?.throwIfAborted();
    const limit = pageSize(options.limit);
    const after = decodeCursor(options.cursor, isEntryCursor);
    const where: EntryWhere = after
      ? {
          AND: [
            whereOf(options.workspaceId, options.filter ?? {}),
            {
              OR: [
                { updatedAt: { lt: new Date(after[0]) } },
                { updatedAt: new Date(after[0]), entryKey: { gt: after[1] } },
              ],
            },
          ],
        }
      : whereOf(options.workspaceId, options.filter ?? {});
    const rows = await this.db.harnessEntry.findMany({
      where,
      orderBy: [{ updatedAt: "desc" }, { entryKey: "asc" }],
      take: limit + 1,
    });
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      items: page.map(entryFromRow),
      nextCursor:
        rows.length > limit && last
          ? JSON.stringify([last.updatedAt.toISOString(), last.entryKey])
          : null,
    };
  }

  async listRevisions(
    options: StorageCallOptions & {
      workspaceId: string;
      entryKey: string;
      order?: "asc" | "desc";
      cursor?: string | null;
      limit?: number;
    },
  ): Promise<Page<Revision>> {
    options.abortSignal?.throwIfAborted();
    const limit = pageSize(options.limit);
    const after = decodeCursor(options.cursor, isVersionCursor);
    const descending = options.order === "desc";
    const rows = await this.db.harnessRevision.findMany({
      where: {
        workspaceId: options.workspaceId,
        entryKey: options.entryKey,
        ...(after === null ? {} : { harnessVersion: descending ? { lt: after } : { gt: after } }),
      },
      orderBy: { harnessVersion: descending ? "desc" : "asc" },
      take: limit + 1,
    });
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      items: page.map(revisionFromRow),
      nextCursor: rows.length > limit && last ? JSON.stringify(last.harnessVersion) : null,
    };
  }

  async getRevision(
    options: StorageCallOptions & { workspaceId: string; revisionId: string },
  ): Promise<Revision | null> {
    options.abortSignal?.throwIfAborted();
    const row = await this.db.harnessRevision.findFirst({
      where: { id: options.revisionId, workspaceId: options.workspaceId },
    });
    return row ? revisionFromRow(row) : null;
  }

  async listRevisionsInRange(
    options: StorageCallOptions & {
      workspaceId: string;
      afterHarnessVersion?: number;
      upToHarnessVersion?: number;
      cursor?: string | null;
      limit?: number;
    },
  ): Promise<Page<Revision>> {
    options.abortSignal?.throwIfAborted();
    const limit = pageSize(options.limit);
    const after = decodeCursor(options.cursor, isRangeCursor);
    const rows = await this.db.harnessRevision.findMany({
      where: {
        workspaceId: options.workspaceId,
        harnessVersion: {
          gt: options.afterHarnessVersion ?? 0,
          ...(options.upToHarnessVersion === undefined ? {} : { lte: options.upToHarnessVersion }),
        },
        ...(after
          ? {
              OR: [
                { harnessVersion: { gt: after[0] } },
                { harnessVersion: after[0], entryKey: { gt: after[1] } },
              ],
            }
          : {}),
      },
      orderBy: [{ harnessVersion: "asc" }, { entryKey: "asc" }],
      take: limit + 1,
    });
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      items: page.map(revisionFromRow),
      nextCursor:
        rows.length > limit && last ? JSON.stringify([last.harnessVersion, last.entryKey]) : null,
    };
  }

  async getHarnessVersion(options: StorageCallOptions & { workspaceId: string }): Promise<number> {
    options.abortSignal?.throwIfAborted();
    const counter = await this.db.harnessCounter.findUnique({
      where: { workspaceId: options.workspaceId },
    });
    return counter?.version ?? 0;
  }
}

function harnessConflict(expected: number, actual: number): HarnessConflictError {
  return new HarnessConflictError({
    surface: "harness",
    message: `The harness changed: expected version ${expected}, found ${actual}`,
    details: { expectedHarnessVersion: expected, harnessVersion: actual },
  });
}
