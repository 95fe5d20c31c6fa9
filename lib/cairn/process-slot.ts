import type Database from "better-sqlite3";
import type pg from "pg";
import type { CairnConfig } from "@/lib/config";
import type { Cairn } from "./create-cairn";

/**
 * Everything Cairn keeps per process, on ONE `globalThis` slot (decision 0033). On globalThis
 * because Next bundles a module into several chunks, each with its own copy, and reloads modules
 * in development: a module-level variable would give each copy (and each reload) its own client,
 * pool and caches.
 *
 * - `config` and `cairn`: the process's configuration and instance (`cairnConfig()`, `cairn()`).
 * - The registries below are keyed by database or client, not by instance: two instances on the
 *   same database (the app's and a test's, or a CLI command's) share one connection, so that
 *   Prisma and the SQL layer of one PostgreSQL URL run on one pool.
 */
export interface CairnProcessSlot {
  config?: CairnConfig;
  cairn?: Cairn;
  /** `lib/db/client.ts`: the database each Prisma client made by `createDb` is connected to. */
  dbTargets?: WeakMap<object, unknown>;
  /** `lib/db/connections.ts`: one better-sqlite3 handle per file, one pg pool per URL. */
  sqliteConnections?: Map<string, Database.Database>;
  pgPools?: Map<string, pg.Pool>;
  /** `lib/sql-storage/sql`: one SQL client per database, and the statement observers. */
  sqlClients?: Map<string, unknown>;
  sqlObservers?: Array<(event: never) => void>;
  /** `lib/sql-storage/harness-storage.ts`: one harness storage (and its snapshot cache) per SQL client. */
  harnessStorages?: WeakMap<object, unknown>;
  /** `lib/auth/client-address.ts`: the socket-address stamp is installed. */
  socketAddressStamp?: boolean;
}

const SLOT = Symbol.for("cairn.process");

/** The process's slot (made on first use). */
export function processSlot(): CairnProcessSlot {
  const holder = globalThis as { [SLOT]?: CairnProcessSlot };
  return (holder[SLOT] ??= {});
}
