import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll } from "vitest";
import { sqlFor, type Sql } from "@/lib/sql-storage/sql";
import { createDb, type Db } from "./client";
import { closeConnection } from "./connections";
import type { DatabaseTarget } from "./database-url";
import { migrateDatabase } from "./migrate";

/** Which database the database-facing tests run on: `CAIRN_TEST_DB=postgres` or SQLite (default). */
export function testDatabaseProvider(): DatabaseTarget["provider"] {
  return process.env.CAIRN_TEST_DB === "postgres" ? "postgresql" : "sqlite";
}

export interface TestDatabase {
  /** A Prisma client, for fixtures: the code under test runs on `sql`. */
  db: Db;
  /** The process's SQL client of the database (`sqlFor(target)`). */
  readonly sql: Sql;
  target: DatabaseTarget;
  cleanup(): Promise<void>;
}

/**
 * A fresh, migrated database for one test file: a temporary SQLite file, or a new PostgreSQL
 * database on the server at `CAIRN_TEST_POSTGRES_URL` (default: the local server). `cleanup`
 * disconnects and removes it. `root`: migrate with the migrations under another project root (a
 * test of one migration's data move replays the ones before it).
 */
export async function createTestDatabase(options: { root?: string } = {}): Promise<TestDatabase> {
  const { target, remove } =
    testDatabaseProvider() === "sqlite" ? createSqliteFile() : await createPostgresDatabase();
  await migrateDatabase({ target, root: options.root });
  const db = createDb(target);
  return {
    db,
    target,
    get sql() {
      return sqlFor(target);
    },
    async cleanup() {
      await db.$disconnect();
      await closeConnection(target);
      await remove();
    },
  };
}

/** A temporary SQLite file, and how to remove it. */
function createSqliteFile(): { target: DatabaseTarget; remove(): Promise<void> } {
  const directory = mkdtempSync(path.join(tmpdir(), "cairn-test-"));
  const filePath = path.join(directory, "test.db");
  return {
    target: { provider: "sqlite", url: `file:${filePath}`, filePath },
    remove: async () => rmSync(directory, { recursive: true, force: true }),
  };
}

/** A new PostgreSQL database on the server at `CAIRN_TEST_POSTGRES_URL`, and how to drop it. */
async function createPostgresDatabase(): Promise<{
  target: DatabaseTarget;
  remove(): Promise<void>;
}> {
  const { default: pg } = await import("pg");
  const adminUrl =
    process.env.CAIRN_TEST_POSTGRES_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
  const name = `cairn_test_${randomUUID().replaceAll("-", "").slice(0, 16)}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    await client.query(statement);
    await client.end();
  };
  await admin(`CREATE DATABASE "${name}"`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    target: { provider: "postgresql", url: url.toString() },
    remove: () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
  };
}

/**
 * A fixture for the test file or `describe` block this is called in: made by `create` in a
 * `beforeAll`, removed by `cleanup` in an `afterAll` (hooks registered after this call run after
 * it is made, and their `afterAll`s before it is removed). The returned function gives it, from
 * the first `beforeAll` on.
 */
export function registerFixture<T>(
  name: string,
  create: () => Promise<T>,
  cleanup: (fixture: T) => Promise<void>,
): () => T {
  let fixture: { value: T } | undefined;
  beforeAll(async () => {
    fixture = { value: await create() };
  });
  afterAll(async () => {
    if (fixture) await cleanup(fixture.value);
    fixture = undefined;
  });
  return () => {
    if (!fixture) throw new Error(`${name}: it is made in beforeAll`);
    return fixture.value;
  };
}

/** `createTestDatabase` as a `registerFixture`: the handle reads through to the database. */
export function registerTestDatabase(): TestDatabase {
  const current = registerFixture("registerTestDatabase", createTestDatabase, (database) =>
    database.cleanup(),
  );
  return {
    get db() {
      return current().db;
    },
    get target() {
      return current().target;
    },
    get sql() {
      return current().sql;
    },
    cleanup: () => current().cleanup(),
  };
}
