import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { recordAuditEvent, type AuditVia } from "@/lib/audit";
import { createId } from "@/lib/db/create-id";
import { toDate, toDateOrNull, type Sql, type SqlExecutor } from "@/lib/sql-storage/sql";
import { hasErrorMarker, HarnessError, isRole, registerErrorType, type Actor } from "@/lib/harness";

/** Every token starts with this, so secret scanners and people recognise one. */
export const ACCESS_TOKEN_PREFIX = "cairn_pat_";

/** Characters of the token kept in clear (prefix + 4) so a person can tell tokens apart. */
const SHOWN_CHARACTERS = ACCESS_TOKEN_PREFIX.length + 4;

/** 32 random bytes (256 bits), base64url: no dictionary can reach it, so one SHA-256 is enough. */
const RANDOM_BYTES = 32;

/** Last-used times are written at most this often per token (a write per MCP call would be noise). */
const LAST_USED_RESOLUTION_MS = 60_000;

export const tokenNameSchema = z
  .string()
  .trim()
  .min(1, "Name the token (e.g. the machine or client it is for)")
  .max(100, "Use at most 100 characters");

/** A token's public fields (never its hash). */
export interface AccessTokenView {
  id: string;
  name: string;
  /** The first characters of the token, e.g. `cairn_pat_Ab3x`. */
  prefix: string;
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  clientName: string | null;
}

const VIEW_COLUMNS = `"id", "name", "prefix", "createdAt", "expiresAt", "lastUsedAt", "revokedAt", "clientName"`;

/** A row of `VIEW_COLUMNS` as the driver gives it. */
interface ViewRow {
  id: string;
  name: string;
  prefix: string;
  createdAt: unknown;
  expiresAt: unknown;
  lastUsedAt: unknown;
  revokedAt: unknown;
  clientName: string | null;
}

function viewOf(row: ViewRow): AccessTokenView {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    createdAt: toDate(row.createdAt),
    expiresAt: toDateOrNull(row.expiresAt),
    lastUsedAt: toDateOrNull(row.lastUsedAt),
    revokedAt: toDateOrNull(row.revokedAt),
    clientName: row.clientName,
  };
}

/** Why a token was refused. */
export type AccessTokenErrorReason =
  "missing" | "malformed" | "unknown" | "expired" | "revoked" | "no_membership";

const accessTokenErrorMarker = Symbol.for("cairn.access-tokens.error");

declare module "@/lib/harness" {
  interface HarnessErrorTypes {
    /** Personal access tokens for the MCP endpoint. */
    access_token: true;
  }
}

registerErrorType("access_token", { status: 401 });

/**
 * A refusal the MCP endpoint answers with 401; the message is safe to show. Part of the core's
 * error family: code `access_token:<reason>`.
 */
export class AccessTokenError extends HarnessError {
  private readonly [accessTokenErrorMarker] = true;

  constructor(
    readonly reason: AccessTokenErrorReason,
    message: string,
  ) {
    super({ code: `access_token:${reason}`, message });
  }

  static override isInstance(error: unknown): error is AccessTokenError {
    return hasErrorMarker(error, accessTokenErrorMarker);
  }
}

/** SHA-256 (hex) of a token: what the database stores and looks up. */
export function hashAccessToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

/** A fresh token: `cairn_pat_` + 43 base64url characters (256 random bits). */
export function generateAccessToken(): string {
  return ACCESS_TOKEN_PREFIX + randomBytes(RANDOM_BYTES).toString("base64url");
}

const TOKEN_PATTERN = new RegExp(`^${ACCESS_TOKEN_PREFIX}[A-Za-z0-9_-]{43}$`);

/** Whether `value` has the shape of a Cairn token (says nothing about whether it is valid). */
export function looksLikeAccessToken(value: string): boolean {
  return TOKEN_PATTERN.test(value);
}

/**
 * Creates a token for a person in a workspace they belong to, bound to that membership (it
 * ends with it: see `authenticateAccessToken`). Returns the token itself — shown once, never
 * stored — and its public fields. `expiresAt` in the past is refused.
 */
