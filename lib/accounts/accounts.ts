import { createHash, randomBytes } from "node:crypto";
import { z } from "zod";
import { hasErrorMarker, HarnessError, isRole, registerErrorType, type Role } from "@/lib/harness";
import { revokeMemberAccessTokens } from "@/lib/access-tokens";
import { recordAuditEvent, type AuditVia } from "@/lib/audit";
import { createId } from "@/lib/db/create-id";
import {
  isUniqueViolation,
  toDate,
  toDateOrNull,
  type Sql,
  type SqlExecutor,
} from "@/lib/sql-storage/sql";
import { hashPassword, MIN_PASSWORD_LENGTH, verifyPassword } from "./password";

/** Why an account step was refused. */
export type AccountErrorReason =
  | "email_taken"
  | "invite_invalid"
  | "invite_expired"
  | "invite_used"
  | "sign_up_closed"
  | "invalid_input";

const accountErrorMarker = Symbol.for("cairn.accounts.error");

declare module "@/lib/harness" {
  interface HarnessErrorTypes {
    /** Sign-up, invites and user creation (`lib/accounts`). */
    account: true;
  }
}

registerErrorType("account", {
  status: 400,
  codes: {
    "account:email_taken": 409,
    "account:sign_up_closed": 403,
    "account:invite_invalid": 404,
    "account:invite_used": 410,
    "account:invite_expired": 410,
  },
});

/**
 * A refused account step (sign-up, invite, user creation). Part of the core's error family:
 * code `account:<reason>`; the message is written for people.
 */
export class AccountError extends HarnessError {
  private readonly [accountErrorMarker] = true;

  constructor(
    readonly reason: AccountErrorReason,
    message: string,
  ) {
    super({ code: `account:${reason}`, message });
  }

  static override isInstance(error: unknown): error is AccountError {
    return hasErrorMarker(error, accountErrorMarker);
  }
}

export const emailSchema = z
  .string()
  .trim()
  .toLowerCase()
  .email("Enter a valid email address")
  .max(254);
export const passwordSchema = z
  .string()
  .min(MIN_PASSWORD_LENGTH, `Use at least ${MIN_PASSWORD_LENGTH} characters`)
  .max(200, "Use at most 200 characters");
export const nameSchema = z.string().trim().min(1, "Enter a name").max(100);
export const workspaceNameSchema = z.string().trim().min(1, "Enter a workspace name").max(100);

export const INVITE_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export function hashInviteToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** A user as the app reads one (never the password hash). */
export interface UserRecord {
  id: string;
  email: string;
  name: string;
  sessionVersion: number;
  createdAt: Date;
  updatedAt: Date;
}

const USER_COLUMNS = `"id", "email", "name", "sessionVersion", "createdAt", "updatedAt"`;

function userOf(row: Record<string, unknown>): UserRecord {
  return {
    id: row.id as string,
    email: row.email as string,
    name: row.name as string,
    sessionVersion: Number(row.sessionVersion),
    createdAt: toDate(row.createdAt),
    updatedAt: toDate(row.updatedAt),
  };
}

/** Inserts a user (id and times set here, as Prisma's defaults did) and returns it. */
async function insertUser(
  tx: SqlExecutor,
  data: { email: string; name: string; passwordHash: string | null },
  now = new Date(),
): Promise<UserRecord> {
  const row = await tx.get(
    `INSERT INTO "User" ("id", "email", "name", "passwordHash", "sessionVersion", "createdAt", "updatedAt")
     VALUES (?, ?, ?, ?, 0, ?, ?) RETURNING ${USER_COLUMNS}`,
    [createId(), data.email, data.name, data.passwordHash, now, now],
  );
  return userOf(row!);
}

/** A workspace row. */
export interface WorkspaceRecord {
  id: string;
  name: string;
  createdAt: Date;
}

function workspaceOf(row: Record<string, unknown>): WorkspaceRecord {
  return { id: row.id as string, name: row.name as string, createdAt: toDate(row.createdAt) };
}

