import NextAuth, { CredentialsSignin, type NextAuthConfig } from "next-auth";
import Credentials from "next-auth/providers/credentials";
import GitHub from "next-auth/providers/github";
import { z } from "zod";
import { cairn } from "@/lib/cairn";
import { createId } from "@/lib/db/create-id";
import { getSql, type SqlExecutor } from "@/lib/sql-storage/sql";
import { isRole } from "@/lib/harness";
import { recordSignIn } from "@/lib/audit";
import { authLogger } from "./auth-logger";
import { clientAddressOf } from "./client-address";
import {
  OIDC_PROVIDER_ID,
  passwordSignInAllowed,
  resolveOidcSignIn,
  type OidcProfile,
} from "./oidc-sign-in";
import { checkSignIn } from "./sign-in";
import { cairnConfig } from "@/lib/config/process-config";
import type { OidcConfig } from "@/lib/config";
import { currentOidcConfig } from "./oidc-config";

/** Wrong email or password. One message for both, so sign-in does not reveal which emails exist. */
class InvalidCredentials extends CredentialsSignin {
  code = "invalid_credentials";
}

/** "OIDC only": password sign-in is off for everyone but the break-glass admin. */
class PasswordSignInOff extends CredentialsSignin {
  code = "oidc_only";
}

/** Too many failed attempts for this email or client address. */
class RateLimited extends CredentialsSignin {
  code = "rate_limited";
}

/**
 * The limiter could not count the attempt (the database is unreachable or busy), so the password
 * was not checked: sign-in fails closed with "try again shortly", never as a server error.
 */
class SignInUnavailable extends CredentialsSignin {
  code = "try_later";
}

const credentialsSchema = z.object({
  email: z.string().trim().toLowerCase().max(254),
  password: z.string().max(200),
});

/**
 * Invalidates every session token the user holds (sign-out, removal from a workspace): the next
 * request with one is treated as signed out.
 */
export async function revokeSessions(sql: SqlExecutor, userId: string): Promise<void> {
  await sql.run(
    `UPDATE "User" SET "sessionVersion" = "sessionVersion" + 1, "updatedAt" = ? WHERE "id" = ?`,
    [new Date(), userId],
  );
}

/**
 * Records a sign-in or a failed one in the audit log. Never fails the sign-in: an event that
 * cannot be written is logged (the attempt is in the metrics and the log either way).
 */
async function auditSignIn(options: Omit<Parameters<typeof recordSignIn>[0], "sql">) {
  try {
    await recordSignIn({ sql: getSql(), ...options });
  } catch (error) {
    cairn().logger.error({ err: error }, "the sign-in could not be recorded in the audit log");
  }
}

/** The user's workspace for a new session: the oldest membership. */
async function primaryMembership(sql: SqlExecutor, userId: string) {
  return sql.get<{ workspaceId: string; role: string }>(
    `SELECT "workspaceId", "role" FROM "Membership" WHERE "userId" = ? ORDER BY "createdAt" ASC LIMIT 1`,
    [userId],
  );
}

/** The user an account (a GitHub or OpenID Connect identity) is linked to, if any. */
async function linkedUserId(
  sql: SqlExecutor,
  provider: string,
  providerAccountId: string,
): Promise<string | undefined> {
  const linked = await sql.get<{ userId: string }>(
    `SELECT "userId" FROM "Account" WHERE "provider" = ? AND "providerAccountId" = ?`,
    [provider, providerAccountId],
  );
  return linked?.userId;
}

export const githubEnabled = cairnConfig().github !== null;

/** The generic OpenID Connect provider (Keycloak, Authentik, Okta, Entra ID, Google, …). */
function oidcProvider(oidc: OidcConfig | null) {
  if (!oidc) return [];
  return [
    {
      id: OIDC_PROVIDER_ID,
      name: oidc.name,
      type: "oidc" as const,
      issuer: oidc.issuer,
      clientId: oidc.clientId,
      clientSecret: oidc.clientSecret,
      checks: ["pkce", "state", "nonce"] as ("pkce" | "state" | "nonce")[],
      // Claims from the userinfo endpoint: issuers differ in which claims they put in the ID
      // token (oidc-provider and Okta leave `email_verified` out by default), all serve userinfo.
      idToken: false,
      authorization: {
        params: { scope: `openid email profile${oidc.groupsClaim ? " groups" : ""}` },
      },
      profile(profile: OidcProfile) {
        return {
          id: String(profile.sub),
          email: typeof profile.email === "string" ? profile.email : null,
          name: typeof profile.name === "string" ? profile.name : null,
        };
      },
    },
  ];
}

