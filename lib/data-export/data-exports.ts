import { recordAuditEvent } from "@/lib/audit";
import { randomUUID } from "node:crypto";
import type { JobQueue } from "@/lib/jobs/job-queue";
import { HarnessConflictError, type Actor } from "@/lib/harness";
import type { Sql } from "@/lib/sql-storage";
import { toBytes, toDate, toDateOrNull } from "@/lib/sql-storage/sql";
import { buildPersonalExport } from "./build-personal-export";

/** The queue that builds exports. */
export const DATA_EXPORT_JOB = "data-export";

/** How long a ready export can be downloaded before it is removed. */
export const DATA_EXPORT_KEEP_DAYS = 7;

/** The zip is kept in chunks of this many bytes (one row each). */
const CHUNK_BYTES = 1024 * 1024;

const DAY_MS = 24 * 60 * 60 * 1000;

export type DataExportStatus = "queued" | "building" | "ready" | "failed";

/** One export as its owner sees it. */
export interface DataExportView {
  id: string;
  status: DataExportStatus;
  bytes: number | null;
  error: string | null;
  createdAt: Date;
  finishedAt: Date | null;
  expiresAt: Date | null;
}

export interface DataExportJobPayload {
  exportId: string;
}

interface ExportRow {
  id: string;
  workspaceId: string;
  userId: string;
  status: string;
  bytes: number | bigint | null;
  error: string | null;
  createdAt: unknown;
  finishedAt: unknown;
  expiresAt: unknown;
}

const COLUMNS = `"id", "workspaceId", "userId", "status", "bytes", "error", "createdAt", "finishedAt", "expiresAt"`;

function viewOf(row: ExportRow): DataExportView {
  return {
    id: row.id,
    status: row.status as DataExportStatus,
    bytes: row.bytes === null ? null : Number(row.bytes),
    error: row.error,
    createdAt: toDate(row.createdAt),
    finishedAt: toDateOrNull(row.finishedAt),
    expiresAt: toDateOrNull(row.expiresAt),
  };
}

/**
 * Asks for a new export of `actor`'s data and queues its build. One at a time per person and
 * workspace: while one is queued or building, another request is refused (`conflict:export`).
 * Expired exports of everyone are removed on the way.
 */
export async function requestDataExport(options: {
  sql: Sql;
  queue: JobQueue;
  actor: Pick<Actor, "userId" | "workspaceId">;
  now?: Date;
}): Promise<DataExportView> {
  const { sql, actor } = options;
  const now = options.now ?? new Date();
  await removeExpiredExports({ sql, now });
  const id = randomUUID();
  await sql.transaction(async (tx) => {
    const busy = await tx.get(
      `SELECT "id" FROM "DataExport"
       WHERE "userId" = ? AND "workspaceId" = ? AND "status" IN ('queued', 'building')`,
      [actor.userId, actor.workspaceId],
    );
    if (busy) {
      throw new HarnessConflictError({
        surface: "export",
        message: "An export of your data is being prepared already; it appears below when ready.",
      });
    }
    await tx.run(
      `INSERT INTO "DataExport" ("id", "workspaceId", "userId", "status", "createdAt")
       VALUES (?, ?, ?, 'queued', ?)`,
      [id, actor.workspaceId, actor.userId, now],
    );
    await recordAuditEvent(tx, {
      workspaceId: actor.workspaceId,
      actorId: actor.userId,
      kind: "export.requested",
      target: { type: "export", id },
      via: "web",
      at: now,
    });
  });
  await options.queue.enqueue<DataExportJobPayload>(
    DATA_EXPORT_JOB,
    { exportId: id },
    { id, retryLimit: 2, retryDelaySeconds: 5 },
  );
  return {
    id,
    status: "queued",
    bytes: null,
    error: null,
    createdAt: now,
    finishedAt: null,
    expiresAt: null,
  };
}

/**
 * The `data-export` job: builds the zip and stores it. Idempotent — a retry (or a second worker
 * after a crash) rebuilds from scratch and replaces any chunks a failed attempt left; an export
 * that is ready already, or gone, is left alone. The last attempt's failure is recorded in words.
 */
