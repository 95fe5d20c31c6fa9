import { randomUUID } from "node:crypto";

import { type SqlExecutor } from "@/lib/sql-storage/sql";

/**
 * Records a sign-in or a failed one. A sign-in has no transaction of its own to share (it
 * writes nothing else the log must agree with), so the event is its own statement:
 * - succeeded: in each workspace the person belongs to (a session may switch among them);
 * - failed for an account that exists: in each of its workspaces, with the method and reason;
 * - failed for an unknown email: an instance event (`workspaceId` of the instance's first
 *   workspace, as single sign-on settings are), with the email typed, so an admin sees
 *   guessing against the instance.
 * Refusals by the sign-in limits are not recorded one by one (a flood would fill the log):
 * they are in the metrics and the server log.
 */
export async function recordSignIn(input: {
  sql: SqlExecutor;
  outcome: "succeeded" | "failed";
  method: "password" | "oidc" | "github";
  /** The account; when null, the one `email` names (if any). */
  userId: string | null;
  email?: string;
  reason?: string;
  address?: string | null;
  at?: Date;
}): Promise<void> {
  let options = input;
  const { sql } = options;
  const userId =
    options.userId ??
    (options.email
      ? ((
          await sql.get<{ id: string }>(`SELECT "id" FROM "User" WHERE "email" = ?`, [
            options.email,
          ])
        )?.id ?? null)
      : null);
  options = { ...options, userId };
  const workspaceIds = options.userId
    ? (
        await sql.all<{ workspaceId: string }>(
          `SELECT "workspaceId" FROM "Membership" WHERE "userId" = ?`,
          [options.userId],
        )
      ).map((membership) => membership.workspaceId)
    : [];
  if (workspaceIds.length === 0) {
    const first = await sql.get<{ id: string }>(
      `SELECT "id" FROM "Workspace" ORDER BY "createdAt" ASC LIMIT 1`,
    );
    if (!first) return;
    workspaceIds.push(first.id);
  }
  const details = {
    method: options.method,
    ...(options.userId === null && options.email ? { email: options.email } : {}),
    ...(options.reason ? { reason: options.reason } : {}),
    ...(options.address ? { address: options.address } : {}),
  };
  // One statement for every workspace: atomic without an interactive transaction on the
  // sign-in path (on SQLite Prisma's own connection would hold the write lock across awaits).
  const at = options.at ?? new Date();
  // A failed attempt on an account was not made by its owner as far as anyone knows: the
  // account is the target, nobody the actor.
  const actorId = options.outcome === "succeeded" ? options.userId : null;
  const kind = options.outcome === "succeeded" ? "signin.succeeded" : "signin.failed";
  const targetType = options.userId ? "user" : null;
  const detailsText = JSON.stringify(details);
  await sql.run(
    `INSERT INTO "AuditEvent" ("id", "workspaceId", "actorId", "kind", "targetType", "targetId", "details", "via", "createdAt")
     VALUES ${workspaceIds.map(() => "(?, ?, ?, ?, ?, ?, ?, ?, ?)").join(", ")}`,
    workspaceIds.flatMap((workspaceId) => [
      randomUUID(),
      workspaceId,
      actorId,
      kind,
      targetType,
      options.userId,
      detailsText,
      "web",
      at,
    ]),
  );
}
