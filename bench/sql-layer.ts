// The SQL layer's own cost (decision 0017): the same two operations through the raw driver,
// Cairn's client (lib/sql-storage/sql) and Kysely 0.28 (SqliteDialect / PostgresDialect), on SQLite
// and on PostgreSQL, in one run:
// - read: a point select by primary key (`PersistentDirState` by `dirKey`), what every dir load does;
// - write: a transaction of a counter upsert … RETURNING and one insert (a harness write's shape).
// Reports p50 / p95 wall time and CPU p50 per operation.
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

import Database from "better-sqlite3";
import { Kysely, PostgresDialect, SqliteDialect, sql as ksql } from "kysely";
import pg from "pg";

import { migrateDatabase, type DatabaseTarget } from "@/lib/db";
import { closeSql, sqlFor } from "@/lib/sql-storage/sql";
import { loadLine, table, timeIt } from "./stats";

const ms = (value: number) => `${value.toFixed(3)} ms`;

const ITERATIONS = Number(process.env.BENCH_SQL_ITERATIONS ?? 2000);
const PG_ADMIN = process.env.BENCH_PG_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- untyped tables for the bench
type AnyDb = any;

interface Contender {
  name: string;
  read(key: string): Promise<unknown>;
  write(key: string, id: string): Promise<unknown>;
}

async function sqliteContenders(filePath: string): Promise<Contender[]> {
  const raw = new Database(filePath);
  raw.pragma("busy_timeout = 5000");
  const select = raw.prepare(`SELECT "version" FROM "PersistentDirState" WHERE "dirKey" = ?`);
  const upsert = raw.prepare(
    `INSERT INTO "PersistentDirState" ("dirKey", "version", "updatedAt") VALUES (?, 1, ?)
     ON CONFLICT ("dirKey") DO UPDATE SET "version" = "PersistentDirState"."version" + 1
     RETURNING "version"`,
  );
  const insert = raw.prepare(
    `INSERT INTO "DirCommit" ("id", "dirKey", "version", "source", "created", "updated", "deleted", "createdAt")
     VALUES (?, ?, ?, 'turn', '[]', '[]', '[]', ?)`,
  );
  const rawWrite = raw.transaction((key: string, id: string) => {
    const now = new Date().toISOString().replace(/Z$/, "+00:00");
    const { version } = upsert.get(key, now) as { version: number };
    insert.run(id, key, version, now);
  });
  const cairn = sqlFor({ provider: "sqlite", url: `file:${filePath}`, filePath });
  const kysely = new Kysely<AnyDb>({ dialect: new SqliteDialect({ database: raw }) });
  return [
    {
      name: "raw better-sqlite3",
      read: async (key) => select.get(key),
      write: async (key, id) => rawWrite.immediate(key, id),
    },
    ...shared(cairn, kysely),
  ];
}

async function pgContenders(
  url: string,
): Promise<{ contenders: Contender[]; end(): Promise<void> }> {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  const cairn = sqlFor(url);
  const kysely = new Kysely<AnyDb>({ dialect: new PostgresDialect({ pool }) });
  return {
    contenders: [
      {
        name: "raw pg (named statements)",
        read: (key) =>
          pool.query({
            name: "read",
            text: `SELECT "version" FROM "PersistentDirState" WHERE "dirKey" = $1`,
            values: [key],
          }),
        write: async (key, id) => {
          const client = await pool.connect();
          try {
            await client.query("BEGIN");
            const now = new Date().toISOString();
            const { rows } = await client.query({
              name: "upsert",
              text: `INSERT INTO "PersistentDirState" ("dirKey", "version", "updatedAt") VALUES ($1, 1, $2)
                ON CONFLICT ("dirKey") DO UPDATE SET "version" = "PersistentDirState"."version" + 1
                RETURNING "version"`,
              values: [key, now],
            });
            await client.query({
              name: "insert",
              text: `INSERT INTO "DirCommit" ("id", "dirKey", "version", "source", "created", "updated", "deleted", "createdAt")
                VALUES ($1, $2, $3, 'turn', '[]', '[]', '[]', $4)`,
              values: [id, key, (rows[0] as { version: number }).version, now],
            });
            await client.query("COMMIT");
          } catch (error) {
            await client.query("ROLLBACK");
            throw error;
          } finally {
            client.release();
          }
        },
      },
      ...shared(cairn, kysely),
    ],
    async end() {
      await kysely.destroy();
    },
  };
}

