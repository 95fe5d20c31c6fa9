/** Fresh, migrated databases for the storage benches: a temporary SQLite file or a new PostgreSQL database. */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

import type BetterSqlite3 from "better-sqlite3";
import pg from "pg";

import { migrateDatabase, type DatabaseTarget } from "@/lib/db";
import { closeSql } from "@/lib/sql-storage/sql";

/** The PostgreSQL server the benches create their databases on (`BENCH_PG_URL`). */
export const BENCH_PG_URL =
  process.env.BENCH_PG_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";

export type BenchDatabase = { target: DatabaseTarget; drop(): Promise<void> };

export async function freshDatabase(provider: DatabaseTarget["provider"]): Promise<BenchDatabase> {
  if (provider === "sqlite") {
    const directory = mkdtempSync(path.join(tmpdir(), "cairn-bench-"));
    const filePath = path.join(directory, "bench.db");
    const target: DatabaseTarget = { provider: "sqlite", url: `file:${filePath}`, filePath };
    await migrateDatabase({ target });
    return {
      target,
      async drop() {
        await closeSql(target);
        rmSync(directory, { recursive: true, force: true });
      },
    };
  }
  const name = `storage_bench_${randomUUID().replaceAll("-", "").slice(0, 12)}`;
  const admin = new pg.Client({ connectionString: BENCH_PG_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(BENCH_PG_URL);
  url.pathname = `/${name}`;
  const target: DatabaseTarget = { provider: "postgresql", url: url.toString() };
  await migrateDatabase({ target });
  return {
    target,
    async drop() {
      await closeSql(target);
      const dropper = new pg.Client({ connectionString: BENCH_PG_URL });
      await dropper.connect();
      await dropper.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await dropper.end();
    },
  };
}

/**
 * A raw floor's statements on either database: better-sqlite3 prepared statements, or one `pg`
 * connection with named (server-side prepared) statements. `?` placeholders.
 */
export interface RawDriver {
  all(text: string, params: unknown[]): Promise<Record<string, unknown>[]>;
  run(text: string, params: unknown[]): Promise<void>;
  transaction(fn: () => Promise<void>): Promise<void>;
  close(): Promise<void>;
}

export async function rawDriver(target: DatabaseTarget): Promise<RawDriver> {
  if (target.provider === "sqlite") {
    const { default: Database } = await import("better-sqlite3");
    const db = new Database(target.filePath);
    db.pragma("busy_timeout = 5000");
    const statements = new Map<string, BetterSqlite3.Statement>();
    const prepared = (text: string) => {
      let statement = statements.get(text);
      if (!statement) statements.set(text, (statement = db.prepare(text)));
      return statement;
    };
    return {
      all: async (text, params) => prepared(text).all(...params) as Record<string, unknown>[],
      run: async (text, params) => void prepared(text).run(...params),
      // The floor's body runs synchronously inside (its awaits resolve at once).
      transaction: async (fn) => {
        db.exec("BEGIN IMMEDIATE");
        try {
          await fn();
          db.exec("COMMIT");
        } catch (error) {
          db.exec("ROLLBACK");
          throw error;
        }
      },
      close: async () => void db.close(),
    };
  }
  const client = new pg.Client({ connectionString: target.url });
  await client.connect();
  const names = new Map<string, { name: string; text: string }>();
  const named = (text: string) => {
    let entry = names.get(text);
    if (!entry) {
      let index = 0;
      entry = { name: `f${names.size}`, text: text.replace(/\?/g, () => `$${++index}`) };
      names.set(text, entry);
    }
    return entry;
  };
  return {
    all: async (text, params) => (await client.query({ ...named(text), values: params })).rows,
    run: async (text, params) => void (await client.query({ ...named(text), values: params })),
    transaction: async (fn) => {
      await client.query("BEGIN");
      try {
        await fn();
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK");
        throw error;
      }
    },
    close: () => client.end(),
  };
}
