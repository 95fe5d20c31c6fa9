import { getDb, resolveDatabaseTarget, type Db, type DatabaseTarget } from "@/lib/db";
import type { HarnessStoragePort } from "@/lib/harness";
import { PrismaHarnessStorage } from "./harness-storage";
import { SqliteHarnessStorage } from "./sqlite-harness-storage";

const globalForStorage = globalThis as unknown as {
  cairnSqliteHarnessStorage?: Map<string, SqliteHarnessStorage>;
};

/**
 * The harness storage for a database: on SQLite, prepared statements on the same file (a
 * Prisma query costs ~1 ms through the driver adapter, a statement microseconds; see
 * bench/README.md), on PostgreSQL the Prisma storage. Both pass the same conformance suite
 * and read each other's rows, so callers never need to know which one they got.
 */
export function harnessStorageFor(
  options: { db?: Db; target?: DatabaseTarget } = {},
): HarnessStoragePort {
  const target = options.target ?? resolveDatabaseTarget();
  if (target.provider === "sqlite") {
    const cache = (globalForStorage.cairnSqliteHarnessStorage ??= new Map());
    let storage = cache.get(target.filePath);
    if (!storage) {
      storage = new SqliteHarnessStorage({ filePath: target.filePath });
      cache.set(target.filePath, storage);
    }
    return storage;
  }
  return new PrismaHarnessStorage(options.db ?? getDb());
}
