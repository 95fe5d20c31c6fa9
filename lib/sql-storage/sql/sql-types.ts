import type { DatabaseTarget } from "@/lib/db/database-url";

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