async function insertMembership(
  tx: SqlExecutor,
  data: { userId: string; workspaceId: string; role: string },
): Promise<void> {
  await tx.run(
    `INSERT INTO "Membership" ("id", "userId", "workspaceId", "role", "createdAt") VALUES (?, ?, ?, ?, ?)`,
    [createId(), data.userId, data.workspaceId, data.role, new Date()],
  );
}

/**
 * Create a user with a membership in the named workspace (created if missing). Used by the
 * CLI; the web sign-up goes through {@link signUpFirstUser} and {@link signUpWithInvite}.
 *
 * A user may belong to several workspaces: when the email exists and the password matches,
 * the existing user is added to the workspace (`added: true`). An existing email with another
 * password, or a user already in the workspace, is refused with `email_taken`.
 */
export async function createUserInWorkspace(
  sql: Sql,
  input: { email: string; password: string; name?: string; role: Role; workspaceName: string },
) {
  const email = emailSchema.parse(input.email);
  const password = passwordSchema.parse(input.password);
  const workspaceName = workspaceNameSchema.parse(input.workspaceName);
  if (!isRole(input.role))
    throw new AccountError("invalid_input", `Unknown role "${String(input.role)}"`);
  const found = await sql.get<Record<string, unknown> & { passwordHash: string | null }>(
    `SELECT ${USER_COLUMNS}, "passwordHash" FROM "User" WHERE "email" = ?`,
    [email],
  );
  const existing = found ? { ...userOf(found), passwordHash: found.passwordHash } : undefined;
  if (
    existing &&
    !(existing.passwordHash && (await verifyPassword(password, existing.passwordHash)))
  ) {
    throw new AccountError("email_taken", `A user with email ${email} already exists`);
  }
  const passwordHash = existing ? null : await hashPassword(password);
  try {
    return await sql.transaction(async (tx) => {
      await tx.run(
        `INSERT INTO "Workspace" ("id", "name", "createdAt") VALUES (?, ?, ?)
         ON CONFLICT ("name") DO NOTHING`,
        [createId(), workspaceName, new Date()],
      );
      const workspace = workspaceOf(
        (await tx.get(`SELECT "id", "name", "createdAt" FROM "Workspace" WHERE "name" = ?`, [
          workspaceName,
        ]))!,
      );
      const user =
        existing ??
        (await insertUser(tx, {
          email,
          name: input.name?.trim() || email.split("@")[0]!,
          passwordHash,
        }));
      await insertMembership(tx, { userId: user.id, workspaceId: workspace.id, role: input.role });
      return {
        user: { id: user.id, email: user.email, name: user.name },
        workspace,
        added: Boolean(existing),
      };
    });
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw new AccountError(
        "email_taken",
        `${email} is already a member of workspace "${workspaceName}"`,
      );
    }
    throw error;
  }
}

/** The first account on an empty database becomes admin of a new workspace. */
export async function signUpFirstUser(
  sql: Sql,
  input: { email: string; password: string; name: string; workspaceName: string },
) {
  const passwordHash = await hashPassword(passwordSchema.parse(input.password));
  try {
    return await sql.transaction(
      async (tx) => {
        // Checked inside a serializable transaction so two racing first sign-ups cannot both
        // become admin: the loser fails to commit and is told sign-up is closed.
        const users = await tx.get<{ count: number | string }>(
          `SELECT COUNT(*) AS "count" FROM "User"`,
        );
        if (Number(users?.count ?? 0) > 0) {
          throw new AccountError(
            "sign_up_closed",
            "Sign-up needs an invite link from an admin of your workspace.",
          );
        }
        const workspace = workspaceOf(
          (await tx.get(
            `INSERT INTO "Workspace" ("id", "name", "createdAt") VALUES (?, ?, ?)
             RETURNING "id", "name", "createdAt"`,
            [createId(), workspaceNameSchema.parse(input.workspaceName), new Date()],
          ))!,
        );
        const user = await insertUser(tx, {
          email: emailSchema.parse(input.email),
          name: nameSchema.parse(input.name),
          passwordHash,
        });
        await insertMembership(tx, { userId: user.id, workspaceId: workspace.id, role: "admin" });
        return { user, workspace };
      },
      { isolation: "serializable" },
    );
  } catch (error) {
    // A racing first sign-up that lost shows up as a unique violation or a serialization
    // failure (PostgreSQL's 40001; on SQLite the write transactions queue, so the loser sees
    // the first user and is refused above).
    if (isUniqueViolation(error) || (error as { code?: string }).code === "40001") {
      throw new AccountError("sign_up_closed", "Sign-up needs an invite link.");
    }
    throw error;
  }
}

