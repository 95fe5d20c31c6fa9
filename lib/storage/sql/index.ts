/**
 * The SQL layer under Cairn's hot paths: one small client, two drivers (better-sqlite3 and
 * `pg`), the same SQL text on both. Prisma keeps the schema, migrations and generated types;
 * queries that run on every turn go through here (see docs/decisions/0017).
 *
 * Usage:
 *
 * ```ts
 * import { getSql, sqlFor, toDate, toBool } from "@/lib/storage/sql";
 *
 * const sql = getSql(); // DATABASE_URL's database; sqlFor(target | url) for another
 * const row = await sql.get<{ version: number }>(
 *   `SELECT "version" FROM "PersistentDirState" WHERE "dirKey" = ?`, [dirKey]);
 * const { changes } = await sql.run(`DELETE FROM "Turn" WHERE "id" = ?`, [id]);
 * await sql.transaction(async (tx) => {
 *   await tx.run(`UPDATE … WHERE "version" = ?`, [next, expected]);
 *   return tx.all<Row>(`INSERT … RETURNING "id"`, [...]);
 * });
 * ```
 *
 * Rules, so one text runs on both databases:
 * - `?` placeholders (rewritten to `$1…` on PostgreSQL; never write `?` inside a literal),
 *   double-quoted identifiers, `ON CONFLICT … DO …` and `RETURNING` (both have them).
 * - Values bind as: `Date` → the format Prisma writes (SQLite: ISO 8601 text with `+00:00`;
 *   PostgreSQL: `timestamp(3)` in UTC), `boolean` → 1/0 on SQLite, `Uint8Array` → BLOB/bytea,
 *   `bigint`/`number` as they are, `undefined` → NULL.
 * - Rows come back as the driver gives them: read DateTime columns with `toDate`, Boolean with
 *   `toBool` (SQLite has 0/1), Bytes with `toBytes`; integers are numbers on both (int8 too).
 * - `transaction(fn)` is one write transaction: `BEGIN IMMEDIATE` on SQLite (the write lock up
 *   front, so writers queue on the busy timeout instead of failing an upgrade), `BEGIN` (READ
 *   COMMITTED) on PostgreSQL, or `{ isolation: "serializable" }`. Inside `fn` use only `tx`.
 *   On SQLite the connection is shared by the process, so other callers wait until it ends.
 * - `isUniqueViolation(error)` recognises a primary-key / unique conflict on either driver.
 *
 * - `observeSql(listener)` tells a listener about every statement (BEGIN and COMMIT included);
 *   tests count a chat turn's statements with it. Without a listener it costs one check.
 *
 * One connection per database and process (`lib/db/connections.ts`), shared by every adapter
 * and, on PostgreSQL, by the Prisma client: statements are prepared once per connection
 * (better-sqlite3 statements cached by text; named statements on PostgreSQL).
 */
import { createHash } from "node:crypto";

import type Database from "better-sqlite3";
import type pg from "pg";

import { cairn } from "@/lib/cairn";
import { processSlot } from "@/lib/cairn/process-slot";
import { databaseTargetOf, type Db } from "@/lib/db/client";
import { resolveDatabaseTarget, type DatabaseTarget } from "@/lib/db/database-url";
import { closeConnection, pgPool, sqliteConnection } from "@/lib/db/connections";

/** What a statement binds. */
export type SqlValue = string | number | bigint | boolean | Date | Uint8Array | null | undefined;

export type SqlDialect = "sqlite" | "postgres";

/** Runs statements: the client itself, or a transaction. */
export interface SqlExecutor {
  readonly dialect: SqlDialect;
  /** Every row. */
  all<T = Record<string, unknown>>(text: string, params?: readonly SqlValue[]): Promise<T[]>;
  /** The first row, or `undefined`. */
  get<T = Record<string, unknown>>(
    text: string,
    params?: readonly SqlValue[],
  ): Promise<T | undefined>;
  /** A statement without result rows; how many rows it changed. */
  run(text: string, params?: readonly SqlValue[]): Promise<{ changes: number }>;
}

