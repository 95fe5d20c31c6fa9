import { recordAuditEvent } from "@/lib/audit";
import { HarnessConflictError, HarnessNotFoundError, type Actor } from "@/lib/harness";
import type { Sql, SqlExecutor } from "@/lib/sql-storage/sql";

import {
  deleteChatsInTransaction,
  deleteExportsInTransaction,
  eraseDirInTransaction,
  eraseLocalEntriesInTransaction,
} from "./erase-in-transaction";

/** The person's memory dir's row key (as `lib/workspace-dirs` names it). */
const memoryDirKey = (userId: string) => `user:${userId}`;

/** The person's own pending things about their memory: failed commits and turn journals. */
async function eraseMemoryLeftovers(tx: SqlExecutor, userId: string): Promise<void> {
  await tx.run(`DELETE FROM "DirCommitRecord" WHERE "owner" = ?`, [memoryDirKey(userId)]);
  await tx.run(
    `DELETE FROM "TurnJournalEntry" WHERE "harnessDir" = '/persistent/user'
       AND "turnId" IN (SELECT "id" FROM "Turn" WHERE "userId" = ?)`,
    [userId],
  );
}

/** What "Delete my memory" removed. */
export interface DeletedMemory {
  files: number;
  versions: number;
  entries: number;
  exports: number;
}

/**
 * "Delete my memory" (Settings → Your data): the person's memory dir with its whole history,
 * the local harness entries of every chat of theirs (in every workspace) with their revisions
 * and local refinements, their failed memory commits and their data exports — in one
 * transaction with its audit event (`memory.deleted`, in the workspace they did it from).
 * Their chats stay: deleting a chat is its own action.
 */
export async function deleteOwnMemory(options: {
  sql: Sql;
  actor: Pick<Actor, "userId" | "workspaceId">;
  now?: Date;
}): Promise<DeletedMemory> {
  const { actor } = options;
  const now = options.now ?? new Date();
  return options.sql.transaction(async (tx) => {
    const dir = await eraseDirInTransaction(tx, {
      dirKey: memoryDirKey(actor.userId),
      startedAt: now,
    });
    await eraseMemoryLeftovers(tx, actor.userId);
    const workspaces = await tx.all<{ workspaceId: string }>(
      `SELECT DISTINCT "workspaceId" FROM "Chat" WHERE "userId" = ?`,
      [actor.userId],
    );
    let entries = 0;
    for (const { workspaceId } of workspaces) {
      entries += await eraseLocalEntriesInTransaction(tx, {
        workspaceId,
        chats: { where: `"workspaceId" = ? AND "userId" = ?`, params: [workspaceId, actor.userId] },
        actorId: actor.userId,
        at: now,
      });
    }
    const exports = await deleteExportsInTransaction(tx, { userId: actor.userId });
    const deleted = { files: dir.files, versions: dir.versions, entries, exports };
    await recordAuditEvent(tx, {
      workspaceId: actor.workspaceId,
      actorId: actor.userId,
      kind: "memory.deleted",
      target: { type: "user", id: actor.userId },
      details: { ...deleted },
      via: "web",
      at: now,
    });
    return deleted;
  });
}

/** What an admin's "erase this person" removed. */
export interface ErasedPersonResult {
  chats: number;
  /** Their open or rejected suggestions (approved ones are the team's). */
  suggestions: number;
  entries: number;
  exports: number;
  /** Whether their account and memory went too (this was their only workspace). */
  accountDeleted: boolean;
  memoryFiles: number;
}

/**
 * An admin's "erase this person" (Admin → Members): in the admin's workspace, their chats with
 * everything in them, their chats' local entries with history, their exports and access
 * tokens, and their membership (their sessions end). When it was their only workspace, their
 * memory dir with its history and their account go too; when they belong to another, their
 * memory — which is theirs, not this workspace's — stays, and so does the account. What they
 * contributed to company knowledge and global entries stays, attributed to "a former member"
 * (their id stays in history rows and the audit log; `ErasedPerson` makes this workspace's
 * audit log name them so even while their account lives elsewhere). One transaction, with its
 * audit event (`member.erased`). Refused for oneself (`conflict:erase_self`) and for the last
 * admin (`conflict:last_admin`); someone not in the workspace reads as missing.
 */
