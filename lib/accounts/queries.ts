import { getDb } from "@/lib/db";
import type { Actor, Role } from "@/lib/harness";
import { recordAuditEvent } from "@/lib/audit";
import { getSql } from "@/lib/sql-storage/sql";
import {
  createInvite,
  findUsableInvite,
  removeMember,
  signUpFirstUser,
  signUpWithInvite,
} from "./accounts";

/**
 * The app's account queries in one place (people, memberships, invites), as pages, layouts,
 * actions and the session read them. Each runs on the app's database; the functions in
 * `accounts.ts` take the database as an argument for the CLI and the tests.
 */

/** How many accounts exist (0: the first sign-up creates the workspace). */
export function countUsers(): Promise<number> {
  return getDb().user.count();
}

/** A person's name and email, for the header. */
export function getUserProfile(userId: string) {
  return getDb().user.findUnique({ where: { id: userId }, select: { name: true, email: true } });
}

/** The membership a session stands on, with the user's session version (null: not a member). */
export async function getSessionMembership(
  userId: string,
  workspaceId: string,
): Promise<{ role: string; sessionVersion: number } | null> {
  // On the SQL layer, not Prisma's engine: every request of a signed-in person runs it.
  const row = await getSql().get<{ role: string; sessionVersion: number | bigint }>(
    `SELECT m."role", u."sessionVersion" FROM "Membership" m JOIN "User" u ON u."id" = m."userId"
     WHERE m."userId" = ? AND m."workspaceId" = ?`,
    [userId, workspaceId],
  );
  return row ? { role: row.role, sessionVersion: Number(row.sessionVersion) } : null;
}

/** The workspaces a person belongs to, oldest membership first. */
export function listUserMemberships(userId: string) {
  return getDb().membership.findMany({
    where: { userId },
    orderBy: { createdAt: "asc" },
    select: { role: true, workspace: { select: { id: true, name: true } } },
  });
}

/** The workspace's members with their names and emails, oldest first. */
export function listWorkspaceMembers(workspaceId: string) {
  return getDb().membership.findMany({
    where: { workspaceId },
    include: { user: { select: { name: true, email: true } } },
    orderBy: { createdAt: "asc" },
  });
}

/** Display names by user id (name, else email), for "by …" lines. */
export async function memberNames(workspaceId: string): Promise<Map<string, string>> {
  const members = await listWorkspaceMembers(workspaceId);
  return new Map(members.map((member) => [member.userId, member.user.name || member.user.email]));
}

/** One membership of the workspace (another workspace's reads as missing). */
export function findWorkspaceMembership(workspaceId: string, membershipId: string) {
  return getDb().membership.findFirst({ where: { id: membershipId, workspaceId } });
}

/** Whether `membershipId` is the workspace's only admin (a workspace keeps at least one). */
export async function isLastAdmin(workspaceId: string, membershipId: string): Promise<boolean> {
  const admins = await getDb().membership.findMany({
    where: { workspaceId, role: "admin" },
    select: { id: true },
  });
  return admins.length === 1 && admins[0]!.id === membershipId;
}

/** Changes a member's role, recorded in the audit log in the same transaction. */
export function setMembershipRole(actor: Actor, membershipId: string, role: Role) {
  return getDb().$transaction(async (tx) => {
    const before = await tx.membership.findFirstOrThrow({
      where: { id: membershipId, workspaceId: actor.workspaceId },
    });
    const updated = await tx.membership.update({ where: { id: membershipId }, data: { role } });
    if (before.role !== role) {
      await recordAuditEvent(tx, {
        workspaceId: actor.workspaceId,
        actorId: actor.userId,
        kind: "member.role_changed",
        target: { type: "user", id: before.userId },
        details: { from: before.role, to: role },
        via: "web",
      });
    }
    return updated;
  });
}

/**
 * Removes a membership, revokes the person's access tokens for the workspace and ends their
 * sessions everywhere (their session version moves on, so every session token issued before
 * reads as signed out), not only in this workspace — in one transaction (`removeMember`).
 */
export async function removeMembership(actor: Actor, membership: { id: string }): Promise<void> {
  await removeMember(getDb(), { membershipId: membership.id, actorId: actor.userId });
}

/** Invites not used and not expired, newest first, with who they are for and who made them. */
export function listOpenInvites(workspaceId: string, now = new Date()) {
  return getDb().invite.findMany({
    where: { workspaceId, usedAt: null, expiresAt: { gt: now } },
    orderBy: { createdAt: "desc" },
    select: {
      id: true,
      role: true,
      note: true,
      createdAt: true,
      expiresAt: true,
      createdBy: { select: { name: true } },
    },
  });
}

export function createWorkspaceInvite(input: Parameters<typeof createInvite>[1]) {
  return createInvite(getDb(), input);
}

/** Revokes an unused invite of the workspace; another workspace's invite changes nothing. */
export function revokeOpenInvite(actor: Actor, inviteId: string) {
  return getDb().$transaction(async (tx) => {
    const removed = await tx.invite.deleteMany({
      where: { id: inviteId, workspaceId: actor.workspaceId, usedAt: null },
    });
    if (removed.count > 0) {
      await recordAuditEvent(tx, {
        workspaceId: actor.workspaceId,
        actorId: actor.userId,
        kind: "invite.revoked",
        target: { type: "invite", id: inviteId },
        via: "web",
      });
    }
    return removed;
  });
}

/** The invite behind a sign-up link (throws `AccountError` when it cannot be used). */
export function findInviteForSignUp(token: string) {
  return findUsableInvite(getDb(), token);
}

export function signUpFirstAccount(input: Parameters<typeof signUpFirstUser>[1]) {
  return signUpFirstUser(getDb(), input);
}

export function signUpInvited(input: Parameters<typeof signUpWithInvite>[1]) {
  return signUpWithInvite(getDb(), input);
}
