import "server-only";
import { headers } from "next/headers";
import { forbidden, redirect } from "next/navigation";
import { cache } from "react";
import { cairn } from "@/lib/cairn";
import { getSessionMembership, listUserMemberships } from "@/lib/accounts/queries";
import { hasRole, isRole, type Actor, type Role } from "@/lib/harness";
import { auth, unstable_update } from "./auth";
import { REQUESTED_PATH_HEADER, signInPathFor } from "./return-path";
import { sessionCacheKey, type SessionClaims } from "./session-claims";

/**
 * The Actor for this request, from the auth session, or null when signed out. The role is
 * read from the membership row on every request (not trusted from the token), so a changed
 * role or a removed member takes effect at once. The same query reads the user's session
 * version: a token issued before a sign-out or a removal (`revokeSessions`) counts as signed out.
 */
export const getActor = cache(async (): Promise<Actor | null> => {
  const claims = await sessionClaims();
  if (!claims) return null;
  const { userId, workspaceId } = claims;
  const membership = await getSessionMembership(userId, workspaceId);
  if (!membership || !isRole(membership.role)) return null;
  if (claims.sessionVersion !== Number(membership.sessionVersion)) return null;
  return { userId, workspaceId, role: membership.role };
});

/**
 * The request's session token as Auth.js decodes it, remembered per process by a hash of the
 * session cookie: a chat turn (and any request) with a cookie seen before skips the JWE
 * decrypt. Only what the token itself says is remembered — never the role (see
 * SessionClaimsCache and docs/decisions/0025-chat-turn-stream-and-session-cache.md).
 */
async function sessionClaims(): Promise<SessionClaims | null> {
  const requestHeaders = await headers();
  const key = sessionCacheKey(
    requestHeaders.get("cookie"),
    requestHeaders.get("x-forwarded-proto"),
  );
  const claimsCache = cairn().sessionClaims;
  const known = key === null ? null : claimsCache.get(key);
  if (known) return known;
  const session = await auth();
  const userId = session?.user?.id;
  const workspaceId = session?.workspaceId;
  if (!userId || !workspaceId) return null;
  const claims: SessionClaims = {
    userId,
    workspaceId,
    sessionVersion: session.sessionVersion ?? 0,
    expiresAt: session.tokenExpiresAt ?? 0,
  };
  if (key !== null) claimsCache.set(key, claims);
  return claims;
}

/** The page this request asked for (set by the proxy), or null outside a page request. */
async function requestedPath(): Promise<string | null> {
  try {
    return (await headers()).get(REQUESTED_PATH_HEADER);
  } catch {
    return null;
  }
}

/** The Actor, or a redirect to sign-in (back to the page asked for). For pages and server actions. */
export async function requireActor(): Promise<Actor> {
  const actor = await getActor();
  if (!actor) redirect(signInPathFor(await requestedPath()));
  return actor;
}

/** The Actor when it has at least `minimum`; otherwise 403 (signed out: redirect to sign-in). */
export async function requireRole(minimum: Role): Promise<Actor> {
  const actor = await requireActor();
  if (!hasRole(actor.role, minimum)) forbidden();
  return actor;
}

/** The workspaces the signed-in user belongs to, oldest membership first. */
export async function listOwnWorkspaces(
  actor: Actor,
): Promise<{ id: string; name: string; role: string; current: boolean }[]> {
  const memberships = await listUserMemberships(actor.userId);
  return memberships.map((membership) => ({
    id: membership.workspace.id,
    name: membership.workspace.name,
    role: membership.role,
    current: membership.workspace.id === actor.workspaceId,
  }));
}

/**
 * Makes `workspaceId` the session's workspace when the signed-in user is a member of it
 * (checked here and again where the session token is written); returns whether it switched.
 */
export async function switchWorkspace(workspaceId: unknown): Promise<boolean> {
  const actor = await requireActor();
  if (typeof workspaceId !== "string" || workspaceId.length === 0) return false;
  const membership = await getSessionMembership(actor.userId, workspaceId);
  if (!membership || !isRole(membership.role)) return false;
  const session = await unstable_update({ workspaceId });
  return session?.workspaceId === workspaceId;
}
