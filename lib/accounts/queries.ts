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