export async function createAccessToken(
  sql: Sql,
  input: {
    userId: string;
    workspaceId: string;
    name: string;
    expiresAt?: Date | null;
    now?: Date;
    /** For the audit log: `web` (Settings → Tokens, the default) or `cli`. */
    via?: AuditVia;
  },
): Promise<{ token: string; record: AccessTokenView }> {
  const name = tokenNameSchema.parse(input.name);
  const now = input.now ?? new Date();
  if (input.expiresAt && input.expiresAt.getTime() <= now.getTime()) {
    throw new AccessTokenError("expired", "The expiry date must be in the future.");
  }
  const membership = await sql.get<{ id: string }>(
    `SELECT "id" FROM "Membership" WHERE "userId" = ? AND "workspaceId" = ?`,
    [input.userId, input.workspaceId],
  );
  if (!membership) {
    throw new AccessTokenError("no_membership", "That person is not a member of the workspace.");
  }
  const token = generateAccessToken();
  const record = await sql.transaction(async (tx) => {
    const created = viewOf(
      (await tx.get<ViewRow>(
        `INSERT INTO "PersonalAccessToken"
           ("id", "userId", "workspaceId", "membershipId", "name", "tokenHash", "prefix", "createdAt", "expiresAt")
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
         RETURNING ${VIEW_COLUMNS}`,
        [
          createId(),
          input.userId,
          input.workspaceId,
          membership.id,
          name,
          hashAccessToken(token),
          token.slice(0, SHOWN_CHARACTERS),
          now,
          input.expiresAt ?? null,
        ],
      ))!,
    );
    await recordAuditEvent(tx, {
      workspaceId: input.workspaceId,
      actorId: input.userId,
      kind: "token.created",
      target: { type: "token", id: created.id },
      details: {
        name,
        prefix: created.prefix,
        expiresAt: created.expiresAt?.toISOString() ?? null,
      },
      via: input.via ?? "web",
      at: now,
    });
    return created;
  });
  return { token, record };
}

/** Whether a token still works (`active`), ran out, or was revoked. */
export type AccessTokenState = "active" | "expired" | "revoked";

/** The person's tokens for one workspace, newest first, each with its state at `now`. */
export async function listAccessTokens(
  sql: SqlExecutor,
  input: { userId: string; workspaceId: string; now?: Date },
): Promise<Array<AccessTokenView & { state: AccessTokenState }>> {
  const now = (input.now ?? new Date()).getTime();
  const rows = (
    await sql.all<ViewRow>(
      `SELECT ${VIEW_COLUMNS} FROM "PersonalAccessToken"
       WHERE "userId" = ? AND "workspaceId" = ? ORDER BY "createdAt" DESC`,
      [input.userId, input.workspaceId],
    )
  ).map(viewOf);
  return rows.map((row) => ({
    ...row,
    state: row.revokedAt
      ? "revoked"
      : row.expiresAt && row.expiresAt.getTime() <= now
        ? "expired"
        : "active",
  }));
}

/**
 * Revokes one of the person's own tokens (in the given workspace). Returns whether a token was
 * revoked now; someone else's token, an unknown id or an already revoked token changes nothing.
 */
export async function revokeAccessToken(
  sql: Sql,
  input: { userId: string; workspaceId: string; id: string; now?: Date },
): Promise<boolean> {
  const now = input.now ?? new Date();
  return sql.transaction(async (tx) => {
    const result = await tx.run(
      `UPDATE "PersonalAccessToken" SET "revokedAt" = ?
       WHERE "id" = ? AND "userId" = ? AND "workspaceId" = ? AND "revokedAt" IS NULL`,
      [now, input.id, input.userId, input.workspaceId],
    );
    if (result.changes !== 1) return false;
    await recordAuditEvent(tx, {
      workspaceId: input.workspaceId,
      actorId: input.userId,
      kind: "token.revoked",
      target: { type: "token", id: input.id },
      via: "web",
      at: now,
    });
    return true;
  });
}

/**
 * Revokes every live token a person holds in a workspace (their removal from it). Takes the
 * database or a transaction, so the removal and the revocation commit together. Returns how
 * many were revoked.
 */
export async function revokeMemberAccessTokens(
  sql: SqlExecutor,
  input: { userId: string; workspaceId: string; now?: Date },
): Promise<number> {
  const result = await sql.run(
    `UPDATE "PersonalAccessToken" SET "revokedAt" = ?
     WHERE "userId" = ? AND "workspaceId" = ? AND "revokedAt" IS NULL`,
    [input.now ?? new Date(), input.userId, input.workspaceId],
  );
  return result.changes;
}

