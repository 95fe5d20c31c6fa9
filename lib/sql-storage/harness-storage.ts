// Over 500 lines, knowingly: the one harness storage adapter (entries, revisions, batches,
// events, the prompt view's reads) for both databases; its statements share row mappers and
// read best in one place.
import { recordAuditEvent, type AuditVia } from "@/lib/audit";
import { cairn } from "@/lib/cairn";
import { processSlot } from "@/lib/cairn/process-slot";
import { type DatabaseTarget } from "@/lib/db";
import {
  type Entry,
  HarnessConflictError,
  type HarnessStoragePort,
  type Page,
  type Revision,
} from "@/lib/harness";
import {
  batchEntryKeys,
  clampStoragePageSize,
  decodeStorageCursor,
  entryKeyOf,
  type EntryRef,
  entryVersionConflict,
  harnessVersionConflict,
  isEntryCursor,
  isRangeCursor,
  isVersionCursor,
  type ApplyChangesOptions,
  type ListEntriesOptions,
  type ListRevisionsInRangeOptions,
  type ListRevisionsOptions,
  type StorageCallOptions,
  type StorageChange,
} from "@/lib/harness/spi";
import {
  isUniqueViolation,
  placeholders,
  sqlFor,
  toBool,
  toDate,
  type Sql,
  type SqlExecutor,
  type SqlValue,
} from "./sql";

interface EntryRow {
  entryKey: string;
  id: string;
  kind: string;
  scope: string;
  chatId: string | null;
  title: string;
  content: string;
  path: string;
  metadata: string;
  pinned: unknown;
  source: string;
  version: number;
  createdAt: unknown;
  updatedAt: unknown;
  createdBy: string;
  updatedBy: string;
}

interface RevisionRow {
  id: string;
  workspaceId: string;
  entryKey: string;
  entryId: string;
  kind: string;
  scope: string;
  chatId: string | null;
  action: string;
  before: string | null;
  after: string | null;
  actorId: string;
  reason: string;
  cause: string;
  via: string | null;
  harnessVersion: number;
  createdAt: unknown;
}

const ENTRY_COLUMNS = `"entryKey", "id", "kind", "scope", "chatId", "title", "content", "path", "metadata", "pinned", "source", "version", "createdAt", "updatedAt", "createdBy", "updatedBy"`;
const REVISION_COLUMNS = `"id", "workspaceId", "entryKey", "entryId", "kind", "scope", "chatId", "action", "before", "after", "actorId", "reason", "cause", "via", "harnessVersion", "createdAt"`;

const prefixed = (prefix: string, columns: string) =>
  columns
    .split(", ")
    .map((column) => `${prefix}.${column} AS "${prefix}_${column.slice(1, -1)}"`)
    .join(", ");

/** `getEntryAndLastRevision`: the entry and the key's newest revision in one statement. */
const ENTRY_AND_LAST_REVISION = `SELECT ${prefixed("e", ENTRY_COLUMNS)}, ${prefixed("r", REVISION_COLUMNS)}
  FROM (SELECT 1 AS "one") AS o
  LEFT JOIN "HarnessEntry" AS e ON e."workspaceId" = ? AND e."entryKey" = ?
  LEFT JOIN "HarnessRevision" AS r ON r."id" = (
    SELECT "id" FROM "HarnessRevision" WHERE "workspaceId" = ? AND "entryKey" = ?
    ORDER BY "harnessVersion" DESC LIMIT 1)`;

function unprefixed(row: Record<string, unknown>, prefix: string): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const name in row)
    if (name.startsWith(prefix)) result[name.slice(prefix.length)] = row[name];
  return result;
}

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
    pinned: toBool(row.pinned),
    source: row.source as Entry["source"],
    version: row.version,
    createdAt: toDate(row.createdAt).toISOString(),
    updatedAt: toDate(row.updatedAt).toISOString(),
    createdBy: row.createdBy,
    updatedBy: row.updatedBy,
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
    createdAt: toDate(row.createdAt).toISOString(),
  };
}