export interface TransactionOptions {
  /** PostgreSQL only (SQLite transactions are serializable anyway). Default READ COMMITTED. */
  isolation?: "read committed" | "serializable";
}

/** A database's client. */
export interface Sql extends SqlExecutor {
  /** The database it runs on. */
  readonly target: DatabaseTarget;
  /** `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>, options?: TransactionOptions): Promise<T>;
}

// ---------------------------------------------------------------------------------------
// Observers

/** One statement as an observer sees it: before it runs. */
export interface SqlStatementEvent {
  dialect: SqlDialect;
  /** The SQL text as written (`?` placeholders), or `BEGIN …` / `COMMIT` / `ROLLBACK`. */
  text: string;
  /** Whether it runs inside a `transaction(fn)` (its BEGIN and COMMIT included). */
  inTransaction: boolean;
}

const observers = (processSlot().sqlObservers ??= []) as Array<(event: SqlStatementEvent) => void>;

/**
 * Calls `listener` before every statement any SQL client of this process runs, until the
 * returned function is called. For tests and diagnostics (counting a turn's statements); a
 * listener must not throw or run statements itself.
 */
export function observeSql(listener: (event: SqlStatementEvent) => void): () => void {
  observers.push(listener);
  return () => {
    const index = observers.indexOf(listener);
    if (index !== -1) observers.splice(index, 1);
  };
}

function notify(dialect: SqlDialect, text: string, inTransaction: boolean): void {
  for (const listener of observers) listener({ dialect, text, inTransaction });
}

// ---------------------------------------------------------------------------------------
// Values

/** A DateTime column's value (SQLite: ISO text or epoch ms; PostgreSQL: a Date) as a Date. */
export function toDate(value: unknown): Date {
  if (value instanceof Date) return value;
  if (typeof value === "number" || typeof value === "bigint") return new Date(Number(value));
  return new Date(String(value));
}

/** A nullable DateTime column as a Date or `null`. */
export function toDateOrNull(value: unknown): Date | null {
  return value === null || value === undefined ? null : toDate(value);
}

/** A Boolean column (SQLite: 0/1; PostgreSQL: boolean). */
export function toBool(value: unknown): boolean {
  return value === true || value === 1 || value === 1n || value === "1" || value === "t";
}

/** A Bytes column as a Buffer (both drivers give one; kept for symmetry with the others). */
export function toBytes(value: unknown): Buffer {
  return Buffer.isBuffer(value) ? value : Buffer.from(value as Uint8Array);
}

/** Whether an error is a primary-key or unique-constraint violation, on either driver. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (
    code === "SQLITE_CONSTRAINT_PRIMARYKEY" ||
    code === "SQLITE_CONSTRAINT_UNIQUE" ||
    code === "23505" ||
    code === "P2002"
  );
}

/** `?, ?, ?` for `count` values (e.g. `IN (…)`); at least one (an empty list matches nothing). */
export function placeholders(count: number): string {
  return count === 0 ? "NULL" : Array.from({ length: count }, () => "?").join(", ");
}

// ---------------------------------------------------------------------------------------
// SQLite

function sqliteValue(value: SqlValue): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value === "boolean") return value ? 1 : 0;
  if (value instanceof Date) return value.toISOString().replace(/Z$/, "+00:00");
  if (value instanceof Uint8Array && !Buffer.isBuffer(value)) {
    return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  }
  return value;
}

const MAX_CACHED_STATEMENTS = 500;

class SqliteSql implements Sql {
  readonly dialect = "sqlite" as const;
  private readonly statements = new Map<string, Database.Statement>();
  /** The running transaction's end; callers outside it wait for it. */
  private busy: Promise<void> | null = null;
  private readonly executor: SqlExecutor;