/** Look up an invite by its raw token and say whether it can still be used. */
export async function findUsableInvite(sql: SqlExecutor, token: string, now = new Date()) {
  const row = await sql.get<{
    id: string;
    tokenHash: string;
    workspaceId: string;
    role: string;
    createdById: string;
    createdAt: unknown;
    expiresAt: unknown;
    usedAt: unknown;
    usedById: string | null;
    note: string;
    workspaceName: string;
  }>(
    `SELECT i."id", i."tokenHash", i."workspaceId", i."role", i."createdById", i."createdAt",
            i."expiresAt", i."usedAt", i."usedById", i."note", w."name" AS "workspaceName"
     FROM "Invite" i JOIN "Workspace" w ON w."id" = i."workspaceId"
     WHERE i."tokenHash" = ?`,
    [hashInviteToken(token)],
  );
  const invite = row && {
    ...inviteOf(row),
    workspace: { name: row.workspaceName },
  };
  if (!invite) throw new AccountError("invite_invalid", "This invite link is not valid.");
  if (invite.usedAt)
    throw new AccountError("invite_used", "This invite link has already been used.");
  if (invite.expiresAt <= now)
    throw new AccountError(
      "invite_expired",
      "This invite link has expired. Ask an admin for a new one.",
    );
  return invite;
}

/** An invite row. */
export interface InviteRecord {
  id: string;
  tokenHash: string;
  workspaceId: string;
  role: string;
  createdById: string;
  createdAt: Date;
  expiresAt: Date;
  usedAt: Date | null;
  usedById: string | null;
  note: string;
}

const INVITE_COLUMNS = `"id", "tokenHash", "workspaceId", "role", "createdById", "createdAt", "expiresAt", "usedAt", "usedById", "note"`;

function inviteOf(row: Record<string, unknown>): InviteRecord {
  return {
    id: row.id as string,
    tokenHash: row.tokenHash as string,
    workspaceId: row.workspaceId as string,
    role: row.role as string,
    createdById: row.createdById as string,
    createdAt: toDate(row.createdAt),
    expiresAt: toDate(row.expiresAt),
    usedAt: toDateOrNull(row.usedAt),
    usedById: (row.usedById as string | null) ?? null,
    note: row.note as string,
  };
}

/** Redeem an invite: creates the user (or adds an existing user to the workspace) with the invite's role, once. */
export async function signUpWithInvite(
  sql: Sql,
  input: { token: string; email: string; password: string; name: string },
  now = new Date(),
) {
  const invite = await findUsableInvite(sql, input.token, now);
  if (!isRole(invite.role))
    throw new AccountError("invite_invalid", "This invite link is not valid.");
  const role = invite.role;
  const passwordHash = await hashPassword(passwordSchema.parse(input.password));
  const email = emailSchema.parse(input.email);
  try {
    return await sql.transaction(async (tx) => {
      const user = await insertUser(tx, {
        email,
        name: nameSchema.parse(input.name),
        passwordHash,
      });
      // Single use even under races: only the request that flips usedAt from null wins.
      const claimed = await tx.run(
        `UPDATE "Invite" SET "usedAt" = ?, "usedById" = ? WHERE "id" = ? AND "usedAt" IS NULL`,
        [now, user.id, invite.id],
      );
      if (claimed.changes !== 1)
        throw new AccountError("invite_used", "This invite link has already been used.");
      await insertMembership(tx, { userId: user.id, workspaceId: invite.workspaceId, role });
      await recordAuditEvent(tx, {
        workspaceId: invite.workspaceId,
        actorId: user.id,
        kind: "member.joined",
        target: { type: "invite", id: invite.id },
        details: { role, invitedBy: invite.createdById },
        via: "web",
        at: now,
      });
      return { user, workspaceId: invite.workspaceId, role };
    });
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw new AccountError(
        "email_taken",
        // Deliberately vague: shown to invite holders, it must not confirm that the email exists.
        "Sign-up with this invite did not work.",
      );
    }
    throw error;
  }
}