/** Who a valid token acts as, and what the MCP endpoint records about it. */
export interface AccessTokenIdentity {
  actor: Actor;
  token: { id: string; name: string; clientName: string | null };
}

/**
 * Checks a bearer token and returns the Actor it acts as. The role comes from the membership
 * row on every call (as for the web app), so a demotion or a removal takes effect at once.
 * A token works only under the membership that issued it: removal revokes it
 * (`revokeMemberAccessTokens`), and even one that escaped revocation is refused once its
 * membership row is gone — a person removed and added again has a new membership, and their
 * old tokens stay dead. Throws `AccessTokenError` for a missing, malformed, unknown, expired or
 * revoked token, or when the person is no longer a member. Records the last use (at most once
 * a minute).
 */
export async function authenticateAccessToken(
  sql: SqlExecutor,
  input: { token: string | null | undefined; now?: Date },
): Promise<AccessTokenIdentity> {
  const token = input.token?.trim() ?? "";
  if (token === "") throw new AccessTokenError("missing", "A bearer token is required.");
  if (!looksLikeAccessToken(token)) {
    throw new AccessTokenError("malformed", "That is not a Cairn access token.");
  }
  const hash = hashAccessToken(token);
  const found = await sql.get<{
    id: string;
    name: string;
    tokenHash: string;
    userId: string;
    workspaceId: string;
    expiresAt: unknown;
    revokedAt: unknown;
    lastUsedAt: unknown;
    clientName: string | null;
    membershipId: string | null;
  }>(
    `SELECT "id", "name", "tokenHash", "userId", "workspaceId", "expiresAt", "revokedAt",
            "lastUsedAt", "clientName", "membershipId"
     FROM "PersonalAccessToken" WHERE "tokenHash" = ?`,
    [hash],
  );
  const row = found && {
    ...found,
    expiresAt: toDateOrNull(found.expiresAt),
    revokedAt: toDateOrNull(found.revokedAt),
    lastUsedAt: toDateOrNull(found.lastUsedAt),
  };
  // The lookup is by hash; compare again in constant time so no timing tells a near miss.
  if (!row || !timingSafeEqual(Buffer.from(row.tokenHash), Buffer.from(hash))) {
    throw new AccessTokenError("unknown", "The access token is not valid.");
  }
  const now = input.now ?? new Date();
  if (row.revokedAt) throw new AccessTokenError("revoked", "The access token was revoked.");
  if (row.expiresAt && row.expiresAt.getTime() <= now.getTime()) {
    throw new AccessTokenError("expired", "The access token has expired.");
  }
  const membership = await sql.get<{ id: string; role: string }>(
    `SELECT "id", "role" FROM "Membership" WHERE "userId" = ? AND "workspaceId" = ?`,
    [row.userId, row.workspaceId],
  );
  if (!membership || !isRole(membership.role)) {
    throw new AccessTokenError(
      "no_membership",
      "The token's owner is no longer a member of its workspace.",
    );
  }
  // Compared by id, not by dates: clocks of several instances need not agree, ids never repeat.
  if (row.membershipId !== membership.id) {
    throw new AccessTokenError(
      "revoked",
      "The access token ended with the membership that issued it; create a new one.",
    );
  }
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
    await sql.run(`UPDATE "PersonalAccessToken" SET "lastUsedAt" = ? WHERE "id" = ?`, [
      now,
      row.id,
    ]);
  }
  return {
    actor: { userId: row.userId, workspaceId: row.workspaceId, role: membership.role },
    token: { id: row.id, name: row.name, clientName: row.clientName },
  };
}

/** Remembers the client's self-reported name (MCP `clientInfo`) for provenance. */
export async function recordAccessTokenClient(
  sql: SqlExecutor,
  input: { id: string; clientName: string },
): Promise<void> {
  const clientName = input.clientName
    .replace(/[\u0000-\u001f\u007f]/g, " ")
    .trim()
    .slice(0, 100);
  if (clientName === "") return;
  await sql.run(`UPDATE "PersonalAccessToken" SET "clientName" = ? WHERE "id" = ?`, [
    clientName,
    input.id,
  ]);
}

/** How a change made with this token is labelled in histories: `mcp:<token name> (<client>)`. */
export function accessTokenVia(token: { name: string; clientName: string | null }): string {
  return `mcp:${token.name}${token.clientName ? ` (${token.clientName})` : ""}`;
}
