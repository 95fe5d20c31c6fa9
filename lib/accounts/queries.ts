import type { Db } from "@/lib/db";

/** A workspace's invites nobody has used yet and that have not expired, newest first. */
export async function listOpenInvites(db: Db, workspaceId: string, now: Date = new Date()) {
  return db.invite.findMany({
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

/** A workspace's members with their names and emails, oldest first. */
export async function listMembers(db: Db, workspaceId: string) {
  return db.membership.findMany({
    where: { workspaceId },
    include: { user: { select: { name: true, email: true } } },
    orderBy: { createdAt: "asc" },
  });
}

/** Display names of the given users, by id (ids of deleted users are absent). */
export async function userNamesById(db: Db, ids: readonly string[]): Promise<Map<string, string>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const users = await db.user.findMany({
    where: { id: { in: unique } },
    select: { id: true, name: true },
  });
  return new Map(users.map((user) => [user.id, user.name]));
}