/** Create an invite and return its raw token (shown once; only its hash is stored). */
export async function createInvite(
  sql: Sql,
  input: {
    workspaceId: string;
    createdById: string;
    role: Role;
    /** Who it is for, in the admin's words (a name or an email); shown in the open-invite list. */
    note?: string;
    now?: Date;
    ttlMs?: number;
    /** For the audit log. Default `web`. */
    via?: AuditVia;
  },
) {
  const token = randomBytes(24).toString("base64url");
  const now = input.now ?? new Date();
  const invite = await sql.transaction(async (tx) => {
    const created = inviteOf(
      (await tx.get(
        `INSERT INTO "Invite" ("id", "tokenHash", "workspaceId", "createdById", "role", "createdAt", "expiresAt", "note")
         VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${INVITE_COLUMNS}`,
        [
          createId(),
          hashInviteToken(token),
          input.workspaceId,
          input.createdById,
          input.role,
          new Date(),
          new Date(now.getTime() + (input.ttlMs ?? INVITE_TTL_MS)),
          input.note?.trim() ?? "",
        ],
      ))!,
    );
    await recordAuditEvent(tx, {
      workspaceId: input.workspaceId,
      actorId: input.createdById,
      kind: "invite.created",
      target: { type: "invite", id: created.id },
      details: { role: input.role, ...(created.note ? { note: created.note } : {}) },
      via: input.via ?? "web",
      at: now,
    });
    return created;
  });
  return { token, invite };
}

/**
 * Removes a person from a workspace, in one transaction: the membership row goes, every access
 * token the person holds in that workspace is revoked (tokens end with the membership that
 * issued them; adding the person again brings none back), and their session version moves on,
 * so every session token they hold reads as signed out — in every workspace, as sign-out does
 * (`revokeSessions` in lib/auth). Returns whether a membership was removed (false: it was gone
 * already; nothing changed).
 */
export async function removeMember(
  sql: Sql,
  input: {
    membershipId: string;
    now?: Date;
    /** Who removed them, for the audit log (null: not a person, e.g. a test or a script). */
    actorId?: string | null;
    via?: AuditVia;
  },
): Promise<boolean> {
  const now = input.now ?? new Date();
  return sql.transaction(async (tx) => {
    const membership = await tx.get<{ userId: string; workspaceId: string; role: string }>(
      `SELECT "userId", "workspaceId", "role" FROM "Membership" WHERE "id" = ?`,
      [input.membershipId],
    );
    if (!membership) return false;
    await tx.run(`DELETE FROM "Membership" WHERE "id" = ?`, [input.membershipId]);
    await recordAuditEvent(tx, {
      workspaceId: membership.workspaceId,
      actorId: input.actorId ?? null,
      kind: "member.removed",
      target: { type: "user", id: membership.userId },
      details: { role: membership.role },
      via: input.via ?? "web",
      at: now,
    });
    await revokeMemberAccessTokens(tx, { ...membership, now });
    await tx.run(
      `UPDATE "User" SET "sessionVersion" = "sessionVersion" + 1, "updatedAt" = ? WHERE "id" = ?`,
      [new Date(), membership.userId],
    );
    return true;
  });
}
