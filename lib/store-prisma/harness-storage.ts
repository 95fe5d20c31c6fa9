import type { Db } from "@/lib/db";
import {
  batchEntryKeys,
  clampStoragePageSize,
  decodeStorageCursor,
  entryVersionConflict,
  harnessVersionConflict,
  isEntryCursor,
  isRangeCursor,
  isVersionCursor,
} from "@/lib/harness/spi";
import { isUniqueConstraintError } from "@/lib/db";
import {
  type Entry,
  HarnessConflictError,
  type HarnessStoragePort,
  type Page,
  type Revision,
} from "@/lib/harness";
import {
  type EntryFilter,
  entryKeyOf,
  type EntryRef,
  type StorageCallOptions,
  type StorageChange,
} from "@/lib/harness/spi";

type EntryRow = NonNullable<Awaited<ReturnType<Db["harnessEntry"]["findUnique"]>>>;
type RevisionRow = NonNullable<Awaited<ReturnType<Db["harnessRevision"]["findUnique"]>>>;
type Transaction = Parameters<Parameters<Db["$transaction"]>[0]>[0];
/** `getEntryAndLastRevision`'s row: entry columns prefixed `e_`, revision columns `r_`. */
type JoinedRow = Record<string, unknown> & { e_entryKey: string | null; r_id: string | null };
type EntryWhere = NonNullable<NonNullable<Parameters<Db["harnessEntry"]["findMany"]>[0]>["where"]>;

