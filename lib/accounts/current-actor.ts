import type { Db } from "@/lib/db";
import { isRole, type Actor } from "@/lib/harness";
import { sqlForDb, type SqlExecutor } from "@/lib/sql-storage/sql";

/**
 * `actor` with the role its membership has now, read from the database; null when the
 * membership is gone. For work that outlives the request that started it — a turn's commit, a
 * scheduled refinement, a global write mid-turn — so a demotion or removal applies to it too.
 *
 * Takes the SQL layer's client or transaction. Transitional (issue 29): a Prisma client is still
 * accepted from modules that have not moved yet (it reads through that database's SQL client).
 */
export async function currentActor(
  database: SqlExecutor | Db,
  actor: Actor,
): Promise<Actor | null> {
  const sql = isSql(database) ? database : sqlForDb(database);
  const membership = await sql.get<{ role: string }>(
    `SELECT "role" FROM "Membership" WHERE "userId" = ? AND "workspaceId" = ?`,
    [actor.userId, actor.workspaceId],
  );
  if (!membership || !isRole(membership.role)) return null;
  return { userId: actor.userId, workspaceId: actor.workspaceId, role: membership.role };
}

/** Whether a database handle is the SQL layer's (a Prisma client has no `dialect`). */
export function isSql<T extends SqlExecutor>(database: T | Db): database is T {
  return typeof (database as { dialect?: unknown }).dialect === "string";
}
