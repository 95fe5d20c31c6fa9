import { beforeEach, describe, expect, it } from "vitest";

import { createAccessToken, revokeAccessToken } from "@/lib/access-tokens";
import { createInvite, createUserInWorkspace, removeMember } from "@/lib/accounts";
import { registerTestDatabase, testDatabaseProvider } from "@/lib/db/testing";
import { sqlFor, sqlForDb } from "@/lib/sql-storage/sql";

import { listAuditEvents, recordAuditEvent, recordSignIn } from "./index";

describe(`the audit log (${testDatabaseProvider()})`, () => {
  const database = registerTestDatabase();
  const sql = () => sqlFor(database.target);

  beforeEach(async () => {
    const { db } = database;
    await db.auditEvent.deleteMany();
    await db.erasedPerson.deleteMany();
    await db.membership.deleteMany();
    await db.user.deleteMany();
    await db.workspace.deleteMany();
  });

  async function admin() {
    const { user, workspace } = await createUserInWorkspace(database.sql, {
      email: "ada@example.com",
      password: "long-password",
      role: "admin",
      workspaceName: "Acme",
    });
    return { userId: user.id, workspaceId: workspace.id };
  }

  it("writes the event in the caller's SQL transaction: rolled back with the action", async () => {
    const { userId, workspaceId } = await admin();
    await expect(
      sql().transaction(async (tx) => {
        await tx.run(`UPDATE "Workspace" SET "name" = ? WHERE "id" = ?`, ["Renamed", workspaceId]);
        await recordAuditEvent(tx, {
          workspaceId,
          actorId: userId,
          kind: "company.committed",
          target: { type: "dir", id: `company:${workspaceId}` },
          details: { paths: ["policy.md"] },
          via: "chat",
        });
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    expect(await database.db.auditEvent.count()).toBe(0);

    // And an event that cannot be written takes the action down with it.
    await expect(
      sql().transaction(async (tx) => {
        await tx.run(`UPDATE "Workspace" SET "name" = ? WHERE "id" = ?`, ["Renamed", workspaceId]);
        await tx.run(
          `INSERT INTO "AuditEvent" ("id", "kind", "via", "details", "createdAt") VALUES (?, ?, ?, ?, ?)`,
          ["same", "x", "web", "{}", new Date()],
        );
        await tx.run(
          `INSERT INTO "AuditEvent" ("id", "kind", "via", "details", "createdAt") VALUES (?, ?, ?, ?, ?)`,
          ["same", "x", "web", "{}", new Date()],
        );
      }),
    ).rejects.toThrow();
    expect(
      (await database.db.workspace.findUniqueOrThrow({ where: { id: workspaceId } })).name,
    ).toBe("Acme");
  });

  it("pages newest first by keyset, filters, and names an erased actor 'a former member'", async () => {
    const { userId, workspaceId } = await admin();
    const base = Date.UTC(2026, 0, 1);
    for (let i = 0; i < 7; i++) {
      await recordAuditEvent(sqlForDb(database.db), {
        workspaceId,
        actorId: i % 2 === 0 ? userId : "gone-user",
        kind: i % 3 === 0 ? "token.created" : "signin.succeeded",
        via: "web",
        // Two events share a time: the id breaks the tie, and no row is skipped or repeated.
        at: new Date(base + Math.min(i, 5) * 60_000),
      });
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await listAuditEvents({ sql: sql(), workspaceId, cursor, limit: 3 });
      seen.push(...page.events.map((event) => event.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toHaveLength(7);
    expect(new Set(seen).size).toBe(7);

    const all = await listAuditEvents({ sql: sql(), workspaceId, limit: 100 });
    const times = all.events.map((event) => event.at.getTime());
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(all.events.find((event) => event.actorId === "gone-user")?.actorName).toBe(
      "a former member",
    );
    const named = all.events.find((event) => event.actorId === userId)?.actorName;
    expect(named).toBeTruthy();
    expect(named).not.toBe("a former member");

    const mine = await listAuditEvents({ sql: sql(), workspaceId, filters: { actorId: userId } });
    expect(mine.events).toHaveLength(4);
    const tokens = await listAuditEvents({
      sql: sql(),
      workspaceId,
      filters: { kind: "token.created" },
    });
    expect(tokens.events).toHaveLength(3);
    const window = await listAuditEvents({
      sql: sql(),
      workspaceId,
      filters: { from: new Date(base + 60_000), to: new Date(base + 3 * 60_000) },
    });
    expect(window.events).toHaveLength(2);

    await database.db.erasedPerson.create({ data: { workspaceId, userId, erasedAt: new Date() } });
    const after = await listAuditEvents({ sql: sql(), workspaceId, filters: { actorId: userId } });
    expect(after.events.every((event) => event.actorName === "a former member")).toBe(true);
    expect(after.events[0]?.actorId).toBe(userId);
  });

  it("records the actions themselves: invites, tokens and removals, each with its event", async () => {
    const { userId, workspaceId } = await admin();
    const { user: member } = await createUserInWorkspace(database.sql, {
      email: "mo@example.com",
      password: "long-password",
      role: "member",
      workspaceName: "Acme",
    });
    await createInvite(sqlForDb(database.db), { workspaceId, createdById: userId, role: "editor" });
    const { record } = await createAccessToken(sqlForDb(database.db), {
      userId: member.id,
      workspaceId,
      name: "laptop",
      via: "cli",
    });
    expect(
      await revokeAccessToken(sqlForDb(database.db), {
        userId: member.id,
        workspaceId,
        id: record.id,
      }),
    ).toBe(true);
    const membership = await database.db.membership.findUniqueOrThrow({
      where: { userId_workspaceId: { userId: member.id, workspaceId } },
    });
    await removeMember(sqlForDb(database.db), { membershipId: membership.id, actorId: userId });

    const events = await database.db.auditEvent.findMany();
    const byKind = (kind: string) => events.find((event) => event.kind === kind);
    expect(events).toHaveLength(4);
    expect(events.map((event) => [event.kind, event.via])).toEqual(
      expect.arrayContaining([
        ["invite.created", "web"],
        ["token.created", "cli"],
        ["token.revoked", "web"],
        ["member.removed", "web"],
      ]),
    );
    expect(byKind("member.removed")).toMatchObject({
      actorId: userId,
      targetType: "user",
      targetId: member.id,
    });
    // No secret in any event: the token's value never reaches the log.
    expect(JSON.stringify(events)).not.toMatch(/cairn_pat_[A-Za-z0-9_-]{20}/);
  });

  it("records sign-ins: the person's, a failed one on their account, one with an unknown email", async () => {
    const { userId, workspaceId } = await admin();
    await recordSignIn({
      sql: sqlForDb(database.db),
      outcome: "succeeded",
      method: "password",
      userId,
    });
    await recordSignIn({
      sql: sqlForDb(database.db),
      outcome: "failed",
      method: "password",
      userId: null,
      email: "ada@example.com",
      reason: "wrong email or password",
    });
    await recordSignIn({
      sql: sqlForDb(database.db),
      outcome: "failed",
      method: "password",
      userId: null,
      email: "nobody@example.com",
    });
    const events = await database.db.auditEvent.findMany({ where: { workspaceId } });
    expect(events).toHaveLength(3);
    expect(events.find((event) => event.kind === "signin.succeeded")).toMatchObject({
      actorId: userId,
    });
    const failed = events.filter((event) => event.kind === "signin.failed");
    expect(failed.find((event) => event.targetId === userId)).toMatchObject({ actorId: null });
    const unknown = failed.find((event) => event.targetId === null)!;
    expect(JSON.parse(unknown.details)).toMatchObject({ email: "nobody@example.com" });
  });
});
