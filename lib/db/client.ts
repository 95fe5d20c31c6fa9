import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient as PostgresClient } from "./generated/postgres/client";
import { PrismaClient as SqliteClient } from "./generated/sqlite/client";
import { cairn } from "@/lib/cairn";
import { processSlot } from "@/lib/cairn/process-slot";
import { pgPool } from "./connections";
import { resolveDatabaseTarget, type DatabaseTarget } from "./database-url";

/** Password hashes never leave the data layer unless a query asks for them by name. */
const omit = { user: { passwordHash: true } } as const;

function createSqliteClient(filePath: string) {
  return new SqliteClient({
    adapter: new PrismaBetterSQLite3({ url: `file:${filePath}`, timeout: 5000 }),
    omit,
  });
}

/**
 * The one database client type. Both generated clients come from the same models (the
 * PostgreSQL schema is generated from the SQLite one), so the SQLite client's type describes
 * both; code above lib/db never learns which database it runs on.
 */
export type Db = ReturnType<typeof createSqliteClient>;

// On the process's slot: Next bundles this module into several chunks, each with its own copy;
// the process's client may have been made by another copy.
const targets = (processSlot().dbTargets ??= new WeakMap()) as WeakMap<Db, DatabaseTarget>;

/**
 * Open a client for a target. Callers own it and must `$disconnect()` it. On PostgreSQL it runs
 * on the process's pool for the URL (`pgPool`), the one the SQL layer uses too.
 */
export function createDb(target: DatabaseTarget = resolveDatabaseTarget()): Db {
  const client =
    target.provider === "sqlite"
      ? createSqliteClient(target.filePath)
      : (new PostgresClient({ adapter: new PrismaPg(pgPool(target.url)), omit }) as unknown as Db);
  targets.set(client, target);
  return client;
}

/** The database a client made by `createDb` / `getDb` is connected to. */
export function databaseTargetOf(db: Db): DatabaseTarget {
  const target = targets.get(db);
  if (!target) throw new Error("This database client was not made by createDb().");
  return target;
}

/** The process's client (`cairn().db`, on `DATABASE_URL`'s database). */
export function getDb(): Db {
  return cairn().db;
}