function shared(cairn: ReturnType<typeof sqlFor>, kysely: Kysely<AnyDb>): Contender[] {
  return [
    {
      name: "Cairn client (lib/sql-storage/sql)",
      read: (key) =>
        cairn.get(`SELECT "version" FROM "PersistentDirState" WHERE "dirKey" = ?`, [key]),
      write: (key, id) =>
        cairn.transaction(async (tx) => {
          const now = new Date();
          const row = await tx.get<{ version: number }>(
            `INSERT INTO "PersistentDirState" ("dirKey", "version", "updatedAt") VALUES (?, 1, ?)
             ON CONFLICT ("dirKey") DO UPDATE SET "version" = "PersistentDirState"."version" + 1
             RETURNING "version"`,
            [key, now],
          );
          await tx.run(
            `INSERT INTO "DirCommit" ("id", "dirKey", "version", "source", "created", "updated", "deleted", "createdAt")
             VALUES (?, ?, ?, 'turn', '[]', '[]', '[]', ?)`,
            [id, key, row!.version, now],
          );
        }),
    },
    {
      name: "Kysely 0.28 query builder",
      read: (key) =>
        kysely
          .selectFrom("PersistentDirState")
          .select("version")
          .where("dirKey", "=", key)
          .executeTakeFirst(),
      write: (key, id) =>
        kysely.transaction().execute(async (trx) => {
          const now = new Date().toISOString();
          const row = await trx
            .insertInto("PersistentDirState")
            .values({ dirKey: key, version: 1, updatedAt: now })
            .onConflict((oc: AnyDb) =>
              oc
                .column("dirKey")
                .doUpdateSet({ version: ksql`"PersistentDirState"."version" + 1` }),
            )
            .returning("version")
            .executeTakeFirstOrThrow();
          await trx
            .insertInto("DirCommit")
            .values({
              id,
              dirKey: key,
              version: (row as { version: number }).version,
              source: "turn",
              created: "[]",
              updated: "[]",
              deleted: "[]",
              createdAt: now,
            })
            .execute();
        }),
    },
  ];
}

type Row = Record<string, string>;

async function measure(database: string, contenders: Contender[]): Promise<Row[]> {
  const rows: Row[] = [];
  for (const contender of contenders) {
    const key = `bench:${randomUUID()}`;
    await contender.write(key, randomUUID());
    const read = await timeIt(() => contender.read(key), {
      iterations: ITERATIONS,
      warmup: 200,
    });
    const write = await timeIt(() => contender.write(key, randomUUID()), {
      iterations: Math.ceil(ITERATIONS / 4),
      warmup: 50,
    });
    rows.push({
      database,
      client: contender.name,
      "read p50 / p95": `${ms(read.p50)} / ${ms(read.p95)}`,
      "read cpu p50": ms(read.cpu.p50),
      "write p50 / p95": `${ms(write.p50)} / ${ms(write.p95)}`,
      "write cpu p50": ms(write.cpu.p50),
    });
  }
  return rows;
}

export async function benchSqlLayer(): Promise<string> {
  const rows: Row[] = [];
  const directory = mkdtempSync(path.join(tmpdir(), "cairn-bench-sql-"));
  const filePath = path.join(directory, "bench.db");
  const sqliteTarget: DatabaseTarget = { provider: "sqlite", url: `file:${filePath}`, filePath };
  await migrateDatabase({ target: sqliteTarget });
  try {
    rows.push(...(await measure("SQLite", await sqliteContenders(filePath))));
  } finally {
    await closeSql(sqliteTarget);
    rmSync(directory, { recursive: true, force: true });
  }

  const name = `storage_bench_${randomUUID().replaceAll("-", "").slice(0, 12)}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  const url = new URL(PG_ADMIN);
  url.pathname = `/${name}`;
  const pgTarget: DatabaseTarget = { provider: "postgresql", url: url.toString() };
  try {
    await migrateDatabase({ target: pgTarget });
    const { contenders, end } = await pgContenders(pgTarget.url);
    try {
      rows.push(...(await measure("PostgreSQL", contenders)));
    } finally {
      await end();
    }
  } finally {
    await closeSql(pgTarget);
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  }
  return [
    `SQL layer: point read and a two-statement write transaction (${ITERATIONS} reads, ${Math.ceil(ITERATIONS / 4)} writes each)`,
    loadLine(),
    table(rows),
  ].join("\n");
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchSqlLayer());
}
