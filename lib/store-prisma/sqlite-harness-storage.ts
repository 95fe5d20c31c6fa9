import Database from "better-sqlite3";
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

/** Options of `SqliteHarnessStorage`: an open connection, or the file to open one on. */
export type SqliteHarnessStorageOptions =
  | {
      /** A migrated Cairn SQLite database (the file Prisma uses). */
      filePath: string;
      /** How long a write waits for another connection's lock. Default 5,000 ms, as Prisma's. */
      busyTimeoutMs?: number;
    }
  | {
      /** A connection the caller owns; `close()` leaves it open. */
      database: Database.Database;
    };

interface EntryRow {
  workspaceId: string;
  entryKey: string;
  id: string;
  kind: string;
  scope: string;
  chatId: string | null;
  title: string;
  content: string;
  path: string;
  metadata: string;
  pinned: number;
  source: string;
  version: number;
  createdAt: string | number;
  updatedAt: string | number;
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
  via?: string | null;
  harnessVersion: number;
  createdAt: string | number;
}

const ENTRY_COLUMNS = `"workspaceId", "entryKey", "id", "kind", "scope", "chatId", "title", "content", "path", "metadata", "pinned", "source", "version", "createdAt", "updatedAt", "createdBy", "updatedBy"`;

/**
 * Date columns in the format Prisma writes to SQLite (ISO 8601 with `+00:00`), so rows written
 * here and rows written through Prisma sort and compare alike and read back the same.
 */
function toStoredDate(iso: string): string {
  return new Date(iso).toISOString().replace(/Z$/, "+00:00");
}

function fromStoredDate(value: string | number): string {
  return new Date(value).toISOString();
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
    pinned: row.pinned !== 0,
    source: row.source as Entry["source"],
    version: row.version,
    createdAt: fromStoredDate(row.createdAt),
    updatedAt: fromStoredDate(row.updatedAt),
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
    createdAt: fromStoredDate(row.createdAt),
  };
}

function isConstraintError(error: unknown): boolean {
  return (
    error instanceof Database.SqliteError &&
    (error.code === "SQLITE_CONSTRAINT_PRIMARYKEY" || error.code === "SQLITE_CONSTRAINT_UNIQUE")
  );
}

/**
 * `HarnessStoragePort` on SQLite through better-sqlite3 prepared statements, on the same
 * database file and schema as `PrismaHarnessStorage` (rows written by either read back the
 * same through the other). It exists for write throughput: a Prisma query costs about a
 * millisecond through the driver adapter, a prepared statement a few microseconds.
 *
 * Every method runs synchronously on the connection (better-sqlite3 is synchronous) and
 * `applyChanges` in one `BEGIN IMMEDIATE` transaction, which takes SQLite's write lock up
 * front, so concurrent writers (this process or Prisma's connection) queue on
 * `busy_timeout` instead of failing a lock upgrade. Policy stays in the core, as for every
 * adapter; this class only maps rows.
 *
 * SQLite only: PostgreSQL deployments use `PrismaHarnessStorage`.
 */
export class SqliteHarnessStorage implements HarnessStoragePort {
  private readonly database: Database.Database;
  private readonly ownsDatabase: boolean;
  private readonly statements = new Map<string, Database.Statement>();
  private readonly applyTransaction: (
    workspaceId: string,
    keys: readonly string[],
    changes: readonly StorageChange[],
    expectedHarnessVersion: number | undefined,
    abortSignal: AbortSignal | undefined,
  ) => { harnessVersion: number; revisions: Revision[] };

  constructor(options: SqliteHarnessStorageOptions) {
    if ("database" in options) {
      this.database = options.database;
      this.ownsDatabase = false;
    } else {
      this.database = new Database(options.filePath);
      this.ownsDatabase = true;
      this.database.pragma(`busy_timeout = ${Math.max(0, options.busyTimeoutMs ?? 5000)}`);
    }
    const transaction = this.database.transaction(
      (
        workspaceId: string,
        keys: readonly string[],
        changes: readonly StorageChange[],
        expectedHarnessVersion: number | undefined,
        abortSignal: AbortSignal | undefined,
      ) => this.applyInTransaction(workspaceId, keys, changes, expectedHarnessVersion, abortSignal),
    );
    this.applyTransaction = (...args) => transaction.immediate(...args);
  }

  /** Closes the connection if this storage opened it. */
  close(): void {
    if (this.ownsDatabase) this.database.close();
  }

