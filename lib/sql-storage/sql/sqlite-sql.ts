import type Database from "better-sqlite3";

import type { DatabaseTarget } from "@/lib/db/database-url";
import { hasSqlObservers, notify } from "./sql-observers";
import type { Sql, SqlExecutor, SqlValue } from "./sql-types";

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

/** The SQL client on a better-sqlite3 connection (statements cached by text). */
export class SqliteSql implements Sql {
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
    if (hasSqlObservers())
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