/** Large restores write thousands of rows in one transaction; the default 5 s is too short. */
const TRANSACTION_OPTIONS = { maxWait: 10_000, timeout: 120_000 } as const;

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
    ...(row.via ? { via: row.via } : {}),
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
        throw harnessVersionConflict(expectedHarnessVersion, harnessVersion);
      }
      return { harnessVersion, revisions: [] };
    }
    const keys = batchEntryKeys(changes);
    try {
      return await this.db.$transaction(async (tx) => {
        // Advancing the counter first takes the workspace's write lock on PostgreSQL.
        const [counter] = await tx.$queryRaw<{ version: number }[]>`
          INSERT INTO "HarnessCounter" ("workspaceId", "version") VALUES (${workspaceId}, 1)
          ON CONFLICT ("workspaceId") DO UPDATE SET "version" = "HarnessCounter"."version" + 1
          RETURNING "version"`;
        const harnessVersion = Number(counter!.version);
        if (expectedHarnessVersion !== undefined && expectedHarnessVersion !== harnessVersion - 1) {
          throw harnessVersionConflict(expectedHarnessVersion, harnessVersion - 1);
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

  /**
   * One change in raw SQL (a model query costs several times a raw one through the driver
   * adapter): the entry write carries the version expectation in its WHERE clause (or, for a
   * create, in ON CONFLICT DO NOTHING), so a write that touches no row is the conflict, and
   * the current version is read only to explain it.
   */
  private async applyOne(
    tx: Transaction,
    workspaceId: string,
    entryKey: string,
    change: StorageChange,
    harnessVersion: number,
  ): Promise<Revision> {
    const { revision, expectedVersion } = change;
    const after = revision.after;
    let written: number;
    if (after) {
      const row = rowFromEntry(workspaceId, entryKey, after);
      written =
        expectedVersion === null
          ? await tx.$executeRaw`
              INSERT INTO "HarnessEntry" ("workspaceId", "entryKey", "id", "kind", "scope", "chatId",
                "title", "content", "path", "metadata", "pinned", "source", "version", "createdAt",
                "updatedAt", "createdBy", "updatedBy", "searchText")
              VALUES (${row.workspaceId}, ${row.entryKey}, ${row.id}, ${row.kind}, ${row.scope},
                ${row.chatId}, ${row.title}, ${row.content}, ${row.path}, ${row.metadata},
                ${row.pinned}, ${row.source}, ${row.version}, ${row.createdAt}, ${row.updatedAt},
                ${row.createdBy}, ${row.updatedBy}, ${row.searchText})
              ON CONFLICT ("workspaceId", "entryKey") DO NOTHING`
          : await tx.$executeRaw`
              UPDATE "HarnessEntry" SET "id" = ${row.id}, "kind" = ${row.kind},
                "scope" = ${row.scope}, "chatId" = ${row.chatId}, "title" = ${row.title},
                "content" = ${row.content}, "path" = ${row.path}, "metadata" = ${row.metadata},
                "pinned" = ${row.pinned}, "source" = ${row.source}, "version" = ${row.version},
                "createdAt" = ${row.createdAt}, "updatedAt" = ${row.updatedAt},
                "createdBy" = ${row.createdBy}, "updatedBy" = ${row.updatedBy},
                "searchText" = ${row.searchText}
              WHERE "workspaceId" = ${workspaceId} AND "entryKey" = ${entryKey}
                AND "version" = ${expectedVersion}`;
    } else if (expectedVersion === null) {
      // Nothing to delete; the expectation is only that the entry is absent.
      const rows = await tx.$queryRaw<{ one: number }[]>`
        SELECT 1 AS "one" FROM "HarnessEntry"
        WHERE "workspaceId" = ${workspaceId} AND "entryKey" = ${entryKey}`;
      written = rows.length === 0 ? 1 : 0;
    } else {
      written = await tx.$executeRaw`
        DELETE FROM "HarnessEntry"
        WHERE "workspaceId" = ${workspaceId} AND "entryKey" = ${entryKey}
          AND "version" = ${expectedVersion}`;
    }
    if (written !== 1) {
      const [current] = await tx.$queryRaw<{ version: number }[]>`
        SELECT "version" FROM "HarnessEntry"
        WHERE "workspaceId" = ${workspaceId} AND "entryKey" = ${entryKey}`;
      throw entryVersionConflict(
        entryKey,
        expectedVersion,
        current ? Number(current.version) : null,
      );
    }
    const stored: Revision = {
      id: revision.id,
      workspaceId,
      entryKey,
      entryId: revision.entryId,
      kind: revision.kind,
      scope: revision.scope,
      chatId: revision.chatId,
      action: revision.action,
      before: revision.before,
      after: revision.after,
      actorId: revision.actorId,
      reason: revision.reason,
      cause: revision.cause,
      ...(revision.via ? { via: revision.via } : {}),
      harnessVersion,
      createdAt: new Date(revision.createdAt).toISOString(),
    };
    const before = revision.before === null ? null : JSON.stringify(revision.before);
    const afterJson = after === null ? null : JSON.stringify(after);
    await tx.$executeRaw`
      INSERT INTO "HarnessRevision" ("id", "workspaceId", "entryKey", "entryId", "kind", "scope",
        "chatId", "action", "before", "after", "actorId", "reason", "cause", "via", "harnessVersion",
        "createdAt")
      VALUES (${stored.id}, ${workspaceId}, ${entryKey}, ${stored.entryId}, ${stored.kind},
        ${stored.scope}, ${stored.chatId}, ${stored.action}, ${before}, ${afterJson},
        ${stored.actorId}, ${stored.reason}, ${stored.cause}, ${stored.via ?? null}, ${harnessVersion},
        ${new Date(revision.createdAt)})`;
    // What a read returns: JSON round-tripped, like revisionFromRow, so callers never share
    // objects with the input.
    return {
      ...stored,
      before: before === null ? null : (JSON.parse(before) as Entry),
      after: afterJson === null ? null : (JSON.parse(afterJson) as Entry),
    };
  }

  async getEntry(
    options: StorageCallOptions & { workspaceId: string; ref: EntryRef },
  ): Promise<Entry | null> {
    options.abortSignal?.throwIfAborted();
    const [row] = await this.db.$queryRaw<EntryRow[]>`
      SELECT * FROM "HarnessEntry"
      WHERE "workspaceId" = ${options.workspaceId} AND "entryKey" = ${entryKeyOf(options.ref)}`;
    return row ? entryFromRow(row) : null;
  }

  /** One query: the entry row left-joined with the key's newest revision. */
  async getEntryAndLastRevision(
    options: StorageCallOptions & { workspaceId: string; ref: EntryRef },
  ): Promise<{ entry: Entry | null; lastRevision: Revision | null }> {
    options.abortSignal?.throwIfAborted();
    const { workspaceId } = options;
    const entryKey = entryKeyOf(options.ref);
    const [row] = await this.db.$queryRaw<JoinedRow[]>`
      SELECT
        e."workspaceId" AS "e_workspaceId", e."entryKey" AS "e_entryKey", e."id" AS "e_id",
        e."kind" AS "e_kind", e."scope" AS "e_scope", e."chatId" AS "e_chatId",
        e."title" AS "e_title", e."content" AS "e_content", e."path" AS "e_path",
        e."metadata" AS "e_metadata", e."pinned" AS "e_pinned", e."source" AS "e_source",
        e."version" AS "e_version", e."createdAt" AS "e_createdAt",
        e."updatedAt" AS "e_updatedAt", e."createdBy" AS "e_createdBy",
        e."updatedBy" AS "e_updatedBy", e."searchText" AS "e_searchText",
        r."id" AS "r_id", r."workspaceId" AS "r_workspaceId", r."entryKey" AS "r_entryKey",
        r."entryId" AS "r_entryId", r."kind" AS "r_kind", r."scope" AS "r_scope",
        r."chatId" AS "r_chatId", r."action" AS "r_action", r."before" AS "r_before",
        r."after" AS "r_after", r."actorId" AS "r_actorId", r."reason" AS "r_reason",
        r."cause" AS "r_cause", r."via" AS "r_via", r."harnessVersion" AS "r_harnessVersion",
        r."createdAt" AS "r_createdAt"
      FROM (SELECT 1 AS "one") AS "o"
      LEFT JOIN "HarnessEntry" AS e
        ON e."workspaceId" = ${workspaceId} AND e."entryKey" = ${entryKey}
      LEFT JOIN "HarnessRevision" AS r
        ON r."id" = (
          SELECT "id" FROM "HarnessRevision"
          WHERE "workspaceId" = ${workspaceId} AND "entryKey" = ${entryKey}
          ORDER BY "harnessVersion" DESC LIMIT 1
        )`;
    const prefixed = (prefix: "e_" | "r_") =>
      Object.fromEntries(
        Object.entries(row ?? {})
          .filter(([name]) => name.startsWith(prefix))
          .map(([name, value]) => [name.slice(2), value]),
      );
    const entryRow = prefixed("e_") as unknown as EntryRow;
    const revisionRow = prefixed("r_") as unknown as RevisionRow;
    return {
      entry: row?.e_entryKey == null ? null : entryFromRow(entryRow),
      lastRevision: row?.r_id == null ? null : revisionFromRow(revisionRow),
    };
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
    const limit = clampStoragePageSize(options.limit);
    const after = decodeStorageCursor(options.cursor, isEntryCursor);
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
    const limit = clampStoragePageSize(options.limit);
    const after = decodeStorageCursor(options.cursor, isVersionCursor);
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
    const limit = clampStoragePageSize(options.limit);
    const after = decodeStorageCursor(options.cursor, isRangeCursor);
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