  constructor(
    readonly target: DatabaseTarget,
    private readonly database: Database.Database,
  ) {
    this.executor = {
      dialect: "sqlite",
      all: async (text, params) => this.allNow(text, params),
      get: async (text, params) => this.getNow(text, params),
      run: async (text, params) => this.runNow(text, params),
    };
  }

  isOpen(): boolean {
    return this.database.open;
  }

  private statement(text: string): Database.Statement {
    if (observers.length)
      notify("sqlite", text, this.database.inTransaction || text === "BEGIN IMMEDIATE");
    let statement = this.statements.get(text);
    if (!statement) {
      if (this.statements.size >= MAX_CACHED_STATEMENTS) this.statements.clear();
      statement = this.database.prepare(text);
      this.statements.set(text, statement);
    }
    return statement;
  }

  private allNow<T>(text: string, params: readonly SqlValue[] = []): T[] {
    return this.statement(text).all(...params.map(sqliteValue)) as T[];
  }

  private getNow<T>(text: string, params: readonly SqlValue[] = []): T | undefined {
    return this.statement(text).get(...params.map(sqliteValue)) as T | undefined;
  }

  private runNow(text: string, params: readonly SqlValue[] = []): { changes: number } {
    return { changes: this.statement(text).run(...params.map(sqliteValue)).changes };
  }

  async all<T>(text: string, params?: readonly SqlValue[]): Promise<T[]> {
    while (this.busy) await this.busy;
    return this.allNow<T>(text, params);
  }

  async get<T>(text: string, params?: readonly SqlValue[]): Promise<T | undefined> {
    while (this.busy) await this.busy;
    return this.getNow<T>(text, params);
  }

  async run(text: string, params?: readonly SqlValue[]): Promise<{ changes: number }> {
    while (this.busy) await this.busy;
    return this.runNow(text, params);
  }

  async transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    while (this.busy) await this.busy;
    let release!: () => void;
    this.busy = new Promise((resolve) => (release = resolve));
    try {
      this.runNow("BEGIN IMMEDIATE");
      let result: T;
      try {
        result = await fn(this.executor);
      } catch (error) {
        if (this.database.inTransaction) this.runNow("ROLLBACK");
        throw error;
      }
      this.runNow("COMMIT");
      return result;
    } finally {
      this.busy = null;
      release();
    }
  }
}

// ---------------------------------------------------------------------------------------
// PostgreSQL

function pgValue(value: SqlValue): unknown {
  if (value === undefined) return null;
  // timestamp(3) without time zone holds UTC; an offset in the input is ignored.
  if (value instanceof Date) return value.toISOString();
  if (typeof value === "bigint") return value.toString();
  if (value instanceof Uint8Array && !Buffer.isBuffer(value)) {
    return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  }
  return value;
}

/** `?` → `$n`, and a statement name per text (prepared once per connection). */
interface PgText {
  text: string;
  name: string | undefined;
}

/** Named (server-side prepared) statements per pool; texts past this many run unnamed. */
const MAX_NAMED_STATEMENTS = 500;

class PgSql implements Sql {
  readonly dialect = "postgres" as const;
  private readonly texts = new Map<string, PgText>();
  private named = 0;

  constructor(
    readonly target: DatabaseTarget,
    private readonly pool: pg.Pool,
  ) {}

  isOpen(): boolean {
    return !this.pool.ended;
  }

  private textOf(text: string): PgText {
    let converted = this.texts.get(text);
    if (!converted) {
      let index = 0;
      const rewritten = text.replace(/\?/g, () => `$${++index}`);
      const name =
        this.named < MAX_NAMED_STATEMENTS
          ? `c${createHash("sha1").update(rewritten).digest("hex").slice(0, 20)}`
          : undefined;
      if (name) this.named += 1;
      converted = { text: rewritten, name };
      if (this.texts.size < MAX_NAMED_STATEMENTS * 4) this.texts.set(text, converted);
    }
    return converted;
  }

