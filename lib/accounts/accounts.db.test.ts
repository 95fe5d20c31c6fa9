import { beforeEach, describe, expect, it } from "vitest";
import { sqlForDb } from "@/lib/sql-storage/sql";
import { registerTestDatabase, testDatabaseProvider } from "@/lib/db/testing";
import {
  AccountError,
  createInvite,
  createUserInWorkspace,
  findUsableInvite,
  signUpFirstUser,
  signUpWithInvite,
} from "./accounts";
import { verifyPassword } from "./password";

describe(`accounts (${testDatabaseProvider()})`, () => {
  const database = registerTestDatabase();
  beforeEach(async () => {
    const db = database.db;
    await db.invite.deleteMany();
    await db.membership.deleteMany();
    await db.account.deleteMany();
    await db.user.deleteMany();
    await db.workspace.deleteMany();
  });

  it("makes the first account admin of a new workspace, and closes sign-up after it", async () => {
    const { user, workspace } = await signUpFirstUser(sqlForDb(database.db), {
      email: "Ada@Example.com",
      password: "long-password",
      name: "Ada",
      workspaceName: "Acme",
    });
    expect(user.email).toBe("ada@example.com");
    const membership = await database.db.membership.findFirstOrThrow({
      where: { userId: user.id },
    });
    expect(membership).toMatchObject({ workspaceId: workspace.id, role: "admin" });
    await expect(
      signUpFirstUser(sqlForDb(database.db), {
        email: "eve@example.com",
        password: "long-password",
        name: "Eve",
        workspaceName: "Evil",
      }),
    ).rejects.toMatchObject({ reason: "sign_up_closed" });
    expect(await database.db.user.count()).toBe(1);
  });

  it("lets only one of two racing first sign-ups become admin", async () => {
    const results = await Promise.allSettled(
      ["a", "b"].map((name) =>
        signUpFirstUser(sqlForDb(database.db), {
          email: `${name}@example.com`,
          password: "long-password",
          name,
          workspaceName: `W-${name}`,
        }),
      ),
    );
    expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(1);
    expect(await database.db.membership.count({ where: { role: "admin" } })).toBe(1);
  });

  it("never returns the password hash unless asked for it", async () => {
    const { user } = await createUserInWorkspace(database.sql, {
      email: "max@example.com",
      password: "long-password",
      role: "member",
      workspaceName: "Acme",
    });
    const loaded = await database.db.user.findUniqueOrThrow({ where: { id: user.id } });
    expect(loaded).not.toHaveProperty("passwordHash");
    const withHash = await database.db.user.findUniqueOrThrow({
      where: { id: user.id },
      omit: { passwordHash: false },
    });
    expect(await verifyPassword("long-password", withHash.passwordHash!)).toBe(true);
  });

  it("adds an existing user to a second workspace only with their password, and refuses duplicates", async () => {
    await createUserInWorkspace(database.sql, {
      email: "max@example.com",
      password: "long-password",
      role: "member",
      workspaceName: "Acme",
    });
    await expect(
      createUserInWorkspace(database.sql, {
        email: "max@example.com",
        password: "other-password",
        role: "admin",
        workspaceName: "Beta",
      }),
    ).rejects.toMatchObject({ reason: "email_taken" });
    const added = await createUserInWorkspace(database.sql, {
      email: "max@example.com",
      password: "long-password",
      role: "editor",
      workspaceName: "Beta",
    });
    expect(added.added).toBe(true);
    expect(await database.db.membership.count({ where: { userId: added.user.id } })).toBe(2);
    await expect(
      createUserInWorkspace(database.sql, {
        email: "max@example.com",
        password: "long-password",
        role: "editor",
        workspaceName: "Beta",
      }),
    ).rejects.toMatchObject({ reason: "email_taken" });
  });

  /** Ada signs up first (the admin of Acme) and invites someone as `role`. */
  async function adminInvites(role: "editor" | "member") {
    const { user: admin, workspace } = await signUpFirstUser(sqlForDb(database.db), {
      email: "ada@example.com",
      password: "long-password",
      name: "Ada",
      workspaceName: "Acme",
    });
    const { token } = await createInvite(sqlForDb(database.db), {
      workspaceId: workspace.id,
      createdById: admin.id,
      role,
    });
    return { admin, workspace, token };
  }

  it("redeems an invite once, with its role, and refuses used and expired invites", async () => {
    const { admin, workspace, token } = await adminInvites("editor");
    const stored = await database.db.invite.findFirstOrThrow();
    expect(stored.tokenHash).not.toContain(token);

    const results = await Promise.allSettled(
      ["x", "y"].map((name) =>
        signUpWithInvite(sqlForDb(database.db), {
          token,
          email: `${name}@example.com`,
          password: "long-password",
          name,
        }),
      ),
    );
    expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(1);
    expect(
      await database.db.membership.count({ where: { workspaceId: workspace.id, role: "editor" } }),
    ).toBe(1);
    await expect(findUsableInvite(sqlForDb(database.db), token)).rejects.toMatchObject({
      reason: "invite_used",
    });

    const expired = await createInvite(sqlForDb(database.db), {
      workspaceId: workspace.id,
      createdById: admin.id,
      role: "member",
      now: new Date(Date.now() - 8 * 24 * 3600 * 1000),
    });
    await expect(
      signUpWithInvite(sqlForDb(database.db), {
        token: expired.token,
        email: "z@example.com",
        password: "long-password",
        name: "Z",
      }),
    ).rejects.toMatchObject({ reason: "invite_expired" });
    await expect(findUsableInvite(sqlForDb(database.db), "made-up")).rejects.toBeInstanceOf(
      AccountError,
    );
  });

  it("refuses an invite sign-up with an existing email without saying the email exists", async () => {
    const { token } = await adminInvites("member");
    const refused = await signUpWithInvite(sqlForDb(database.db), {
      token,
      email: "ada@example.com",
      password: "other-password",
      name: "Not Ada",
    }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ reason: "email_taken" });
    expect((refused as Error).message).not.toMatch(/exist|account|sign in/i);
    // The invite is still usable: nothing was consumed.
    await expect(findUsableInvite(sqlForDb(database.db), token)).resolves.toBeTruthy();
  });
});