  /** Statements are prepared once per SQL text and reused (listEntries builds a few shapes). */
  private statement(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.database.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

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
      const harnessVersion = this.readHarnessVersion(workspaceId);
      if (expectedHarnessVersion !== undefined && expectedHarnessVersion !== harnessVersion) {
        throw harnessVersionConflict(expectedHarnessVersion, harnessVersion);
      }
      return { harnessVersion, revisions: [] };
    }
    const keys = batchEntryKeys(changes);
    try {
      return this.applyTransaction(
        workspaceId,
        keys,
        changes,
        expectedHarnessVersion,
        options.abortSignal,
      );
    } catch (error) {
      if (isConstraintError(error)) {
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

  private applyInTransaction(
    workspaceId: string,
    keys: readonly string[],
    changes: readonly StorageChange[],
    expectedHarnessVersion: number | undefined,
    abortSignal: AbortSignal | undefined,
  ): { harnessVersion: number; revisions: Revision[] } {
    const counter = this.statement(
      `INSERT INTO "HarnessCounter" ("workspaceId", "version") VALUES (?, 1)
       ON CONFLICT ("workspaceId") DO UPDATE SET "version" = "version" + 1
       RETURNING "version"`,
    ).get(workspaceId) as { version: number };
    const harnessVersion = counter.version;
    if (expectedHarnessVersion !== undefined && expectedHarnessVersion !== harnessVersion - 1) {
      throw harnessVersionConflict(expectedHarnessVersion, harnessVersion - 1);
    }
    const revisions: Revision[] = [];
    for (const [index, change] of changes.entries()) {
      abortSignal?.throwIfAborted();
      revisions.push(this.applyOne(workspaceId, keys[index]!, change, harnessVersion));
    }
    return { harnessVersion, revisions };
  }

  /** As in `PrismaHarnessStorage`: the write carries the expectation; no row written = conflict. */
  private applyOne(
    workspaceId: string,
    entryKey: string,
    change: StorageChange,
    harnessVersion: number,
  ): Revision {
    const { revision, expectedVersion } = change;
    const after = revision.after;
    let written: number;
    if (after) {
      const values = [
        after.id,
        after.kind,
        after.scope,
        after.chatId,
        after.title,
        after.content,
        after.path,
        JSON.stringify(after.metadata),
        after.pinned ? 1 : 0,
        after.source,
        after.version,
        toStoredDate(after.createdAt),
        toStoredDate(after.updatedAt),
        after.createdBy,
        after.updatedBy,
        `${after.title}\n${after.content}`.toLowerCase(),
      ];
      written =
        expectedVersion === null
          ? this.statement(
              `INSERT INTO "HarnessEntry" ("workspaceId", "entryKey", "id", "kind", "scope", "chatId", "title", "content", "path", "metadata", "pinned", "source", "version", "createdAt", "updatedAt", "createdBy", "updatedBy", "searchText")
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
               ON CONFLICT ("workspaceId", "entryKey") DO NOTHING`,
            ).run(workspaceId, entryKey, ...values).changes
          : this.statement(
              `UPDATE "HarnessEntry" SET "id" = ?, "kind" = ?, "scope" = ?, "chatId" = ?, "title" = ?, "content" = ?, "path" = ?, "metadata" = ?, "pinned" = ?, "source" = ?, "version" = ?, "createdAt" = ?, "updatedAt" = ?, "createdBy" = ?, "updatedBy" = ?, "searchText" = ?
               WHERE "workspaceId" = ? AND "entryKey" = ? AND "version" = ?`,
            ).run(...values, workspaceId, entryKey, expectedVersion).changes;
    } else if (expectedVersion === null) {
      written = this.readEntryVersion(workspaceId, entryKey) === null ? 1 : 0;
    } else {
      written = this.statement(
        `DELETE FROM "HarnessEntry" WHERE "workspaceId" = ? AND "entryKey" = ? AND "version" = ?`,
      ).run(workspaceId, entryKey, expectedVersion).changes;
    }
    if (written !== 1) {
      throw entryVersionConflict(
        entryKey,
        expectedVersion,
        this.readEntryVersion(workspaceId, entryKey),
      );
    }
    const before = revision.before === null ? null : JSON.stringify(revision.before);
    const afterJson = after === null ? null : JSON.stringify(after);
    const createdAt = toStoredDate(revision.createdAt);
    this.statement(
      `INSERT INTO "HarnessRevision" ("id", "workspaceId", "entryKey", "entryId", "kind", "scope", "chatId", "action", "before", "after", "actorId", "reason", "cause", "via", "harnessVersion", "createdAt")
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
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

  private readEntryVersion(workspaceId: string, entryKey: string): number | null {
    const row = this.statement(
      `SELECT "version" FROM "HarnessEntry" WHERE "workspaceId" = ? AND "entryKey" = ?`,
    ).get(workspaceId, entryKey) as { version: number } | undefined;
    return row ? row.version : null;
  }

  private readHarnessVersion(workspaceId: string): number {
    const row = this.statement(
      `SELECT "version" FROM "HarnessCounter" WHERE "workspaceId" = ?`,
    ).get(workspaceId) as { version: number } | undefined;
    return row?.version ?? 0;
  }

  private readEntry(workspaceId: string, entryKey: string): Entry | null {
    const row = this.statement(
      `SELECT ${ENTRY_COLUMNS} FROM "HarnessEntry" WHERE "workspaceId" = ? AND "entryKey" = ?`,
    ).get(workspaceId, entryKey) as EntryRow | undefined;
    return row ? entryFromRow(row) : null;
  }

  async getEntry(
    options: StorageCallOptions & { workspaceId: string; ref: EntryRef },
  ): Promise<Entry | null> {
    options.abortSignal?.throwIfAborted();
    return this.readEntry(options.workspaceId, entryKeyOf(options.ref));
  }

  async getEntryAndLastRevision(
    options: StorageCallOptions & { workspaceId: string; ref: EntryRef },
  ): Promise<{ entry: Entry | null; lastRevision: Revision | null }> {
    options.abortSignal?.throwIfAborted();
    const entryKey = entryKeyOf(options.ref);
    // Two statements, one read transaction: both parts come from the same snapshot.
    return this.database.transaction(() => {
      const last = this.statement(
        `SELECT * FROM "HarnessRevision" WHERE "workspaceId" = ? AND "entryKey" = ?
         ORDER BY "harnessVersion" DESC LIMIT 1`,
      ).get(options.workspaceId, entryKey) as RevisionRow | undefined;
      return {
        entry: this.readEntry(options.workspaceId, entryKey),
        lastRevision: last ? revisionFromRow(last) : null,
      };
    })();
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
    const filter = options.filter ?? {};
    const where: string[] = [`"workspaceId" = ?`];
    const parameters: unknown[] = [options.workspaceId];
    if (filter.kind !== undefined) {
      const kinds: readonly string[] =
        typeof filter.kind === "string" ? [filter.kind] : filter.kind;
      where.push(kinds.length ? `"kind" IN (${kinds.map(() => "?").join(", ")})` : "0");
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
      // instr, not LIKE: a prefix with % or _ matches literally.
      where.push(`("path" = ? OR instr("path", ?) = 1)`);
      parameters.push(filter.pathPrefix, `${filter.pathPrefix}/`);
    }
    if (filter.text) {
      where.push(`instr("searchText", ?) > 0`);
      parameters.push(filter.text.toLowerCase());
    }
    if (filter.pinned !== undefined) {
      where.push(`"pinned" = ?`);
      parameters.push(filter.pinned ? 1 : 0);
    }
    if (after) {
      const updatedAt = toStoredDate(after[0]);
      where.push(`("updatedAt" < ? OR ("updatedAt" = ? AND "entryKey" > ?))`);
      parameters.push(updatedAt, updatedAt, after[1]);
    }
    const rows = this.statement(
      `SELECT ${ENTRY_COLUMNS} FROM "HarnessEntry" WHERE ${where.join(" AND ")}
       ORDER BY "updatedAt" DESC, "entryKey" ASC LIMIT ?`,
    ).all(...parameters, limit + 1) as EntryRow[];
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      items: page.map(entryFromRow),
      nextCursor:
        rows.length > limit && last
          ? JSON.stringify([fromStoredDate(last.updatedAt), last.entryKey])
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
    const rows = this.statement(
      `SELECT * FROM "HarnessRevision" WHERE "workspaceId" = ? AND "entryKey" = ?
       ${after === null ? "" : descending ? `AND "harnessVersion" < ?` : `AND "harnessVersion" > ?`}
       ORDER BY "harnessVersion" ${descending ? "DESC" : "ASC"} LIMIT ?`,
    ).all(
      ...[options.workspaceId, options.entryKey, ...(after === null ? [] : [after]), limit + 1],
    ) as RevisionRow[];
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
    const row = this.statement(
      `SELECT * FROM "HarnessRevision" WHERE "id" = ? AND "workspaceId" = ?`,
    ).get(options.revisionId, options.workspaceId) as RevisionRow | undefined;
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
    const where = [`"workspaceId" = ?`, `"harnessVersion" > ?`];
    const parameters: unknown[] = [options.workspaceId, options.afterHarnessVersion ?? 0];
    if (options.upToHarnessVersion !== undefined) {
      where.push(`"harnessVersion" <= ?`);
      parameters.push(options.upToHarnessVersion);
    }
    if (after) {
      where.push(`("harnessVersion" > ? OR ("harnessVersion" = ? AND "entryKey" > ?))`);
      parameters.push(after[0], after[0], after[1]);
    }
    const rows = this.statement(
      `SELECT * FROM "HarnessRevision" WHERE ${where.join(" AND ")}
       ORDER BY "harnessVersion" ASC, "entryKey" ASC LIMIT ?`,
    ).all(...parameters, limit + 1) as RevisionRow[];
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
    return this.readHarnessVersion(options.workspaceId);
  }
}
