import Database from "better-sqlite3";

import { resolveDatabaseTarget, type DatabaseTarget } from "@/lib/db";
import { type PersistentDirBacking } from "@/lib/harness/spi";
import { createPrismaDirBacking, type PrismaDirBackingOptions } from "./prisma-dir-backing";
import { createSqliteDirBacking } from "./sqlite-dir-backing";

const globalForDirs = globalThis as unknown as {
  cairnSqliteDirConnections?: Map<string, Database.Database>;
};

/** One connection per SQLite file and process, shared by every backing made for it. */
function connectionFor(filePath: string): Database.Database {
  const cache = (globalForDirs.cairnSqliteDirConnections ??= new Map());
  let database = cache.get(filePath);
  if (!database?.open) {
    database = new Database(filePath);
    database.pragma("busy_timeout = 5000");
    cache.set(filePath, database);
  }
  return database;
}

/**
 * The dir backing for a database: on SQLite, prepared statements on the same file (a Prisma
 * query costs ≥ 0.4 ms through the driver adapter, a statement microseconds; see
 * bench/persistent-dirs.ts), on PostgreSQL the Prisma backing. Both pass the same conformance
 * suite and read each other's rows, so callers never need to know which one they got.
 *
 * `target` must be the database `db` is connected to; default `resolveDatabaseTarget()` (the
 * app's `DATABASE_URL`, which `getDb()` uses).
 */
export function dirBackingFor<TExtraBody = unknown, TSession = unknown>(
  options: PrismaDirBackingOptions<TExtraBody> & { target?: DatabaseTarget },
): PersistentDirBacking<TExtraBody, TSession> {
  const { target: given, db, ...backingOptions } = options;
  const target = given ?? resolveDatabaseTarget();
  if (target.provider === "sqlite") {
    const { load, store } = createSqliteDirBacking<TExtraBody, TSession>({
      ...backingOptions,
      database: connectionFor(target.filePath),
    });
    return { load, store };
  }
  return createPrismaDirBacking<TExtraBody, TSession>({ db, ...backingOptions });
}
