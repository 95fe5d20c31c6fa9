import { readdirSync, readFileSync } from "node:fs";
import { sqlForDb } from "@/lib/sql-storage/sql";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { createUserInWorkspace, removeMember } from "@/lib/accounts";
import { registerTestDatabase, testDatabaseProvider } from "@/lib/db/testing";
import { authenticateAccessToken, createAccessToken, listAccessTokens } from "./access-tokens";

/**
 * Issue 31, finding 7: a removed member's access tokens came back when the person was added
 * again (removal deleted only the membership). Tokens end with the membership that issued them.
 */
describe(`access tokens end with their membership (${testDatabaseProvider()})`, () => {
  const database = registerTestDatabase();
  const password = "long-password";

  beforeEach(async () => {
    const { db } = database;
    await db.personalAccessToken.deleteMany();
    await db.membership.deleteMany();
    await db.user.deleteMany();
    await db.workspace.deleteMany();
  });

  async function memberWithToken(email = "mo@example.com") {
    const { user, workspace } = await createUserInWorkspace(database.sql, {
      email,
      password,
      role: "member",
      workspaceName: "Acme",
    });
    const { token, record } = await createAccessToken(sqlForDb(database.db), {
      userId: user.id,
      workspaceId: workspace.id,
      name: "laptop",
    });
    return { user, workspace, token, record };
  }

  const outcome = (token: string) =>
    authenticateAccessToken(sqlForDb(database.db), { token }).then(
      () => "accepted",
      (error: { reason?: string }) => error.reason ?? "error",
    );

  it("revokes the tokens with the removal, and adding the person again brings none back", async () => {
    const { user, workspace, token, record } = await memberWithToken();
    expect(await outcome(token)).toBe("accepted");
    const membership = await database.db.membership.findUniqueOrThrow({
      where: { userId_workspaceId: { userId: user.id, workspaceId: workspace.id } },
    });

    expect(await removeMember(sqlForDb(database.db), { membershipId: membership.id })).toBe(true);
    expect(await outcome(token)).not.toBe("accepted");
    const row = await database.db.personalAccessToken.findUniqueOrThrow({
      where: { id: record.id },
    });
    expect(row.revokedAt).not.toBeNull();
    // Sessions end too (the session version moved on), and a second removal changes nothing.
    const after = await database.db.user.findUniqueOrThrow({ where: { id: user.id } });
    expect(after.sessionVersion).toBe(1);
    expect(await removeMember(sqlForDb(database.db), { membershipId: membership.id })).toBe(false);

    // Added again (the CLI adds an existing account whose password matches).
    const readded = await createUserInWorkspace(database.sql, {
      email: user.email,
      password,
      role: "member",
      workspaceName: "Acme",
    });
    expect(readded.added).toBe(true);
    expect(await outcome(token)).toBe("revoked");
    const listed = await listAccessTokens(sqlForDb(database.db), {
      userId: user.id,
      workspaceId: workspace.id,
    });
    expect(listed.map((item) => item.state)).toEqual(["revoked"]);

    // A token made under the new membership works.
    const fresh = await createAccessToken(sqlForDb(database.db), {
      userId: user.id,
      workspaceId: workspace.id,
      name: "new laptop",
    });
    expect(await outcome(fresh.token)).toBe("accepted");
  });

  it("refuses a token whose membership row was recreated, even when nothing revoked it", async () => {
    const { user, workspace, token } = await memberWithToken();
    const key = { userId_workspaceId: { userId: user.id, workspaceId: workspace.id } };
    // A removal that went around `removeMember` (a script, a restored backup): no revocation.
    await database.db.membership.delete({ where: key });
    expect(await outcome(token)).toBe("no_membership");
    await database.db.membership.create({
      data: { userId: user.id, workspaceId: workspace.id, role: "admin" },
    });
    expect(await outcome(token)).toBe("revoked");
  });

  it("keeps the tokens of the removed person's other workspaces", async () => {
    const { user, workspace, token } = await memberWithToken();
    const other = await createUserInWorkspace(database.sql, {
      email: user.email,
      password,
      role: "member",
      workspaceName: "Other",
    });
    const otherToken = await createAccessToken(sqlForDb(database.db), {
      userId: user.id,
      workspaceId: other.workspace.id,
      name: "other",
    });
    const membership = await database.db.membership.findUniqueOrThrow({
      where: { userId_workspaceId: { userId: user.id, workspaceId: workspace.id } },
    });
    await removeMember(sqlForDb(database.db), { membershipId: membership.id });
    expect(await outcome(token)).toBe("revoked");
    expect(await outcome(otherToken.token)).toBe("accepted");
  });

  it("binds existing tokens on migration and revokes those older than their membership", async () => {
    const { db } = database;
    const workspace = await db.workspace.create({ data: { name: "Acme" } });
    const at = (minute: number) => new Date(Date.UTC(2026, 10, 1, 10, minute));
    const person = async (email: string, memberSince: Date) => {
      const user = await db.user.create({ data: { email, name: email } });
      await db.membership.create({
        data: {
          userId: user.id,
          workspaceId: workspace.id,
          role: "member",
          createdAt: memberSince,
        },
      });
      const { token, record } = await createAccessToken(sqlForDb(db), {
        userId: user.id,
        workspaceId: workspace.id,
        name: email,
        now: at(30),
      });
      return { user, token, record };
    };
    const kept = await person("kept@example.com", at(0));
    const readded = await person("readded@example.com", at(0));
    const removed = await person("removed@example.com", at(0));
    // Before the migration: removal deleted only the membership, and re-adding made a new one.
    await db.membership.deleteMany({
      where: { userId: { in: [readded.user.id, removed.user.id] } },
    });
    await db.membership.create({
      data: {
        userId: readded.user.id,
        workspaceId: workspace.id,
        role: "member",
        createdAt: at(45),
      },
    });
    await db.personalAccessToken.updateMany({ data: { membershipId: null } });

    await runBackfillOfMigration();

    expect(await outcome(kept.token)).toBe("accepted");
    expect(await outcome(readded.token)).toBe("revoked");
    expect(await outcome(removed.token)).toBe("revoked");
    const rows = await db.personalAccessToken.findMany({ orderBy: { name: "asc" } });
    expect(rows.map((row) => [row.name, row.revokedAt !== null])).toEqual([
      ["kept@example.com", false],
      ["readded@example.com", true],
      ["removed@example.com", true],
    ]);
    // The migration's own timestamp reads back as a date (SQLite keeps Prisma's text format).
    expect(Math.abs(rows[1]!.revokedAt!.getTime() - Date.now())).toBeLessThan(60_000);
  });

  /** The data statements of the migration that added `membershipId`, run again on this database. */
  async function runBackfillOfMigration(): Promise<void> {
    const provider = testDatabaseProvider() === "sqlite" ? "sqlite" : "postgres";
    const migrations = path.join(process.cwd(), "prisma", provider, "migrations");
    const folder = readdirSync(migrations).find((name) =>
      name.endsWith("_access_token_membership"),
    );
    const text = readFileSync(path.join(migrations, folder!, "migration.sql"), "utf8");
    const statements = text
      .split(";")
      .map((part) =>
        part
          .split("\n")
          .filter((line) => !line.trim().startsWith("--"))
          .join("\n")
          .trim(),
      )
      .filter((statement) => statement.startsWith("UPDATE"));
    expect(statements).toHaveLength(2);
    for (const statement of statements) await database.db.$executeRawUnsafe(statement);
  }
});