export function dataExportJob(options: { sql: () => Sql; retryLimit?: number }) {
  return async (job: { payload: DataExportJobPayload; retryCount: number }): Promise<void> => {
    const sql = options.sql();
    const row = await sql.get<ExportRow>(`SELECT ${COLUMNS} FROM "DataExport" WHERE "id" = ?`, [
      job.payload.exportId,
    ]);
    if (!row || row.status === "ready") return;
    await sql.run(`UPDATE "DataExport" SET "status" = 'building' WHERE "id" = ?`, [row.id]);
    try {
      const { zip } = await buildPersonalExport({
        sql,
        actor: { userId: row.userId, workspaceId: row.workspaceId },
      });
      const finished = new Date();
      await sql.transaction(async (tx) => {
        await tx.run(`DELETE FROM "DataExportChunk" WHERE "exportId" = ?`, [row.id]);
        for (let offset = 0, seq = 0; offset < zip.length; offset += CHUNK_BYTES, seq += 1) {
          await tx.run(
            `INSERT INTO "DataExportChunk" ("exportId", "seq", "bytes") VALUES (?, ?, ?)`,
            [row.id, seq, zip.subarray(offset, offset + CHUNK_BYTES)],
          );
        }
        await tx.run(
          `UPDATE "DataExport" SET "status" = 'ready', "bytes" = ?, "error" = NULL,
             "finishedAt" = ?, "expiresAt" = ? WHERE "id" = ?`,
          [
            zip.length,
            finished,
            new Date(finished.getTime() + DATA_EXPORT_KEEP_DAYS * DAY_MS),
            row.id,
          ],
        );
      });
    } catch (error) {
      const last = job.retryCount >= (options.retryLimit ?? 2);
      await sql.run(
        `UPDATE "DataExport" SET "status" = ?, "error" = ?, "finishedAt" = ? WHERE "id" = ?`,
        [
          last ? "failed" : "queued",
          last
            ? "The export could not be built. Try again; if it keeps failing, tell an admin."
            : null,
          last ? new Date() : null,
          row.id,
        ],
      );
      throw error;
    }
  };
}

/** `actor`'s exports in the current workspace, newest first (at most 20). */
export async function listDataExports(options: {
  sql: Sql;
  actor: Pick<Actor, "userId" | "workspaceId">;
  now?: Date;
}): Promise<DataExportView[]> {
  const rows = await options.sql.all<ExportRow>(
    `SELECT ${COLUMNS} FROM "DataExport"
     WHERE "userId" = ? AND "workspaceId" = ? AND ("expiresAt" IS NULL OR "expiresAt" > ?)
     ORDER BY "createdAt" DESC LIMIT 20`,
    [options.actor.userId, options.actor.workspaceId, options.now ?? new Date()],
  );
  return rows.map(viewOf);
}

/**
 * A ready, unexpired export's bytes — only for the person it belongs to, in the workspace it was
 * made in; `null` for anything else (someone else's, expired, not ready, unknown), so a guess
 * learns nothing.
 */
export async function readDataExport(options: {
  sql: Sql;
  actor: Pick<Actor, "userId" | "workspaceId">;
  id: string;
  now?: Date;
}): Promise<{ view: DataExportView; zip: Buffer } | null> {
  const row = await options.sql.get<ExportRow>(
    `SELECT ${COLUMNS} FROM "DataExport"
     WHERE "id" = ? AND "userId" = ? AND "workspaceId" = ? AND "status" = 'ready' AND "expiresAt" > ?`,
    [options.id, options.actor.userId, options.actor.workspaceId, options.now ?? new Date()],
  );
  if (!row) return null;
  const chunks = await options.sql.all<{ bytes: unknown }>(
    `SELECT "bytes" FROM "DataExportChunk" WHERE "exportId" = ? ORDER BY "seq" ASC`,
    [row.id],
  );
  const zip = Buffer.concat(chunks.map((chunk) => toBytes(chunk.bytes)));
  return { view: viewOf(row), zip };
}

/** Removes exports past their expiry, with their bytes. Returns how many. */
export async function removeExpiredExports(options: { sql: Sql; now?: Date }): Promise<number> {
  const now = options.now ?? new Date();
  return options.sql.transaction(async (tx) => {
    await tx.run(
      `DELETE FROM "DataExportChunk" WHERE "exportId" IN
         (SELECT "id" FROM "DataExport" WHERE "expiresAt" IS NOT NULL AND "expiresAt" <= ?)`,
      [now],
    );
    const { changes } = await tx.run(
      `DELETE FROM "DataExport" WHERE "expiresAt" IS NOT NULL AND "expiresAt" <= ?`,
      [now],
    );
    return changes;
  });
}
