import { HarnessNotFoundError, type Actor, type Role } from "@/lib/harness";
import { recordAuditEvent } from "@/lib/audit";
import { getSql, toDate } from "@/lib/sql-storage/sql";
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
export async function countUsers(): Promise<number> {
  const row = await getSql().get<{ count: number | string }>(
    `SELECT COUNT(*) AS "count" FROM "User"`,
  );
  return Number(row?.count ?? 0);
}

/** A person's name and email, for the header. */
export async function getUserProfile(
  userId: string,
): Promise<{ name: string; email: string } | null> {
  const row = await getSql().get<{ name: string; email: string }>(
    `SELECT "name", "email" FROM "User" WHERE "id" = ?`,
    [userId],
  );
  return row ?? null;
}

/** A workspace's name (an actor's workspace exists: the actor was read from its membership). */
export async function getWorkspaceName(workspaceId: string): Promise<string> {
  const row = await getSql().get<{ name: string }>(
    `SELECT "name" FROM "Workspace" WHERE "id" = ?`,
    [workspaceId],
  );
  if (!row) throw new HarnessNotFoundError({ surface: "record", message: "No such workspace." });
  return row.name;
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
export async function listUserMemberships(
  userId: string,
): Promise<{ role: string; workspace: { id: string; name: string } }[]> {
  const rows = await getSql().all<{ role: string; id: string; name: string }>(
    `SELECT m."role", w."id", w."name" FROM "Membership" m
     JOIN "Workspace" w ON w."id" = m."workspaceId"
     WHERE m."userId" = ? ORDER BY m."createdAt" ASC`,
    [userId],
  );
  return rows.map((row) => ({ role: row.role, workspace: { id: row.id, name: row.name } }));
}

/** A membership row. */
export interface MembershipRecord {
  id: string;
  userId: string;
  workspaceId: string;
  role: string;
  createdAt: Date;
}

const MEMBERSHIP_COLUMNS = `m."id", m."userId", m."workspaceId", m."role", m."createdAt"`;

function membershipOf(row: Record<string, unknown>): MembershipRecord {
  return {
    id: row.id as string,
    userId: row.userId as string,
    workspaceId: row.workspaceId as string,
    role: row.role as string,
    createdAt: toDate(row.createdAt),
  };
}

/** The workspace's members with their names and emails, oldest first. */
export async function listWorkspaceMembers(
  workspaceId: string,
): Promise<(MembershipRecord & { user: { name: string; email: string } })[]> {
  const rows = await getSql().all<Record<string, unknown> & { name: string; email: string }>(
    `SELECT ${MEMBERSHIP_COLUMNS}, u."name", u."email" FROM "Membership" m
     JOIN "User" u ON u."id" = m."userId"
     WHERE m."workspaceId" = ? ORDER BY m."createdAt" ASC`,
    [workspaceId],
  );
  return rows.map((row) => ({ ...membershipOf(row), user: { name: row.name, email: row.email } }));
}

/** Display names by user id (name, else email), for "by …" lines. */
export async function memberNames(workspaceId: string): Promise<Map<string, string>> {
  const members = await listWorkspaceMembers(workspaceId);
  return new Map(members.map((member) => [member.userId, member.user.name || member.user.email]));
}

/** One membership of the workspace (another workspace's reads as missing). */
export async function findWorkspaceMembership(
  workspaceId: string,
  membershipId: string,
): Promise<MembershipRecord | null> {
  const row = await getSql().get(
    `SELECT ${MEMBERSHIP_COLUMNS} FROM "Membership" m WHERE m."id" = ? AND m."workspaceId" = ?`,
    [membershipId, workspaceId],
  );
  return row ? membershipOf(row) : null;
}

/** Whether `membershipId` is the workspace's only admin (a workspace keeps at least one). */
export async function isLastAdmin(workspaceId: string, membershipId: string): Promise<boolean> {
  const admins = await getSql().all<{ id: string }>(
    `SELECT "id" FROM "Membership" WHERE "workspaceId" = ? AND "role" = 'admin'`,
    [workspaceId],
  );
  return admins.length === 1 && admins[0]!.id === membershipId;
}

/** Changes a member's role, recorded in the audit log in the same transaction. */
export function setMembershipRole(
  actor: Actor,
  membershipId: string,
  role: Role,
): Promise<MembershipRecord> {
  return getSql().transaction(async (tx) => {
    const found = await tx.get(
      `SELECT ${MEMBERSHIP_COLUMNS} FROM "Membership" m WHERE m."id" = ? AND m."workspaceId" = ?`,
      [membershipId, actor.workspaceId],
    );
    // What Prisma's findFirstOrThrow answered (P2025, shown as "That no longer exists.").
    if (!found) {
      throw new HarnessNotFoundError({ surface: "record", message: "That no longer exists." });
    }
    const before = membershipOf(found);
    await tx.run(`UPDATE "Membership" SET "role" = ? WHERE "id" = ?`, [role, membershipId]);
    const updated = { ...before, role };
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
  await removeMember(getSql(), { membershipId: membership.id, actorId: actor.userId });
}

/** Invites not used and not expired, newest first, with who they are for and who made them. */
export async function listOpenInvites(
  workspaceId: string,
  now = new Date(),
): Promise<
  {
    id: string;
    role: string;
    note: string;
    createdAt: Date;
    expiresAt: Date;
    createdBy: { name: string };
  }[]
> {
  const rows = await getSql().all<{
    id: string;
    role: string;
    note: string;
    createdAt: unknown;
    expiresAt: unknown;
    createdByName: string;
  }>(
    `SELECT i."id", i."role", i."note", i."createdAt", i."expiresAt", u."name" AS "createdByName"
     FROM "Invite" i JOIN "User" u ON u."id" = i."createdById"
     WHERE i."workspaceId" = ? AND i."usedAt" IS NULL AND i."expiresAt" > ?
     ORDER BY i."createdAt" DESC`,
    [workspaceId, now],
  );
  return rows.map((row) => ({
    id: row.id,
    role: row.role,
    note: row.note,
    createdAt: toDate(row.createdAt),
    expiresAt: toDate(row.expiresAt),
    createdBy: { name: row.createdByName },
  }));
}

export function createWorkspaceInvite(input: Parameters<typeof createInvite>[1]) {
  return createInvite(getSql(), input);
}

/** Revokes an unused invite of the workspace; another workspace's invite changes nothing. */
export function revokeOpenInvite(actor: Actor, inviteId: string): Promise<{ count: number }> {
  return getSql().transaction(async (tx) => {
    const { changes } = await tx.run(
      `DELETE FROM "Invite" WHERE "id" = ? AND "workspaceId" = ? AND "usedAt" IS NULL`,
      [inviteId, actor.workspaceId],
    );
    const removed = { count: changes };
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
  return findUsableInvite(getSql(), token);
}

export function signUpFirstAccount(input: Parameters<typeof signUpFirstUser>[1]) {
  return signUpFirstUser(getSql(), input);
}

export function signUpInvited(input: Parameters<typeof signUpWithInvite>[1]) {
  return signUpWithInvite(getSql(), input);
}
