import { getDb, resolveDatabaseTarget, type Db, type DatabaseTarget } from "@/lib/db";
import type { HarnessStoragePort } from "@/lib/harness";
import { PrismaHarnessStorage } from "./harness-storage";
import { SqliteHarnessStorage } from "./sqlite-harness-storage";

const globalForStorage = globalThis as unknown as {
  cairnSqliteHarnessStorage?: Map<string, SqliteHarnessStorage>;
  cairnPrismaHarnessStorage?: WeakMap<Db, PrismaHarnessStorage>;
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
  // One storage object per client, so snapshots remembered per storage (see SnapshotCache)
  // are found again by the next request.
  const db = options.db ?? getDb();
  const cache = (globalForStorage.cairnPrismaHarnessStorage ??= new WeakMap());
  let storage = cache.get(db);
  if (!storage) {
    storage = new PrismaHarnessStorage(db);
    cache.set(db, storage);
  }
  return storage;
}