/**
 * `HarnessStoragePort` on the SQL layer, for SQLite and PostgreSQL alike (the same statements;
 * rows in the format Prisma reads and writes). Policy stays in the core; this class maps rows
 * and keeps `applyChanges` atomic.
 *
 * Concurrency: `applyChanges` runs in one write transaction that first advances the
 * workspace's counter row. SQLite's `BEGIN IMMEDIATE` serialises writers; on PostgreSQL the
 * counter's row lock serialises the writers of one workspace, so the version checks that
 * follow read committed state. Every entry write carries its version expectation in its WHERE
 * clause (or, for a create, `ON CONFLICT DO NOTHING`): a write that touches no row is the
 * conflict, and the current version is read only to explain it.
 */
export class SqlHarnessStorage implements HarnessStoragePort {
  constructor(private readonly sql: Sql) {}

  async applyChanges(
    options: ApplyChangesOptions,
  ): Promise<{ harnessVersion: number; revisions: Revision[] }> {
    options.abortSignal?.throwIfAborted();
    const { workspaceId, changes, expectedHarnessVersion, abortSignal } = options;
    if (changes.length === 0) {
      const harnessVersion = await this.readHarnessVersion(this.sql, workspaceId);
      if (expectedHarnessVersion !== undefined && expectedHarnessVersion !== harnessVersion) {
        throw harnessVersionConflict(expectedHarnessVersion, harnessVersion);
      }
      return { harnessVersion, revisions: [] };
    }
    const keys = batchEntryKeys(changes);
    try {
      return await this.sql.transaction(async (tx) => {
        const harnessVersion = await nextHarnessVersion(tx, workspaceId);
        if (expectedHarnessVersion !== undefined && expectedHarnessVersion !== harnessVersion - 1) {
          throw harnessVersionConflict(expectedHarnessVersion, harnessVersion - 1);
        }
        const revisions: Revision[] = [];
        for (const [index, change] of changes.entries()) {
          abortSignal?.throwIfAborted();
          revisions.push(
            await this.applyOne(tx, workspaceId, keys[index]!, change, harnessVersion),
          );
        }
        await auditGlobalChanges(tx, workspaceId, harnessVersion, revisions);
        return { harnessVersion, revisions };
      });
    } catch (error) {
      if (isUniqueViolation(error)) {
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
    tx: SqlExecutor,
    workspaceId: string,
    entryKey: string,
    change: StorageChange,
    harnessVersion: number,
  ): Promise<Revision> {
    const { revision, expectedVersion } = change;
    const after = revision.after;
    let written: number;
    if (after) {
      const values: SqlValue[] = [
        after.id,
        after.kind,
        after.scope,
        after.chatId,
        after.title,
        after.content,
        after.path,
        JSON.stringify(after.metadata),
        after.pinned,
        after.source,
        after.version,
        new Date(after.createdAt),
        new Date(after.updatedAt),
        after.createdBy,
        after.updatedBy,
        `${after.title}\n${after.content}`.toLowerCase(),
      ];
      written =
        expectedVersion === null
          ? (
              await tx.run(
                `INSERT INTO "HarnessEntry" ("workspaceId", "entryKey", "id", "kind", "scope", "chatId", "title", "content", "path", "metadata", "pinned", "source", "version", "createdAt", "updatedAt", "createdBy", "updatedBy", "searchText")
                 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                 ON CONFLICT ("workspaceId", "entryKey") DO NOTHING`,
                [workspaceId, entryKey, ...values],
              )
            ).changes
          : (
              await tx.run(
                `UPDATE "HarnessEntry" SET "id" = ?, "kind" = ?, "scope" = ?, "chatId" = ?, "title" = ?, "content" = ?, "path" = ?, "metadata" = ?, "pinned" = ?, "source" = ?, "version" = ?, "createdAt" = ?, "updatedAt" = ?, "createdBy" = ?, "updatedBy" = ?, "searchText" = ?
                 WHERE "workspaceId" = ? AND "entryKey" = ? AND "version" = ?`,
                [...values, workspaceId, entryKey, expectedVersion],
              )
            ).changes;
    } else if (expectedVersion === null) {
      // Nothing to delete; the expectation is only that the entry is absent.
      written = (await this.readEntryVersion(tx, workspaceId, entryKey)) === null ? 1 : 0;
    } else {
      written = (
        await tx.run(
          `DELETE FROM "HarnessEntry" WHERE "workspaceId" = ? AND "entryKey" = ? AND "version" = ?`,
          [workspaceId, entryKey, expectedVersion],
        )
      ).changes;
    }
    if (written !== 1) {
      throw entryVersionConflict(
        entryKey,
        expectedVersion,
        await this.readEntryVersion(tx, workspaceId, entryKey),
      );
    }
    const before = revision.before === null ? null : JSON.stringify(revision.before);
    const afterJson = after === null ? null : JSON.stringify(after);
    const createdAt = new Date(revision.createdAt);
    await tx.run(
      `INSERT INTO "HarnessRevision" (${REVISION_COLUMNS})
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        revision.id,
        workspaceId,
        entryKey,
        revision.entryId,
        revision.kind,
        revision.scope,
        revision.chatId,
        revision.action,
        before,
        afterJson,
        revision.actorId,
        revision.reason,
        revision.cause,
        revision.via ?? null,
        harnessVersion,
        createdAt,
      ],
    );
    // What a read returns: JSON round-tripped, so callers never share objects with the input.
    return revisionFromRow({
      id: revision.id,
      workspaceId,
      entryKey,
      entryId: revision.entryId,
      kind: revision.kind,
      scope: revision.scope,
      chatId: revision.chatId,
      action: revision.action,
      before,
      after: afterJson,
      actorId: revision.actorId,
      reason: revision.reason,
      cause: revision.cause,
      via: revision.via ?? null,
      harnessVersion,
      createdAt,
    });
  }

  private async readEntryVersion(
    executor: SqlExecutor,
    workspaceId: string,
    entryKey: string,
  ): Promise<number | null> {
    const row = await executor.get<{ version: number }>(
      `SELECT "version" FROM "HarnessEntry" WHERE "workspaceId" = ? AND "entryKey" = ?`,
      [workspaceId, entryKey],
    );
    return row ? Number(row.version) : null;
  }

  private async readHarnessVersion(executor: SqlExecutor, workspaceId: string): Promise<number> {
    const row = await executor.get<{ version: number }>(
      `SELECT "version" FROM "HarnessCounter" WHERE "workspaceId" = ?`,
      [workspaceId],
    );
    return row ? Number(row.version) : 0;
  }

  async getEntry(
    options: StorageCallOptions & { workspaceId: string; ref: EntryRef },
  ): Promise<Entry | null> {
    options.abortSignal?.throwIfAborted();
    const row = await this.sql.get<EntryRow>(
      `SELECT ${ENTRY_COLUMNS} FROM "HarnessEntry" WHERE "workspaceId" = ? AND "entryKey" = ?`,
      [options.workspaceId, entryKeyOf(options.ref)],
    );
    return row ? entryFromRow(row) : null;
  }

  async getEntryAndLastRevision(
    options: StorageCallOptions & { workspaceId: string; ref: EntryRef },
  ): Promise<{ entry: Entry | null; lastRevision: Revision | null }> {
    options.abortSignal?.throwIfAborted();
    const { workspaceId } = options;
    const entryKey = entryKeyOf(options.ref);
    const row = await this.sql.get<Record<string, unknown>>(ENTRY_AND_LAST_REVISION, [
      workspaceId,
      entryKey,
      workspaceId,
      entryKey,
    ]);
    return {
      entry:
        row?.e_entryKey == null ? null : entryFromRow(unprefixed(row, "e_") as unknown as EntryRow),
      lastRevision:
        row?.r_id == null ? null : revisionFromRow(unprefixed(row, "r_") as unknown as RevisionRow),
    };
  }

  async listEntries(options: ListEntriesOptions): Promise<Page<Entry>> {
    options.abortSignal?.throwIfAborted();
    const limit = clampStoragePageSize(options.limit);
    const after = decodeStorageCursor(options.cursor, isEntryCursor);
    const filter = options.filter ?? {};
    // instr / strpos, not LIKE: a prefix or text with % or _ matches literally.
    const position = this.sql.dialect === "sqlite" ? "instr" : "strpos";
    const where: string[] = [`"workspaceId" = ?`];
    const parameters: SqlValue[] = [options.workspaceId];
    if (filter.kind !== undefined) {
      const kinds: readonly string[] =
        typeof filter.kind === "string" ? [filter.kind] : filter.kind;
      where.push(`"kind" IN (${placeholders(kinds.length)})`);
      parameters.push(...kinds);
    }
    if (filter.scope === "global") where.push(`"scope" = 'global'`);
    else if (filter.scope === "local") {
      where.push(`"scope" = 'local'`);
      if (filter.chatId !== undefined) {
        where.push(`"chatId" = ?`);
        parameters.push(filter.chatId);
      }
    } else if (filter.chatId !== undefined) {
      where.push(`("scope" = 'global' OR ("scope" = 'local' AND "chatId" = ?))`);
      parameters.push(filter.chatId);
    }
    if (filter.pathPrefix) {
      where.push(`("path" = ? OR ${position}("path", ?) = 1)`);
      parameters.push(filter.pathPrefix, `${filter.pathPrefix}/`);
    }
    if (filter.text) {
      where.push(`${position}("searchText", ?) > 0`);
      parameters.push(filter.text.toLowerCase());
    }
    if (filter.pinned !== undefined) {
      where.push(`"pinned" = ?`);
      parameters.push(filter.pinned);
    }
    if (after) {
      const updatedAt = new Date(after[0]);
      where.push(`("updatedAt" < ? OR ("updatedAt" = ? AND "entryKey" > ?))`);
      parameters.push(updatedAt, updatedAt, after[1]);
    }
    const rows = await this.sql.all<EntryRow>(
      `SELECT ${ENTRY_COLUMNS} FROM "HarnessEntry" WHERE ${where.join(" AND ")}
       ORDER BY "updatedAt" DESC, "entryKey" ASC LIMIT ?`,
      [...parameters, limit + 1],
    );
    return pageOf(rows, limit, entryFromRow, (last) => [
      toDate(last.updatedAt).toISOString(),
      last.entryKey,
    ]);
  }

  async listRevisions(options: ListRevisionsOptions): Promise<Page<Revision>> {
    options.abortSignal?.throwIfAborted();
    const limit = clampStoragePageSize(options.limit);
    const after = decodeStorageCursor(options.cursor, isVersionCursor);
    const descending = options.order === "desc";
    const rows = await this.sql.all<RevisionRow>(
      `SELECT ${REVISION_COLUMNS} FROM "HarnessRevision" WHERE "workspaceId" = ? AND "entryKey" = ?
       ${after === null ? "" : descending ? `AND "harnessVersion" < ?` : `AND "harnessVersion" > ?`}
       ORDER BY "harnessVersion" ${descending ? "DESC" : "ASC"} LIMIT ?`,
      [options.workspaceId, options.entryKey, ...(after === null ? [] : [after]), limit + 1],
    );
    return pageOf(rows, limit, revisionFromRow, (last) => last.harnessVersion);
  }

  async getRevision(
    options: StorageCallOptions & { workspaceId: string; revisionId: string },
  ): Promise<Revision | null> {
    options.abortSignal?.throwIfAborted();
    const row = await this.sql.get<RevisionRow>(
      `SELECT ${REVISION_COLUMNS} FROM "HarnessRevision" WHERE "id" = ? AND "workspaceId" = ?`,
      [options.revisionId, options.workspaceId],
    );
    return row ? revisionFromRow(row) : null;
  }

  async listRevisionsInRange(options: ListRevisionsInRangeOptions): Promise<Page<Revision>> {
    options.abortSignal?.throwIfAborted();
    const limit = clampStoragePageSize(options.limit);
    const after = decodeStorageCursor(options.cursor, isRangeCursor);
    const where = [`"workspaceId" = ?`, `"harnessVersion" > ?`];
    const parameters: SqlValue[] = [options.workspaceId, options.afterHarnessVersion ?? 0];
    if (options.upToHarnessVersion !== undefined) {
      where.push(`"harnessVersion" <= ?`);
      parameters.push(options.upToHarnessVersion);
    }
    if (after) {
      where.push(`("harnessVersion" > ? OR ("harnessVersion" = ? AND "entryKey" > ?))`);
      parameters.push(after[0], after[0], after[1]);
    }
    const rows = await this.sql.all<RevisionRow>(
      `SELECT ${REVISION_COLUMNS} FROM "HarnessRevision" WHERE ${where.join(" AND ")}
       ORDER BY "harnessVersion" ASC, "entryKey" ASC LIMIT ?`,
      [...parameters, limit + 1],
    );
    return pageOf(rows, limit, revisionFromRow, (last) => [last.harnessVersion, last.entryKey]);
  }

  async getHarnessVersion(options: StorageCallOptions & { workspaceId: string }): Promise<number> {
    options.abortSignal?.throwIfAborted();
    return this.readHarnessVersion(this.sql, options.workspaceId);
  }
}

/**
 * A page from `limit + 1` fetched rows: the extra row only tells that a next page exists, whose
 * cursor is the JSON of `cursorOf(last row of this page)`.
 */
function pageOf<Row, Item>(
  rows: Row[],
  limit: number,
  toItem: (row: Row) => Item,
  cursorOf: (last: Row) => unknown,
): Page<Item> {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    items: page.map((row) => toItem(row)),
    nextCursor: rows.length > limit && last ? JSON.stringify(cursorOf(last)) : null,
  };
}

/** The audit log's door for a revision: its `via` (MCP), else what caused it. */
function auditViaOf(revision: Revision): AuditVia {
  if (revision.via?.startsWith("mcp:")) return revision.via as AuditVia;
  switch (revision.cause) {
    case "agent":
      return "chat";
    case "refinement":
      return "job";
    case "import":
      return "import";
    default:
      return "web";
  }
}

/**
 * A batch that changed global entries is one `harness.global_changed` event, written in the
 * batch's transaction (one statement; a batch of only local entries writes none).
 */
async function auditGlobalChanges(
  tx: SqlExecutor,
  workspaceId: string,
  harnessVersion: number,
  revisions: readonly Revision[],
): Promise<void> {
  const global = revisions.filter((revision) => revision.scope === "global");
  const first = global[0];
  if (!first) return;
  await recordAuditEvent(tx, {
    workspaceId,
    actorId: first.actorId || null,
    kind: "harness.global_changed",
    target: global.length === 1 ? { type: "entry", id: first.entryId } : null,
    details: {
      harnessVersion,
      cause: first.cause,
      reason: first.reason.slice(0, 500),
      changes: global.slice(0, 50).map((revision) => ({
        entry: revision.entryId,
        kind: revision.kind,
        action: revision.action,
        title: (revision.after ?? revision.before)?.title ?? null,
      })),
    },
    via: auditViaOf(first),
    at: new Date(first.createdAt),
  });
}

/**
 * Takes the workspace's next harness version (its counter row, created at 1), inside the
 * transaction that writes the revisions carrying it: every change of the harness goes through.
 */
export async function nextHarnessVersion(tx: SqlExecutor, workspaceId: string): Promise<number> {
  const counter = await tx.get<{ version: number }>(
    `INSERT INTO "HarnessCounter" ("workspaceId", "version") VALUES (?, 1)
     ON CONFLICT ("workspaceId") DO UPDATE SET "version" = "HarnessCounter"."version" + 1
     RETURNING "version"`,
    [workspaceId],
  );
  return Number(counter!.version);
}

/**
 * The harness storage for a database, one per database and process (so snapshots remembered
 * per storage, see SnapshotCache, are found again by the next request). Default: the database
 * `target` names, else the process's (`cairn().sql`).
 */
export function harnessStorageFor(
  options: { target?: DatabaseTarget; sql?: Sql } = {},
): SqlHarnessStorage {
  const sql = options.sql ?? (options.target ? sqlFor(options.target) : cairn().sql);
  const cache = (processSlot().harnessStorages ??= new WeakMap()) as WeakMap<
    Sql,
    SqlHarnessStorage
  >;
  let storage = cache.get(sql);
  if (!storage) {
    storage = new SqlHarnessStorage(sql);
    cache.set(sql, storage);
  }
  return storage;
}
