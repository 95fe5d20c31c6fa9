import { createHash, randomUUID } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { DatabaseTarget } from "./database-url";
import { securePrivateSqliteFile } from "./private-files";

/** One migration folder under `prisma/<provider>/migrations`. */
export interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
}

export interface MigrateResult {
  applied: string[];
  alreadyApplied: number;
}

/** The folder of migrations for a provider, relative to the project root. */
export function migrationsDirectory(
  provider: DatabaseTarget["provider"],
  root = projectRoot(),
): string {
  return path.join(root, "prisma", provider === "sqlite" ? "sqlite" : "postgres", "migrations");
}

export function projectRoot(): string {
  return process.env.CAIRN_ROOT ?? process.cwd();
}

export function readMigrations(directory: string): MigrationFile[] {
  if (!existsSync(directory)) throw new Error(`No migrations folder at ${directory}`);
  return readdirSync(directory, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(path.join(directory, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    });
}

/**
 * Apply pending migrations, recording them in Prisma's own `_prisma_migrations` table so
 * `prisma migrate status` and `migrate deploy` agree with what ran here.
 *
 * Why not the Prisma CLI at run time: with the JavaScript schema engine it needs a config
 * file, patches for PostgreSQL and a TypeScript loader; the app only needs to replay SQL
 * files in order. On PostgreSQL an advisory lock keeps several starting instances from
 * migrating at once. A migration whose file changed after it ran is refused.
 */
export async function migrateDatabase(options: {
  target: DatabaseTarget;
  root?: string;
  log?: (line: string) => void;
}): Promise<MigrateResult> {
  const migrations = readMigrations(migrationsDirectory(options.target.provider, options.root));
  const log = options.log ?? (() => {});
  return options.target.provider === "sqlite"
    ? migrateSqlite(options.target.filePath, migrations, log)
    : migratePostgres(options.target.url, migrations, log);
}

function checkApplied(applied: Map<string, string>, migrations: MigrationFile[]): MigrationFile[] {
  for (const migration of migrations) {
    const checksum = applied.get(migration.name);
    if (checksum && checksum !== migration.checksum) {
      throw new Error(
        `Migration ${migration.name} was changed after it was applied. Restore the file or create a new migration.`,
      );
    }
  }
  return migrations.filter((migration) => !applied.has(migration.name));
}

async function migrateSqlite(
  filePath: string,
  migrations: MigrationFile[],
  log: (line: string) => void,
): Promise<MigrateResult> {
  const { default: Database } = await import("better-sqlite3");
  // Created owner-only (and an older one tightened) before SQLite opens it: see private-files.ts.
  securePrivateSqliteFile(filePath);
  const db = new Database(filePath);
  try {
    db.pragma("journal_mode = WAL");
    db.pragma("busy_timeout = 5000");
    db.exec(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id" TEXT PRIMARY KEY NOT NULL,
      "checksum" TEXT NOT NULL,
      "finished_at" DATETIME,
      "migration_name" TEXT NOT NULL,
      "logs" TEXT,
      "rolled_back_at" DATETIME,
      "started_at" DATETIME NOT NULL DEFAULT current_timestamp,
      "applied_steps_count" INTEGER UNSIGNED NOT NULL DEFAULT 0
    )`);
    const rows = db
      .prepare(
        `SELECT migration_name, checksum FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
      )
      .all() as { migration_name: string; checksum: string }[];
    const pending = checkApplied(
      new Map(rows.map((row) => [row.migration_name, row.checksum])),
      migrations,
    );
    for (const migration of pending) {
      db.transaction(() => {
        db.exec(migration.sql);
        db.prepare(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count, started_at)
           VALUES (?, ?, ?, ?, 1, ?)`,
        ).run(
          randomUUID(),
          migration.checksum,
          new Date().toISOString(),
          migration.name,
          new Date().toISOString(),
        );
      }).immediate();
      log(`applied ${migration.name}`);
    }
    return {
      applied: pending.map((m) => m.name),
      alreadyApplied: migrations.length - pending.length,
    };
  } finally {
    db.close();
  }
}

async function migratePostgres(
  url: string,
  migrations: MigrationFile[],
  log: (line: string) => void,
): Promise<MigrateResult> {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // Any constant works as long as every instance uses the same one.
    await client.query("SELECT pg_advisory_lock(72707369)");
    await client.query(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id" VARCHAR(36) PRIMARY KEY NOT NULL,
      "checksum" VARCHAR(64) NOT NULL,
      "finished_at" TIMESTAMPTZ,
      "migration_name" VARCHAR(255) NOT NULL,
      "logs" TEXT,
      "rolled_back_at" TIMESTAMPTZ,
      "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
      "applied_steps_count" INTEGER NOT NULL DEFAULT 0
    )`);
    const { rows } = await client.query<{ migration_name: string; checksum: string }>(
      `SELECT migration_name, checksum FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
    );
    const pending = checkApplied(
      new Map(rows.map((row) => [row.migration_name, row.checksum])),
      migrations,
    );
    for (const migration of pending) {
      await client.query("BEGIN");
      try {
        await client.query(migration.sql);
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count)
           VALUES ($1, $2, now(), $3, 1)`,
          [randomUUID(), migration.checksum, migration.name],
        );
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK");
        throw new Error(`Migration ${migration.name} failed: ${(error as Error).message}`, {
          cause: error,
        });
      }
      log(`applied ${migration.name}`);
    }
    return {
      applied: pending.map((m) => m.name),
      alreadyApplied: migrations.length - pending.length,
    };
  } finally {
    await client.query("SELECT pg_advisory_unlock(72707369)").catch(() => {});
    await client.end();
  }
}
