import { beforeEach, describe, expect, it } from "vitest";
import { sqlForDb } from "@/lib/sql-storage/sql";
import { createUserInWorkspace } from "@/lib/accounts";
import type { OidcConfig } from "@/lib/config";
import { registerTestDatabase, testDatabaseProvider } from "@/lib/db/testing";
import {
  OIDC_PROVIDER_ID,
  passwordSignInAllowed,
  resolveOidcSignIn,
  roleFromGroups,
} from "./oidc-sign-in";

const base: OidcConfig = {
  issuer: "https://id.example.com",
  clientId: "cairn",
  clientSecret: "secret",
  name: "Example ID",
  allowedDomains: ["example.com"],
  workspace: "Acme",
  defaultRole: "member",
  only: false,
  breakGlassEmail: null,
  groupsClaim: null,
  groupRoles: {},
};

describe(`OpenID Connect sign-in (${testDatabaseProvider()})`, () => {
  const database = registerTestDatabase();
  beforeEach(async () => {
    const db = database.db;
    await db.account.deleteMany();
    await db.membership.deleteMany();
    await db.user.deleteMany();
    await db.workspace.deleteMany();
    await createUserInWorkspace(sqlForDb(db), {
      email: "owner@example.com",
      password: "owner-password-1",
      role: "admin",
      workspaceName: "Acme",
    });
  });

  const signIn = (profile: Record<string, unknown>, config: Partial<OidcConfig> = {}) =>
    resolveOidcSignIn({
      sql: sqlForDb(database.db),
      config: { ...base, ...config },
      profile,
      providerAccountId: String(profile.sub),
    });
  const membershipsOf = (email: string) =>
    database.db.membership.findMany({
      where: { user: { email } },
      select: { role: true, workspace: { select: { name: true } } },
    });

  it("matches an existing account by its verified email and links it once", async () => {
    const first = await signIn({ sub: "s-1", email: "Owner@Example.com", email_verified: true });
    expect(first).toMatchObject({ status: "ok", joined: null });
    const again = await signIn({ sub: "s-1", email: "owner@example.com", email_verified: true });
    expect(again).toEqual(first);
    const accounts = await database.db.account.findMany({ where: { provider: OIDC_PROVIDER_ID } });
    expect(accounts).toHaveLength(1);
  });

  it("joins a new email of an allowed domain to the workspace with the default role", async () => {
    const result = await signIn(
      { sub: "s-2", email: "new@example.com", email_verified: true, name: "New Person" },
      { defaultRole: "editor" },
    );
    expect(result).toMatchObject({ status: "ok", joined: { role: "editor" } });
    expect(await membershipsOf("new@example.com")).toEqual([
      { role: "editor", workspace: { name: "Acme" } },
    ]);
    const user = await database.db.user.findUniqueOrThrow({ where: { email: "new@example.com" } });
    expect(user.name).toBe("New Person");
  });

  it("refuses an email outside the allowed domains, and any email with none allowed", async () => {
    expect(await signIn({ sub: "s-3", email: "x@elsewhere.com", email_verified: true })).toEqual({
      status: "refused",
      reason: "oidc_no_account",
    });
    expect(
      await signIn(
        { sub: "s-4", email: "y@example.com", email_verified: true },
        { allowedDomains: [] },
      ),
    ).toEqual({ status: "refused", reason: "oidc_no_account" });
    expect(await database.db.user.count()).toBe(1);
  });

  it("refuses an unverified email — also for an existing account", async () => {
    for (const verified of [false, undefined, "false"]) {
      expect(
        await signIn({ sub: "s-5", email: "owner@example.com", email_verified: verified }),
      ).toEqual({ status: "refused", reason: "oidc_unverified_email" });
    }
    expect(await database.db.account.count()).toBe(0);
  });

  it("says so when the configured workspace does not exist", async () => {
    expect(
      await signIn(
        { sub: "s-6", email: "z@example.com", email_verified: true },
        { workspace: "Nope" },
      ),
    ).toEqual({ status: "refused", reason: "oidc_no_workspace" });
  });

  it("maps groups to roles only when configured, the highest role winning", async () => {
    const profile = {
      sub: "s-7",
      email: "g@example.com",
      email_verified: true,
      groups: ["a", "b"],
    };
    expect(roleFromGroups(base, profile)).toBeNull();
    const mapped = { groupsClaim: "groups", groupRoles: { a: "editor", b: "admin" } } as const;
    expect(roleFromGroups({ ...base, ...mapped }, profile)).toBe("admin");
    await signIn(profile, mapped);
    expect(await membershipsOf("g@example.com")).toEqual([
      { role: "admin", workspace: { name: "Acme" } },
    ]);
    // The provider stays the source of truth: a later sign-in with fewer groups lowers the role.
    await signIn({ ...profile, groups: ["a"] }, mapped);
    expect(await membershipsOf("g@example.com")).toEqual([
      { role: "editor", workspace: { name: "Acme" } },
    ]);
  });

  it("OIDC only: password sign-in is refused for everyone but the break-glass admin", async () => {
    const db = database.db;
    const only = { ...base, only: true, breakGlassEmail: "owner@example.com" };
    expect(
      await passwordSignInAllowed({ sql: sqlForDb(db), oidc: null, email: "anyone@example.com" }),
    ).toBe(true);
    expect(
      await passwordSignInAllowed({ sql: sqlForDb(db), oidc: base, email: "anyone@example.com" }),
    ).toBe(true);
    expect(
      await passwordSignInAllowed({ sql: sqlForDb(db), oidc: only, email: "anyone@example.com" }),
    ).toBe(false);
    expect(
      await passwordSignInAllowed({ sql: sqlForDb(db), oidc: only, email: " Owner@example.com" }),
    ).toBe(true);
    await db.membership.updateMany({ data: { role: "member" } });
    expect(
      await passwordSignInAllowed({ sql: sqlForDb(db), oidc: only, email: "owner@example.com" }),
    ).toBe(false);
    expect(
      await passwordSignInAllowed({
        sql: sqlForDb(db),
        oidc: { ...only, breakGlassEmail: null },
        email: "owner@example.com",
      }),
    ).toBe(false);
  });
});
