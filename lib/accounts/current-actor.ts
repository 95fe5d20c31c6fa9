import type { Db } from "@/lib/db";
import { isRole, type Actor } from "@/lib/harness";

/**
 * `actor` with the role its membership has now, read from the database; null when the
 * membership is gone. For work that outlives the request that started it — a turn's commit, a
 * scheduled refinement, a global write mid-turn — so a demotion or removal applies to it too.
 */
export async function currentActor(db: Db, actor: Actor): Promise<Actor | null> {
  const membership = await db.membership.findUnique({
    where: { userId_workspaceId: { userId: actor.userId, workspaceId: actor.workspaceId } },
    select: { role: true },
  });
  if (!membership || !isRole(membership.role)) return null;
  return { userId: actor.userId, workspaceId: actor.workspaceId, role: membership.role };
}
