import type { OidcConfig } from "@/lib/config";
import type { Db } from "@/lib/db";
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
  db: Db;
  config: OidcConfig;
  profile: OidcProfile;
  providerAccountId: string;
}): Promise<OidcSignIn> {
  const { db, config, profile, providerAccountId } = options;
  const email = typeof profile.email === "string" ? profile.email.trim().toLowerCase() : "";
  const verified = profile.email_verified === true || profile.email_verified === "true";
  if (!email || !email.includes("@") || !verified) {
    return { status: "refused", reason: "oidc_unverified_email" };
  }
  const mappedRole = roleFromGroups(config, profile);
  const workspace = config.workspace
    ? await db.workspace.findFirst({
        where: { OR: [{ id: config.workspace }, { name: config.workspace }] },
        select: { id: true },
      })
    : null;

  const linked = await db.account.findUnique({
    where: { provider_providerAccountId: { provider: OIDC_PROVIDER_ID, providerAccountId } },
    select: { userId: true },
  });
  const existing = linked
    ? { id: linked.userId }
    : await db.user.findUnique({ where: { email }, select: { id: true } });
  if (existing) {
    if (!linked) {
      await db.account.create({
        data: { userId: existing.id, provider: OIDC_PROVIDER_ID, providerAccountId },
      });
    }
    if (mappedRole && workspace) {
      await db.membership.updateMany({
        where: { userId: existing.id, workspaceId: workspace.id, role: { not: mappedRole } },
        data: { role: mappedRole },
      });
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
  const user = await db.$transaction(async (tx) => {
    const created = await tx.user.create({ data: { email, name: name.slice(0, 200) } });
    await tx.account.create({
      data: { userId: created.id, provider: OIDC_PROVIDER_ID, providerAccountId },
    });
    await tx.membership.create({ data: { userId: created.id, workspaceId: workspace.id, role } });
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
  db: Db;
  oidc: OidcConfig | null;
  email: string;
}): Promise<boolean> {
  const { oidc } = options;
  if (!oidc?.only) return true;
  const email = options.email.trim().toLowerCase();
  if (!oidc.breakGlassEmail || email !== oidc.breakGlassEmail) return false;
  const admin = await options.db.membership.findFirst({
    where: { role: "admin", user: { email } },
    select: { id: true },
  });
  return admin !== null;
}
