import { z } from "zod";

import { recordAuditEvent } from "@/lib/audit";
import type { Sql } from "@/lib/sql-storage/sql";

/** Days, or null for forever. */
const days = z.union([z.null(), z.coerce.number().int().min(1).max(36_500)]);

/** A workspace's retention (Admin → Settings → Retention): chats and audit events, in days. */
export const retentionSettingsSchema = z.object({
  /** Chats with no activity for this many days are deleted; null: kept forever (the default). */
  chatRetentionDays: days,
  /** Audit events older than this many days are deleted; null: kept forever (the default). */
  auditRetentionDays: days,
});

export type RetentionSettingsValues = z.infer<typeof retentionSettingsSchema>;

export const DEFAULT_RETENTION: RetentionSettingsValues = {
  chatRetentionDays: null,
  auditRetentionDays: null,
};

export async function getRetentionSettings(options: {
  sql: Sql;
  workspaceId: string;
}): Promise<RetentionSettingsValues> {
  const row = await options.sql.get<{
    chatRetentionDays: number | null;
    auditRetentionDays: number | null;
  }>(
    `SELECT "chatRetentionDays", "auditRetentionDays" FROM "RetentionSettings" WHERE "workspaceId" = ?`,
    [options.workspaceId],
  );
  if (!row) return DEFAULT_RETENTION;
  return {
    chatRetentionDays: row.chatRetentionDays === null ? null : Number(row.chatRetentionDays),
    auditRetentionDays: row.auditRetentionDays === null ? null : Number(row.auditRetentionDays),
  };
}

/** Saves a workspace's retention, with its audit event (`retention.changed`) in one transaction. */
export async function saveRetentionSettings(options: {
  sql: Sql;
  workspaceId: string;
  by: string;
  values: RetentionSettingsValues;
  now?: Date;
}): Promise<void> {
  const now = options.now ?? new Date();
  const { values } = options;
  await options.sql.transaction(async (tx) => {
    const before = await tx.get<{
      chatRetentionDays: number | null;
      auditRetentionDays: number | null;
    }>(
      `SELECT "chatRetentionDays", "auditRetentionDays" FROM "RetentionSettings" WHERE "workspaceId" = ?`,
      [options.workspaceId],
    );
    await tx.run(
      `INSERT INTO "RetentionSettings" ("workspaceId", "chatRetentionDays", "auditRetentionDays", "updatedAt", "updatedBy")
       VALUES (?, ?, ?, ?, ?)
       ON CONFLICT ("workspaceId") DO UPDATE SET "chatRetentionDays" = excluded."chatRetentionDays",
         "auditRetentionDays" = excluded."auditRetentionDays", "updatedAt" = excluded."updatedAt",
         "updatedBy" = excluded."updatedBy"`,
      [options.workspaceId, values.chatRetentionDays, values.auditRetentionDays, now, options.by],
    );
    const same =
      (before?.chatRetentionDays ?? null) === values.chatRetentionDays &&
      (before?.auditRetentionDays ?? null) === values.auditRetentionDays;
    if (same) return;
    await recordAuditEvent(tx, {
      workspaceId: options.workspaceId,
      actorId: options.by,
      kind: "retention.changed",
      target: { type: "workspace", id: options.workspaceId },
      details: { chatDays: values.chatRetentionDays, auditDays: values.auditRetentionDays },
      via: "web",
      at: now,
    });
  });
}