const config: NextAuthConfig = {
  trustHost: true,
  logger: authLogger,
  session: { strategy: "jwt" },
  pages: { signIn: "/sign-in", error: "/sign-in" },
  providers: [
    Credentials({
      credentials: { email: {}, password: {} },
      async authorize(raw, request) {
        const { metrics, logger } = cairn();
        const parsed = credentialsSchema.safeParse(raw);
        if (!parsed.success) {
          metrics.signIns.inc({ method: "password", outcome: "invalid" });
          throw new InvalidCredentials();
        }
        let result: Awaited<ReturnType<typeof checkSignIn>>;
        try {
          const allowed = await passwordSignInAllowed({
            sql: getSql(),
            oidc: await currentOidcConfig(),
            email: parsed.data.email,
          });
          if (!allowed) {
            metrics.signIns.inc({ method: "password", outcome: "refused" });
            throw new PasswordSignInOff();
          }
          const address = clientAddressOf(request.headers);
          result = await checkSignIn({ sql: getSql(), ...parsed.data, address });
        } catch (cause) {
          if (cause instanceof PasswordSignInOff) throw cause;
          result = { status: "unavailable", cause };
        }
        metrics.signIns.inc({ method: "password", outcome: result.status });
        switch (result.status) {
          case "ok":
            logger.info({ userId: result.user.id, method: "password" }, "signed in");
            await auditSignIn({ outcome: "succeeded", method: "password", userId: result.user.id });
            return result.user;
          case "limited":
            metrics.lockouts.inc({ rule: result.reason });
            logger.warn(
              { rule: result.reason, method: "password" },
              "sign-in refused by the limits",
            );
            throw new RateLimited();
          case "unavailable":
            logger.error({ err: result.cause }, "the sign-in limiter failed; refusing sign-in");
            throw new SignInUnavailable();
          default:
            await auditSignIn({
              outcome: "failed",
              method: "password",
              userId: null,
              email: parsed.data.email,
              reason: "wrong email or password",
              address: clientAddressOf(request.headers),
            });
            throw new InvalidCredentials();
        }
      },
    }),
    ...(githubEnabled ? [GitHub] : []),
  ],
  callbacks: {
    async signIn({ account, profile }) {
      if (account?.provider === OIDC_PROVIDER_ID) {
        const { metrics, logger } = cairn();
        const oidc = await currentOidcConfig();
        if (!oidc) return false;
        const result = await resolveOidcSignIn({
          sql: getSql(),
          config: oidc,
          profile: (profile ?? {}) as OidcProfile,
          providerAccountId: account.providerAccountId,
        });
        metrics.signIns.inc({
          method: "oidc",
          outcome: result.status === "ok" ? "ok" : "refused",
        });
        if (result.status === "refused") {
          logger.warn({ method: "oidc", reason: result.reason }, "sign-in refused");
          const email = (profile as OidcProfile | undefined)?.email;
          await auditSignIn({
            outcome: "failed",
            method: "oidc",
            userId: null,
            email: typeof email === "string" ? email.toLowerCase() : undefined,
            reason: result.reason,
          });
          return `/sign-in?error=${result.reason}`;
        }
        await auditSignIn({ outcome: "succeeded", method: "oidc", userId: result.userId });
        logger.info(
          { userId: result.userId, method: "oidc", joinedWorkspaceId: result.joined?.workspaceId },
          result.joined ? "signed in and joined the workspace" : "signed in",
        );
        return true;
      }
      if (account?.provider !== "github") return true;
      // GitHub signs in existing users only: sign-up stays invite-only. A first GitHub sign-in
      // links to the user with the same (GitHub-verified) email.
      const sql = getSql();
      const linkedId = await linkedUserId(sql, "github", account.providerAccountId);
      if (linkedId) {
        await auditSignIn({ outcome: "succeeded", method: "github", userId: linkedId });
        return true;
      }
      const email = typeof profile?.email === "string" ? profile.email.toLowerCase() : null;
      const user = email
        ? await sql.get<{ id: string }>(`SELECT "id" FROM "User" WHERE "email" = ?`, [email])
        : undefined;
      if (!user) {
        await auditSignIn({
          outcome: "failed",
          method: "github",
          userId: null,
          email: email ?? undefined,
          reason: "no account",
        });
        return "/sign-in?error=no_account";
      }
      await sql.run(
        `INSERT INTO "Account" ("id", "userId", "provider", "providerAccountId", "createdAt") VALUES (?, ?, ?, ?, ?)`,
        [createId(), user.id, "github", account.providerAccountId, new Date()],
      );
      await auditSignIn({ outcome: "succeeded", method: "github", userId: user.id });
      return true;
    },
    async jwt({ token, user, account, trigger, session }) {
      if (trigger === "update") {
        // Switching workspace (see switchWorkspace): the requested workspace is taken only
        // when the user is a member of it, read from the database here.
        const requested: unknown = (session as { workspaceId?: unknown } | undefined)?.workspaceId;
        if (typeof requested === "string" && typeof token.userId === "string") {
          const membership = await getSql().get<{ workspaceId: string; role: string }>(
            `SELECT "workspaceId", "role" FROM "Membership" WHERE "userId" = ? AND "workspaceId" = ?`,
            [token.userId, requested],
          );
          if (membership && isRole(membership.role)) {
            token.workspaceId = membership.workspaceId;
            token.role = membership.role;
          }
        }
        return token;
      }
      if (account) {
        const sql = getSql();
        let userId = user?.id;
        if (account.provider === "github" || account.provider === OIDC_PROVIDER_ID) {
          userId = await linkedUserId(sql, account.provider, account.providerAccountId);
        }
        if (!userId) return null;
        const membership = await primaryMembership(sql, userId);
        const found = await sql.get<{ sessionVersion: number | string }>(
          `SELECT "sessionVersion" FROM "User" WHERE "id" = ?`,
          [userId],
        );
        // What Prisma's findUniqueOrThrow answered for a user that is gone.
        if (!found) throw new Error(`No user ${userId}`);
        const sessionVersion = Number(found.sessionVersion);
        token.userId = userId;
        // The token is good only while the user's session version stays this one (see getActor).
        token.sessionVersion = sessionVersion;
        token.workspaceId = membership?.workspaceId;
        token.role = membership && isRole(membership.role) ? membership.role : undefined;
      }
      return token;
    },
    session({ session, token }) {
      if (typeof token.userId === "string") session.user.id = token.userId;
      session.workspaceId = typeof token.workspaceId === "string" ? token.workspaceId : undefined;
      session.sessionVersion = typeof token.sessionVersion === "number" ? token.sessionVersion : 0;
      // The presented token's own expiry (not the refreshed one): bounds getActor's cache.
      session.tokenExpiresAt = typeof token.exp === "number" ? token.exp * 1000 : undefined;
      return session;
    },
  },
  events: {
    // Sign-out revokes the token on the server too: a copy of the cookie kept elsewhere stops
    // working, because getActor refuses a token whose version is not the user's current one.
    // This signs the user out of every browser, which is what "sign out" should guarantee.
    async signOut(message) {
      const userId = "token" in message ? message.token?.userId : undefined;
      if (typeof userId === "string") await revokeSessions(getSql(), userId);
    },
  },
};

/**
 * Auth.js asks for its configuration per call, because single sign-on may be saved on Admin →
 * Settings while the server runs (decision 0053); everything but the OIDC provider is fixed.
 */
export const { handlers, auth, signIn, signOut, unstable_update } = NextAuth(async () => ({
  ...config,
  providers: [...config.providers, ...oidcProvider(await currentOidcConfig())],
}));
