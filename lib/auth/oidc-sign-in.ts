import type { OidcConfig } from "@/lib/config";
import { createId } from "@/lib/db/create-id";
import type { Sql, SqlExecutor } from "@/lib/sql-storage/sql";
import { ROLES, type Role } from "@/lib/harness";

/** The provider id of OpenID Connect sign-in (`/api/auth/signin/oidc`, `Account.provider`). */
export const OIDC_PROVIDER_ID = "oidc";

/** Why an OpenID Connect sign-in was refused; each has a message on the sign-in page. */
export type OidcRefusal = "oidc_unverified_email" | "oidc_no_account" | "oidc_no_workspace";

/** What an OpenID Connect sign-in came to. */
export type OidcSignIn =
  | { status: "ok"; userId: string; joined: { workspaceId: string; role: Role } | null }
  | { status: "refused"; reason: OidcRefusal };

/** The claims Cairn reads from the ID token / userinfo. */
export interface OidcProfile {
  sub?: unknown;
  email?: unknown;
  email_verified?: unknown;
  name?: unknown;
  preferred_username?: unknown;
  [claim: string]: unknown;
}

/**
 * The role `groups` map to (`CAIRN_OIDC_GROUP_ROLES`): the highest of the mapped roles, or
 * `null` when mapping is off or no group is mapped.
 */
export function roleFromGroups(config: OidcConfig, profile: OidcProfile): Role | null {
  if (!config.groupsClaim) return null;
  const claim = profile[config.groupsClaim];
  const groups = Array.isArray(claim) ? claim.filter((group) => typeof group === "string") : [];
  let best: Role | null = null;
  for (const group of groups) {
    const role = config.groupRoles[group];
    if (role && (best === null || ROLES.indexOf(role) > ROLES.indexOf(best))) best = role;
  }
  return best;
}

function emailDomain(email: string): string {
  return email.slice(email.lastIndexOf("@") + 1);
}

/**
 * Decides an OpenID Connect sign-in (docs/auth.md, "OpenID Connect"):
 *
 * 1. The provider must say the email is verified (`email_verified: true`); otherwise refused —
 *    an unverified email could take over the Cairn account that uses it.
 * 2. An account already linked to this subject signs in.
 * 3. A user with that email is linked (the first SSO sign-in of an existing or invited account).
 * 4. An email of an allowed domain (`CAIRN_OIDC_ALLOWED_DOMAINS`) gets a new user and joins
 *    `CAIRN_OIDC_WORKSPACE` with the default role (or its groups' role, when mapping is on).
 * 5. Anything else is refused: joining stays by invite.
 *
 * With group mapping on, a member of the OIDC workspace whose groups map to a role gets that
 * role on every sign-in (the provider is then the source of truth for it).
 */
export async function resolveOidcSignIn(options: {
  sql: Sql;
  config: OidcConfig;
  profile: OidcProfile;
  providerAccountId: string;
}): Promise<OidcSignIn> {
  const { sql, config, profile, providerAccountId } = options;
  const email = typeof profile.email === "string" ? profile.email.trim().toLowerCase() : "";
  const verified = profile.email_verified === true || profile.email_verified === "true";
  if (!email || !email.includes("@") || !verified) {
    return { status: "refused", reason: "oidc_unverified_email" };
  }
  const mappedRole = roleFromGroups(config, profile);
  const workspace = config.workspace
    ? ((await sql.get<{ id: string }>(
        `SELECT "id" FROM "Workspace" WHERE "id" = ? OR "name" = ? LIMIT 1`,
        [config.workspace, config.workspace],
      )) ?? null)
    : null;

  const linked = await sql.get<{ userId: string }>(
    `SELECT "userId" FROM "Account" WHERE "provider" = ? AND "providerAccountId" = ?`,
    [OIDC_PROVIDER_ID, providerAccountId],
  );
  const existing = linked
    ? { id: linked.userId }
    : await sql.get<{ id: string }>(`SELECT "id" FROM "User" WHERE "email" = ?`, [email]);
  if (existing) {
    if (!linked) {
      await insertAccount(sql, { userId: existing.id, providerAccountId });
    }
    if (mappedRole && workspace) {
      await sql.run(
        `UPDATE "Membership" SET "role" = ? WHERE "userId" = ? AND "workspaceId" = ? AND "role" <> ?`,
        [mappedRole, existing.id, workspace.id, mappedRole],
      );
    }
    return { status: "ok", userId: existing.id, joined: null };
  }

  if (!config.allowedDomains.includes(emailDomain(email))) {
    return { status: "refused", reason: "oidc_no_account" };
  }
  if (!workspace) return { status: "refused", reason: "oidc_no_workspace" };
  const role = mappedRole ?? config.defaultRole;
  const name =
    (typeof profile.name === "string" && profile.name.trim()) ||
    (typeof profile.preferred_username === "string" && profile.preferred_username.trim()) ||
    email.slice(0, email.indexOf("@"));
  const user = await sql.transaction(async (tx) => {
    const now = new Date();
    const created = { id: createId() };
    await tx.run(
      `INSERT INTO "User" ("id", "email", "name", "passwordHash", "sessionVersion", "createdAt", "updatedAt")
       VALUES (?, ?, ?, NULL, 0, ?, ?)`,
      [created.id, email, name.slice(0, 200), now, now],
    );
    await insertAccount(tx, { userId: created.id, providerAccountId });
    await tx.run(
      `INSERT INTO "Membership" ("id", "userId", "workspaceId", "role", "createdAt") VALUES (?, ?, ?, ?, ?)`,
      [createId(), created.id, workspace.id, role, now],
    );
    return created;
  });
  return { status: "ok", userId: user.id, joined: { workspaceId: workspace.id, role } };
}

/**
 * May this email sign in with a password? Always, unless "OIDC only" is on
 * (`CAIRN_OIDC_ONLY=on`); then only the break-glass admin (`CAIRN_OIDC_BREAK_GLASS_EMAIL`), and
 * only while that account is an admin of some workspace — a demoted break-glass account is
 * locked out of passwords like everyone else.
 */
export async function passwordSignInAllowed(options: {
  sql: SqlExecutor;
  oidc: OidcConfig | null;
  email: string;
}): Promise<boolean> {
  const { oidc } = options;
  if (!oidc?.only) return true;
  const email = options.email.trim().toLowerCase();
  if (!oidc.breakGlassEmail || email !== oidc.breakGlassEmail) return false;
  const admin = await options.sql.get<{ id: string }>(
    `SELECT m."id" FROM "Membership" m JOIN "User" u ON u."id" = m."userId"
     WHERE m."role" = 'admin' AND u."email" = ? LIMIT 1`,
    [email],
  );
  return admin !== undefined;
}

/** Links an OpenID Connect subject to a user (an `Account` row). */
async function insertAccount(
  sql: SqlExecutor,
  input: { userId: string; providerAccountId: string },
): Promise<void> {
  await sql.run(
    `INSERT INTO "Account" ("id", "userId", "provider", "providerAccountId", "createdAt") VALUES (?, ?, ?, ?, ?)`,
    [createId(), input.userId, OIDC_PROVIDER_ID, input.providerAccountId, new Date()],
  );
}
