import Database from "better-sqlite3";
import pg from "pg";
import { processSlot } from "@/lib/cairn/process-slot";
import { securePrivateSqliteFile } from "./private-files";

/**
 * The process's connections (on the process's slot, lib/cairn), one per database: a better-sqlite3 handle per SQLite file and a
 * `pg` pool per PostgreSQL URL. The SQL layer (`lib/sql-storage/sql`) runs every hot-path query on
 * them, and the Prisma client of the same PostgreSQL URL uses the same pool (`createDb`), so a
 * process holds one pool per database whatever it uses. (Prisma's SQLite adapter cannot take
 * a handle; it keeps its own connection to the file.)
 */

/** How long a write waits for another connection's lock on SQLite (Prisma's adapter uses the same). */
export const SQLITE_BUSY_TIMEOUT_MS = 5000;

/** The process's better-sqlite3 connection to a migrated SQLite file, opened on first use. */
export function sqliteConnection(filePath: string): Database.Database {
  const cache = (processSlot().sqliteConnections ??= new Map());
  let database = cache.get(filePath);
  if (!database?.open) {
    // Once per process and file: a server started without `cairn db migrate` tightens it too.
    securePrivateSqliteFile(filePath);
    database = new Database(filePath);
    database.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
    cache.set(filePath, database);
  }
  return database;
}

// `timestamp` (without time zone, what Prisma's DateTime is on PostgreSQL) holds UTC: read it
// as UTC whatever the process's time zone (pg's default reads local time).
const TIMESTAMP_OID = 1114;
const INT8_OID = 20;
const parseTimestamp = (value: string) => new Date(`${value.replace(" ", "T")}Z`);
// COUNT(*) and BigInt columns (epoch milliseconds) come back as numbers, not strings.
const parseInt8 = (value: string) => Number(value);

function getTypeParser(oid: number, format?: "text" | "binary"): unknown {
  if (format !== "binary") {
    if (oid === TIMESTAMP_OID) return parseTimestamp;
    if (oid === INT8_OID) return parseInt8;
  }
  return (pg.types.getTypeParser as (oid: number, format?: string) => unknown)(oid, format);
}

/**
 * The process's pool for a PostgreSQL URL, created on first use. Idle connections do not keep
 * the process alive (`allowExitOnIdle`), and a connection the server drops while idle is
 * discarded quietly (the pool replaces it on the next query).
 */
export function pgPool(url: string): pg.Pool {
  const cache = (processSlot().pgPools ??= new Map());
  let pool = cache.get(url);
  if (!pool) {
    pool = new pg.Pool({
      connectionString: url,
      allowExitOnIdle: true,
      types: { getTypeParser } as pg.CustomTypesConfig,
    });
    pool.on("error", () => {});
    cache.set(url, pool);
  }
  return pool;
}

/** Closes and forgets the process's connection to a database (tests drop their databases). */
export async function closeConnection(
  target: { provider: "sqlite"; filePath: string } | { provider: "postgresql"; url: string },
): Promise<void> {
  if (target.provider === "sqlite") {
    const cache = processSlot().sqliteConnections;
    const database = cache?.get(target.filePath);
    cache?.delete(target.filePath);
    if (database?.open) database.close();
    return;
  }
  const cache = processSlot().pgPools;
  const pool = cache?.get(target.url);
  cache?.delete(target.url);
  await pool?.end();
}
