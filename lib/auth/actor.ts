import "server-only";
import { forbidden, redirect } from "next/navigation";
import { cache } from "react";
import { getDb } from "@/lib/db";
import { hasRole, isRole, type Actor, type Role } from "@/lib/harness";
import { auth } from "./auth";

/**
 * The Actor for this request, from the auth session, or null when signed out. The role is
 * read from the membership row on every request (not trusted from the token), so a changed
 * role or a removed member takes effect at once.
 */
export const getActor = cache(async (): Promise<Actor | null> => {
  const session = await auth();
  const userId = session?.user?.id;
  const workspaceId = session?.workspaceId;
  if (!userId || !workspaceId) return null;
  const membership = await getDb().membership.findUnique({
    where: { userId_workspaceId: { userId, workspaceId } },
    select: { role: true },
  });
  if (!membership || !isRole(membership.role)) return null;
  return { userId, workspaceId, role: membership.role };
});

/** The Actor, or a redirect to sign-in. For pages and server actions. */
export async function requireActor(): Promise<Actor> {
  const actor = await getActor();
  if (!actor) redirect("/sign-in");
  return actor;
}

/** The Actor when it has at least `minimum`; otherwise 403 (signed out: redirect to sign-in). */
export async function requireRole(minimum: Role): Promise<Actor> {
  const actor = await requireActor();
  if (!hasRole(actor.role, minimum)) forbidden();
  return actor;
}
