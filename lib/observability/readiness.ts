import { constants } from "node:fs";
import { access, mkdir, readdir } from "node:fs/promises";
import path from "node:path";
import type { Cairn } from "@/lib/cairn";
import type { DatabaseTarget } from "@/lib/db/database-url";
import { queueDepth } from "./queue-depth";

/** One check of `/api/ready`: `ok`, and a short word on what is wrong (never internals). */
export interface ReadinessCheck {
  ok: boolean;
  detail?: string;
}

/** What `/api/ready` answers: ready when every check is. */
export interface Readiness {
  ready: boolean;
  checks: {
    database: ReadinessCheck;
    migrations: ReadinessCheck;
    queue: ReadinessCheck;
    spool: ReadinessCheck;
  };
}

/** A check that takes longer than this counts as failed: a load balancer should not wait. */
const CHECK_TIMEOUT_MS = 3_000;

let migrationNames: Promise<string[]> | undefined;

/**
 * The migrations this build ships (`prisma/<provider>/migrations/<name>/`, as `lib/db/migrate.ts`
 * applies them), read once. Not through migrate.ts: its file access would make the server
 * bundle trace the whole project.
 */
function shippedMigrations(provider: DatabaseTarget["provider"]): Promise<string[]> {
  const folder = path.join(
    /*turbopackIgnore: true*/ process.env.CAIRN_ROOT ?? process.cwd(),
    "prisma",
    provider === "sqlite" ? "sqlite" : "postgres",
    "migrations",
  );
  migrationNames ??= readdir(folder, { withFileTypes: true }).then(
    (entries) => entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name),
    (error: unknown) => {
      migrationNames = undefined;
      throw error;
    },
  );
  return migrationNames;
}

async function timed(
  check: () => Promise<ReadinessCheck>,
): Promise<ReadinessCheck & { error?: unknown }> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      check(),
      new Promise<ReadinessCheck>((resolve) => {
        timer = setTimeout(() => resolve({ ok: false, detail: "timed out" }), CHECK_TIMEOUT_MS);
      }),
    ]);
  } catch (error) {
    return { ok: false, detail: "unavailable", error };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Whether this instance can serve (`/api/ready`, docs/deploy.md): the database answers, every
 * migration the code ships is applied, the job queue's table is readable, and the spool folder
 * (`<dataDir>/spool`) is writable — the place a change goes when the database does not take it.
 * Failures are logged with their cause; the answer says only which check failed.
 */
export async function checkReadiness(instance: Cairn): Promise<Readiness> {
  const { sql, config } = instance;
  const [database, migrations, queue, spool] = await Promise.all([
    timed(async () => {
      await sql.get(`SELECT 1 AS one`);
      return { ok: true };
    }),
    timed(async () => {
      const shipped = await shippedMigrations(config.database.provider);
      const rows = await sql.all<{ migration_name: string }>(
        `SELECT "migration_name" FROM "_prisma_migrations"
           WHERE "finished_at" IS NOT NULL AND "rolled_back_at" IS NULL`,
      );
      const applied = new Set(rows.map((row) => row.migration_name));
      const pending = shipped.filter((name) => !applied.has(name)).length;
      return pending === 0
        ? { ok: true }
        : { ok: false, detail: `${pending} migration${pending === 1 ? "" : "s"} pending` };
    }),
    timed(async () => {
      await queueDepth(sql, config.database);
      return { ok: true };
    }),
    timed(async () => {
      const directory = path.join(config.dataDir, "spool");
      await mkdir(directory, { recursive: true });
      await access(directory, constants.W_OK);
      return { ok: true };
    }),
  ]);
  const checks = { database, migrations, queue, spool };
  for (const [name, check] of Object.entries(checks)) {
    if (!check.ok) {
      instance.logger.warn({ err: check.error, check: name, detail: check.detail }, "not ready");
    }
  }
  const strip = ({ ok, detail }: ReadinessCheck) => (detail ? { ok, detail } : { ok });
  return {
    ready: Object.values(checks).every((check) => check.ok),
    checks: {
      database: strip(database),
      migrations: strip(migrations),
      queue: strip(queue),
      spool: strip(spool),
    },
  };
}
