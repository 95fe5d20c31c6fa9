import { beforeEach, describe, expect, it } from "vitest";

import { createUserInWorkspace } from "@/lib/accounts";
import { recordAuditEvent } from "@/lib/audit";
import { registerTestDatabase, testDatabaseProvider } from "@/lib/db/testing";
import { sqlFor, sqlForDb } from "@/lib/sql-storage/sql";

import { applyRetention, getRetentionSettings, saveRetentionSettings } from "./index";

const DAY = 24 * 60 * 60 * 1000;

describe(`chat and audit retention (${testDatabaseProvider()})`, () => {
  const database = registerTestDatabase();
  const sql = () => sqlFor(database.target);
  const now = new Date(Date.UTC(2026, 11, 3, 12));

  beforeEach(async () => {
    const { db } = database;
    await db.auditEvent.deleteMany();
    await db.retentionSettings.deleteMany();
    await db.harnessRevision.deleteMany();
    await db.harnessEntry.deleteMany();
    await db.chat.deleteMany();
    await db.membership.deleteMany();
    await db.user.deleteMany();
    await db.workspace.deleteMany();
  });

  async function person(email: string, workspaceName: string) {
    const { user, workspace } = await createUserInWorkspace(database.sql, {
      email,
      password: "long-password",
      role: "admin",
      workspaceName,
    });
    return { userId: user.id, workspaceId: workspace.id };
  }

  async function chat(
    owner: { userId: string; workspaceId: string },
    title: string,
    ageDays: number,
  ) {
    const at = new Date(now.getTime() - ageDays * DAY);
    const created = await database.db.chat.create({
      data: { workspaceId: owner.workspaceId, userId: owner.userId, title, createdAt: at },
    });
    // `updatedAt` is Prisma's @updatedAt: set it by SQL, as a turn moves it.
    await sql().run(`UPDATE "Chat" SET "updatedAt" = ? WHERE "id" = ?`, [at, created.id]);
    await database.db.chatMessage.create({
      data: {
        id: `${created.id}-m`,
        chatId: created.id,
        role: "user",
        parts: "[]",
        seq: 0,
        createdAt: at,
      },
    });
    return created.id;
  }

  /** An audit event of `person` signing in on the web, `ageDays` days before `now`. */
  async function signIn(person: { userId: string; workspaceId: string }, ageDays: number) {
    await recordAuditEvent(sqlForDb(database.db), {
      workspaceId: person.workspaceId,
      actorId: person.userId,
      kind: "signin.succeeded",
      via: "web",
      at: new Date(now.getTime() - ageDays * DAY),
    });
  }

  it("keeps everything by default (no setting: forever)", async () => {
    const ann = await person("ann@example.com", "Acme");
    await chat(ann, "ancient", 3000);
    expect(await getRetentionSettings({ sql: sql(), workspaceId: ann.workspaceId })).toEqual({
      chatRetentionDays: null,
      auditRetentionDays: null,
    });
    expect(await applyRetention({ sql: sql(), now })).toMatchObject({ chats: 0, auditEvents: 0 });
    expect(await database.db.chat.count()).toBe(1);
  });

  it("deletes exactly the chats idle past the window, in that workspace only, and old audit events", async () => {
    const ann = await person("ann@example.com", "Acme");
    const bob = await person("bob@example.com", "Other");
    const old = await chat(ann, "old", 31);
    const edge = await chat(ann, "just inside", 29);
    const fresh = await chat(ann, "fresh", 1);
    const elsewhere = await chat(bob, "other workspace, old", 400);
    await saveRetentionSettings({
      sql: sql(),
      workspaceId: ann.workspaceId,
      by: ann.userId,
      values: { chatRetentionDays: 30, auditRetentionDays: 90 },
      now,
    });
    await signIn(ann, 91);
    await signIn(ann, 89);

    const result = await applyRetention({ sql: sql(), now });
    expect(result).toMatchObject({ chats: 1, auditEvents: 1 });
    const left = (await database.db.chat.findMany({ select: { id: true } })).map((row) => row.id);
    expect(left.sort()).toEqual([edge, fresh, elsewhere].sort());
    expect(left).not.toContain(old);
    expect(await database.db.chatMessage.count({ where: { chatId: old } })).toBe(0);
    // Recorded: the setting, the chats it deleted, the audit events it deleted.
    const kinds = (
      await database.db.auditEvent.findMany({ where: { workspaceId: ann.workspaceId } })
    ).map((event) => event.kind);
    expect(kinds.filter((kind) => kind === "retention.applied")).toHaveLength(2);
    expect(kinds).toContain("retention.changed");
    expect(kinds.filter((kind) => kind === "signin.succeeded")).toHaveLength(1);

    // A second run finds nothing more.
    expect(await applyRetention({ sql: sql(), now })).toMatchObject({ chats: 0, auditEvents: 0 });
  });
});
