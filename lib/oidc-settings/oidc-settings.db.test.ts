import { beforeEach, describe, expect, it } from "vitest";
import { sqlForDb, type SqlExecutor } from "@/lib/sql-storage/sql";
import { createUserInWorkspace } from "@/lib/accounts";
import { resolveOidcSignIn } from "@/lib/auth/oidc-sign-in";
import { registerTestDatabase, testDatabaseProvider } from "@/lib/db/testing";
import {
  createSavedOidc,
  deleteOidcSettings,
  mayManageOidcSettings,
  OidcClientSecretMissing,
  oidcKeyFromSecret,
  oidcSettingsInputSchema,
  readOidcSettingsView,
  readSavedOidcConfig,
  saveOidcSettings,
  type OidcSettingsInput,
} from "./index";

const key = oidcKeyFromSecret("test-auth-secret-0123456789");
const SECRET = "very-secret-oidc-client-secret-42";

const form: OidcSettingsInput = {
  issuer: "https://id.example.com/realms/acme/",
  clientId: "cairn",
  clientSecret: SECRET,
  name: "Acme ID",
  allowedDomains: "Example.com, @example.org",
  defaultRole: "editor",
  groupsClaim: "groups",
  groupRoles: "cairn-admins=admin, writers=editor",
};

describe(`single sign-on saved on Admin → Settings (${testDatabaseProvider()})`, () => {
  const database = registerTestDatabase();
  let firstWorkspaceId: string;
  let firstAdminId: string;
  beforeEach(async () => {
    const db = database.db;
    await db.oidcSettings.deleteMany();
    await db.account.deleteMany();
    await db.membership.deleteMany();
    await db.user.deleteMany();
    await db.workspace.deleteMany();
    const first = await createUserInWorkspace(sqlForDb(db), {
      email: "owner@example.com",
      password: "owner-password-1",
      role: "admin",
      workspaceName: "Acme",
    });
    firstWorkspaceId = first.workspace.id;
    firstAdminId = first.user.id;
    // A later workspace, created after the instance's first.
    await new Promise((resolve) => setTimeout(resolve, 5));
    await createUserInWorkspace(sqlForDb(db), {
      email: "other@elsewhere.com",
      password: "other-password-1",
      role: "admin",
      workspaceName: "Elsewhere",
    });
  });

  const save = (input: OidcSettingsInput, workspaceId = firstWorkspaceId) =>
    saveOidcSettings(sqlForDb(database.db), {
      input: oidcSettingsInputSchema.parse(input),
      workspaceId,
      key,
      by: firstAdminId,
    });

  it("parses domains and group pairs as the variables are parsed, and refuses bad ones", () => {
    const parsed = oidcSettingsInputSchema.parse(form);
    expect(parsed.allowedDomains).toEqual(["example.com", "example.org"]);
    expect(parsed.groupRoles).toEqual({ "cairn-admins": "admin", writers: "editor" });
    for (const bad of [
      { issuer: "ftp://id.example.com" },
      { allowedDomains: "not a domain!" },
      { groupRoles: "writers=owner" },
      { groupsClaim: "", groupRoles: "writers=editor" },
      { defaultRole: "owner" },
    ]) {
      expect(oidcSettingsInputSchema.safeParse({ ...form, ...bad }).success).toBe(false);
    }
  });

  it("stores the secret sealed and never shows it back; a blank secret keeps it", async () => {
    await expect(save({ ...form, clientSecret: "" })).rejects.toBeInstanceOf(
      OidcClientSecretMissing,
    );
    await save(form);
    const row = await database.db.oidcSettings.findUniqueOrThrow({ where: { id: "instance" } });
    expect(JSON.stringify(row)).not.toContain(SECRET);
    const view = await readOidcSettingsView(sqlForDb(database.db));
    expect(view).toMatchObject({
      issuer: "https://id.example.com/realms/acme",
      clientId: "cairn",
      clientSecretSet: true,
      name: "Acme ID",
      allowedDomains: "example.com, example.org",
      defaultRole: "editor",
      groupsClaim: "groups",
      groupRoles: "cairn-admins=admin, writers=editor",
      workspaceName: "Acme",
    });
    expect(JSON.stringify(view)).not.toContain(SECRET);

    await save({ ...form, clientSecret: "", name: "" });
    const saved = await readSavedOidcConfig(sqlForDb(database.db), key);
    expect(saved).toMatchObject({
      status: "configured",
      config: {
        clientSecret: SECRET,
        name: "single sign-on",
        workspace: firstWorkspaceId,
        allowedDomains: ["example.com", "example.org"],
        only: false,
        breakGlassEmail: null,
      },
    });
    const row2 = await database.db.oidcSettings.findUniqueOrThrow({ where: { id: "instance" } });
    expect(row2.version).toBe(2);
  });

  it("says the secret is unreadable under another AUTH_SECRET; removed means none", async () => {
    await save(form);
    expect(
      await readSavedOidcConfig(
        sqlForDb(database.db),
        oidcKeyFromSecret("another-secret-0123456789"),
      ),
    ).toMatchObject({ status: "unreadable" });
    await deleteOidcSettings(sqlForDb(database.db));
    expect(await readSavedOidcConfig(sqlForDb(database.db), key)).toBeNull();
    expect(await readOidcSettingsView(sqlForDb(database.db))).toBeNull();
  });

  it("is managed only by admins of the instance's first workspace", async () => {
    const db = database.db;
    const other = await db.workspace.findUniqueOrThrow({ where: { name: "Elsewhere" } });
    expect(
      await mayManageOidcSettings(sqlForDb(db), { workspaceId: firstWorkspaceId, role: "admin" }),
    ).toBe(true);
    expect(
      await mayManageOidcSettings(sqlForDb(db), { workspaceId: firstWorkspaceId, role: "editor" }),
    ).toBe(false);
    expect(
      await mayManageOidcSettings(sqlForDb(db), { workspaceId: other.id, role: "admin" }),
    ).toBe(false);
  });

  it("signs people in with the saved settings: joins the workspace it was saved from", async () => {
    await save(form);
    const saved = await readSavedOidcConfig(sqlForDb(database.db), key);
    if (saved?.status !== "configured") throw new Error("not configured");
    const result = await resolveOidcSignIn({
      sql: sqlForDb(database.db),
      config: saved.config,
      profile: { sub: "s-1", email: "new@example.org", email_verified: true, groups: ["writers"] },
      providerAccountId: "s-1",
    });
    expect(result).toMatchObject({
      status: "ok",
      joined: { workspaceId: firstWorkspaceId, role: "editor" },
    });
  });

  it("is read at most once per interval, at once after forget, and kept through an outage", async () => {
    let reads = 0;
    let broken = false;
    let clock = 0;
    const sql = sqlForDb(database.db);
    // Counts the reads of the saved row (and fails them while "the database is down").
    const counted: SqlExecutor = {
      dialect: sql.dialect,
      all: (text, params) => sql.all(text, params),
      get: async (text, params) => {
        if (text.includes('"OidcSettings"')) {
          reads += 1;
          if (broken) throw new Error("database down");
        }
        return sql.get(text, params);
      },
      run: (text, params) => sql.run(text, params),
    };
    const cache = createSavedOidc({
      sql: () => counted,
      key: () => key,
      ttlMs: 1000,
      now: () => clock,
    });
    expect(await cache.current()).toBeNull();
    await save(form);
    expect(await cache.current()).toBeNull();
    expect(reads).toBe(1);
    cache.forget();
    expect((await cache.current())?.clientId).toBe("cairn");
    clock = 2000;
    broken = true;
    expect((await cache.current())?.clientId).toBe("cairn");
    broken = false;
    expect((await cache.current())?.clientId).toBe("cairn");
    expect(reads).toBe(4);
  });
});