  private query(
    client: pg.Pool | pg.PoolClient,
    text: string,
    params: readonly SqlValue[] = [],
  ): Promise<pg.QueryResult> {
    if (observers.length) notify("postgres", text, client !== this.pool);
    const { text: converted, name } = this.textOf(text);
    return client.query({ text: converted, name, values: params.map(pgValue) });
  }

  private executorOf(client: pg.Pool | pg.PoolClient): SqlExecutor {
    return {
      dialect: "postgres",
      all: async <T>(text: string, params?: readonly SqlValue[]) =>
        (await this.query(client, text, params)).rows as T[],
      get: async <T>(text: string, params?: readonly SqlValue[]) =>
        (await this.query(client, text, params)).rows[0] as T | undefined,
      run: async (text: string, params?: readonly SqlValue[]) => ({
        changes: (await this.query(client, text, params)).rowCount ?? 0,
      }),
    };
  }

  async all<T>(text: string, params?: readonly SqlValue[]): Promise<T[]> {
    return (await this.query(this.pool, text, params)).rows as T[];
  }

  async get<T>(text: string, params?: readonly SqlValue[]): Promise<T | undefined> {
    return (await this.query(this.pool, text, params)).rows[0] as T | undefined;
  }

  async run(text: string, params?: readonly SqlValue[]): Promise<{ changes: number }> {
    return { changes: (await this.query(this.pool, text, params)).rowCount ?? 0 };
  }

  async transaction<T>(
    fn: (tx: SqlExecutor) => Promise<T>,
    options: TransactionOptions = {},
  ): Promise<T> {
    const client = await this.pool.connect();
    // A connection whose BEGIN, COMMIT or ROLLBACK failed is not handed out again.
    let broken: Error | undefined;
    const control = async (text: string) => {
      if (observers.length) notify("postgres", text, true);
      try {
        await client.query(text);
      } catch (error) {
        broken = error instanceof Error ? error : new Error(String(error));
        throw error;
      }
    };
    try {
      await control(
        options.isolation === "serializable" ? "BEGIN ISOLATION LEVEL SERIALIZABLE" : "BEGIN",
      );
      let result: T;
      try {
        result = await fn(this.executorOf(client));
      } catch (error) {
        await control("ROLLBACK").catch(() => {});
        throw error;
      }
      await control("COMMIT");
      return result;
    } finally {
      client.release(broken);
    }
  }
}

// ---------------------------------------------------------------------------------------
// Entry points

function keyOf(target: DatabaseTarget): string {
  return target.provider === "sqlite" ? `sqlite:${target.filePath}` : target.url;
}

/** The client for a database (a target or a `DATABASE_URL`-style URL), one per process. */
export function sqlFor(database: DatabaseTarget | string): Sql {
  const target = typeof database === "string" ? resolveDatabaseTarget(database) : database;
  const cache = (processSlot().sqlClients ??= new Map()) as Map<string, SqliteSql | PgSql>;
  const key = keyOf(target);
  let sql = cache.get(key);
  if (sql && !sql.isOpen()) sql = undefined;
  if (!sql) {
    sql =
      target.provider === "sqlite"
        ? new SqliteSql(target, sqliteConnection(target.filePath))
        : new PgSql(target, pgPool(target.url));
    cache.set(key, sql);
  }
  return sql;
}

/** The client for the database a Prisma client (`createDb` / `getDb`) is connected to. */
export function sqlForDb(db: Db): Sql {
  return sqlFor(databaseTargetOf(db));
}

/** The process's SQL client (`cairn().sql`, on the database `getDb()` uses). */
export function getSql(): Sql {
  return cairn().sql;
}

/** Closes a database's connection and forgets its client (tests, before dropping a database). */
export async function closeSql(target: DatabaseTarget): Promise<void> {
  processSlot().sqlClients?.delete(keyOf(target));
  await closeConnection(target);
}
