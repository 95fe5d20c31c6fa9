import { cairn } from "@/lib/cairn";
import { processSlot } from "@/lib/cairn/process-slot";
import { databaseTargetOf, type Db } from "@/lib/db/client";
import { closeConnection, pgPool, sqliteConnection } from "@/lib/db/connections";
import { resolveDatabaseTarget, type DatabaseTarget } from "@/lib/db/database-url";
import { PgSql } from "./pg-sql";
import { SqliteSql } from "./sqlite-sql";
import type { Sql } from "./sql-types";

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
