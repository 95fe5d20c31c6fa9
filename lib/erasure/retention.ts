import { recordAuditEvent } from "@/lib/audit";
import type { JobQueue } from "@/lib/jobs";
import type { Sql } from "@/lib/sql-storage/sql";

import { deleteChatsInTransaction } from "./erase-in-transaction";

export const RETENTION_JOB = "retention";
/** Once an hour: a chat past its window goes within the hour. */
export const RETENTION_INTERVAL_SECONDS = 60 * 60;
const DAY_MS = 24 * 60 * 60 * 1000;
/** Chats deleted per transaction, so a first run over years of chats never holds a lock long. */
const CHATS_PER_BATCH = 200;

/** What one retention run removed, per workspace with a retention set. */
export interface RetentionResult {
  workspaces: number;
  chats: number;
  auditEvents: number;
}

/**
 * Applies every workspace's retention (`RetentionSettings`): deletes the chats whose last
 * activity (`Chat.updatedAt`, moved by every turn) is older than `chatRetentionDays` — with
 * their messages, turns, ratings and local entries with history, as an erasure does — and the
 * audit events older than `auditRetentionDays`. Workspaces with no setting (forever) are not
 * touched. Each batch of chats is one transaction with its `retention.applied` audit event;
 * the audit log's own deletions are recorded as one event per run after them.
 */
export async function applyRetention(options: { sql: Sql; now?: Date }): Promise<RetentionResult> {
  const { sql } = options;
  const now = options.now ?? new Date();
  const settings = await sql.all<{
    workspaceId: string;
    chatRetentionDays: number | null;
    auditRetentionDays: number | null;
  }>(
    `SELECT "workspaceId", "chatRetentionDays", "auditRetentionDays" FROM "RetentionSettings"
     WHERE "chatRetentionDays" IS NOT NULL OR "auditRetentionDays" IS NOT NULL`,
  );
  const result: RetentionResult = { workspaces: settings.length, chats: 0, auditEvents: 0 };
  for (const setting of settings) {
    const { workspaceId } = setting;
    if (setting.chatRetentionDays !== null) {
      const before = new Date(now.getTime() - Number(setting.chatRetentionDays) * DAY_MS);
      for (;;) {
        const batch = await sql.all<{ id: string }>(
          `SELECT "id" FROM "Chat" WHERE "workspaceId" = ? AND "updatedAt" < ? ORDER BY "updatedAt" LIMIT ?`,
          [workspaceId, before, CHATS_PER_BATCH],
        );
        if (batch.length === 0) break;
        const ids = batch.map((row) => row.id);
        const deleted = await sql.transaction(async (tx) => {
          // The age is checked again inside: a chat someone used meanwhile stays.
          const chats = {
            where: `"workspaceId" = ? AND "updatedAt" < ? AND "id" IN (${ids.map(() => "?").join(", ")})`,
            params: [workspaceId, before, ...ids],
          };
          const removed = await deleteChatsInTransaction(tx, {
            workspaceId,
            chats,
            actorId: "retention",
            at: now,
          });
          if (removed.chats > 0) {
            await recordAuditEvent(tx, {
              workspaceId,
              actorId: null,
              kind: "retention.applied",
              target: { type: "workspace", id: workspaceId },
              details: { chats: removed.chats, days: Number(setting.chatRetentionDays) },
              via: "job",
              at: now,
            });
          }
          return removed.chats;
        });
        result.chats += deleted;
        if (batch.length < CHATS_PER_BATCH) break;
      }
    }
    if (setting.auditRetentionDays !== null) {
      const before = new Date(now.getTime() - Number(setting.auditRetentionDays) * DAY_MS);
      const removed = await sql.transaction(async (tx) => {
        const { changes } = await tx.run(
          `DELETE FROM "AuditEvent" WHERE "workspaceId" = ? AND "createdAt" < ?`,
          [workspaceId, before],
        );
        if (changes > 0) {
          await recordAuditEvent(tx, {
            workspaceId,
            actorId: null,
            kind: "retention.applied",
            target: { type: "workspace", id: workspaceId },
            details: { auditEvents: changes, days: Number(setting.auditRetentionDays) },
            via: "job",
            at: now,
          });
        }
        return changes;
      });
      result.auditEvents += removed;
    }
  }
  return result;
}

/** Puts the next retention run on the queue (one waiting at a time across instances). */
export function scheduleRetention(options: {
  queue: JobQueue;
  startAfterSeconds?: number;
}): Promise<string | null> {
  return options.queue.enqueue(
    RETENTION_JOB,
    {},
    {
      singletonKey: RETENTION_JOB,
      startAfterSeconds: options.startAfterSeconds ?? RETENTION_INTERVAL_SECONDS,
      retryLimit: 2,
    },
  );
}

/** The retention job's handler: schedules the next run first, then applies retention. */
export function retentionJob(options: { sql: () => Sql; queue: () => JobQueue }) {
  return async () => {
    await scheduleRetention({ queue: options.queue() });
    return applyRetention({ sql: options.sql() });
  };
}
