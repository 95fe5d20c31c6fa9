import { isRole, type Actor } from "@/lib/harness";
import type { SqlExecutor } from "@/lib/sql-storage/sql";

/**
 * `actor` with the role its membership has now, read from the database; null when the
 * membership is gone. For work that outlives the request that started it — a turn's commit, a
 * scheduled refinement, a global write mid-turn — so a demotion or removal applies to it too.
 */
export async function currentActor(sql: SqlExecutor, actor: Actor): Promise<Actor | null> {
  const membership = await sql.get<{ role: string }>(
    `SELECT "role" FROM "Membership" WHERE "userId" = ? AND "workspaceId" = ?`,
    [actor.userId, actor.workspaceId],
  );
  if (!membership || !isRole(membership.role)) return null;
  return { userId: actor.userId, workspaceId: actor.workspaceId, role: membership.role };
}