export async function erasePerson(options: {
  sql: Sql;
  admin: Pick<Actor, "userId" | "workspaceId">;
  userId: string;
  now?: Date;
}): Promise<ErasedPersonResult> {
  const { admin, userId } = options;
  const workspaceId = admin.workspaceId;
  const now = options.now ?? new Date();
  if (userId === admin.userId) {
    throw new HarnessConflictError({
      surface: "record",
      details: { reason: "erase_self" },
      message:
        "You cannot erase yourself. Use “Delete my memory” on Settings, or ask another admin.",
    });
  }
  return options.sql.transaction(async (tx) => {
    const membership = await tx.get<{ id: string; role: string }>(
      `SELECT "id", "role" FROM "Membership" WHERE "userId" = ? AND "workspaceId" = ?`,
      [userId, workspaceId],
    );
    if (!membership) {
      throw new HarnessNotFoundError({
        surface: "record",
        message: "That person is not a member of this workspace.",
      });
    }
    if (membership.role === "admin") {
      const admins = await tx.get<{ count: number }>(
        `SELECT COUNT(*) AS "count" FROM "Membership" WHERE "workspaceId" = ? AND "role" = 'admin'`,
        [workspaceId],
      );
      if (Number(admins?.count ?? 0) <= 1) {
        throw new HarnessConflictError({
          surface: "record",
          details: { reason: "last_admin" },
          message: "A workspace needs at least one admin.",
        });
      }
    }
    const { chats, entries } = await deleteChatsInTransaction(tx, {
      workspaceId,
      chats: { where: `"workspaceId" = ? AND "userId" = ?`, params: [workspaceId, userId] },
      actorId: admin.userId,
      at: now,
    });
    let exports = await deleteExportsInTransaction(tx, { userId, workspaceId });
    // Their suggestions that never became the team's (open or rejected) are theirs and go; an
    // approved one is part of company knowledge's history and stays, like their commits.
    const suggestions = (
      await tx.run(
        `DELETE FROM "Suggestion" WHERE "workspaceId" = ? AND "authorId" = ? AND "status" <> 'approved'`,
        [workspaceId, userId],
      )
    ).changes;
    await tx.run(`DELETE FROM "PersonalAccessToken" WHERE "userId" = ? AND "workspaceId" = ?`, [
      userId,
      workspaceId,
    ]);
    await tx.run(`DELETE FROM "Membership" WHERE "id" = ?`, [membership.id]);
    await tx.run(`UPDATE "User" SET "sessionVersion" = "sessionVersion" + 1 WHERE "id" = ?`, [
      userId,
    ]);
    await tx.run(
      `INSERT INTO "ErasedPerson" ("workspaceId", "userId", "erasedAt") VALUES (?, ?, ?)
       ON CONFLICT ("workspaceId", "userId") DO UPDATE SET "erasedAt" = excluded."erasedAt"`,
      [workspaceId, userId, now],
    );
    const elsewhere = await tx.get(`SELECT 1 AS "one" FROM "Membership" WHERE "userId" = ?`, [
      userId,
    ]);
    let memoryFiles = 0;
    if (!elsewhere) {
      memoryFiles = (
        await eraseDirInTransaction(tx, { dirKey: memoryDirKey(userId), startedAt: now })
      ).files;
      await eraseMemoryLeftovers(tx, userId);
      exports += await deleteExportsInTransaction(tx, { userId });
      // Invites they made would go with the account (a cascade): keep the used ones' history
      // by handing them to the admin who erased them, and drop the open ones.
      await tx.run(`DELETE FROM "Invite" WHERE "createdById" = ? AND "usedAt" IS NULL`, [userId]);
      await tx.run(`UPDATE "Invite" SET "createdById" = ? WHERE "createdById" = ?`, [
        admin.userId,
        userId,
      ]);
      await tx.run(`DELETE FROM "User" WHERE "id" = ?`, [userId]);
    }
    const result = {
      chats,
      entries,
      exports,
      suggestions,
      accountDeleted: !elsewhere,
      memoryFiles,
    };
    await recordAuditEvent(tx, {
      workspaceId,
      actorId: admin.userId,
      kind: "member.erased",
      target: { type: "user", id: userId },
      details: { role: membership.role, ...result },
      via: "web",
      at: now,
    });
    return result;
  });
}
