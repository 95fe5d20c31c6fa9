import type { DatabaseTarget } from "@/lib/db/database-url";
import type { Sql } from "@/lib/sql-storage/sql";

/**
 * Jobs waiting or running, by job name, read from the queue's own table: the `Job` table on
 * SQLite, pg-boss's `pgboss.job` on PostgreSQL (lib/jobs). For the metrics' gauge.
 */
export async function queueDepth(
  sql: Sql,
  target: DatabaseTarget,
): Promise<Record<string, number>> {
  const rows = await sql.all<{ name: string; waiting: number | string }>(
    target.provider === "postgresql"
      ? `SELECT name, COUNT(*)::int AS waiting FROM pgboss.job
           WHERE state IN ('created', 'retry', 'active') AND name NOT LIKE '__pgboss%' GROUP BY name`
      : `SELECT "name", COUNT(*) AS waiting FROM "Job"
           WHERE "state" IN ('created', 'retry', 'active') GROUP BY "name"`,
  );
  return Object.fromEntries(rows.map((row) => [row.name, Number(row.waiting)]));
}
