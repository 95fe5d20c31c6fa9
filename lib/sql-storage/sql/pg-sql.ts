import { createHash } from "node:crypto";

import type pg from "pg";

import type { DatabaseTarget } from "@/lib/db/database-url";
import { hasSqlObservers, notify } from "./sql-observers";
import { PLANNED_PER_CALL } from "./sql-values";
import type { Sql, SqlExecutor, SqlValue, TransactionOptions } from "./sql-types";

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

/** The SQL client on a `pg` pool (named, server-side prepared statements). */
export class PgSql implements Sql {
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
      // A text marked `plannedPerCall` runs unnamed: planned with each call's values.
      const name =
        this.named < MAX_NAMED_STATEMENTS && !text.startsWith(PLANNED_PER_CALL)
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
    if (hasSqlObservers()) notify("postgres", text, client !== this.pool);
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
      if (hasSqlObservers()) notify("postgres", text, true);
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
