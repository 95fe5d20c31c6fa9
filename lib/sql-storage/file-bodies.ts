// File bodies stored once by content hash (decision 0035): `PersistentFile` rows are a dir's
// manifest (path → sha256, size, text or bytes), `FileBody` holds each distinct body once,
// shared by every path and dir that holds the same bytes.
import { placeholders, type Sql, type SqlExecutor, type SqlValue } from "./sql";

/** How long a body no file holds is kept after a commit last wrote it, by default. */
export const FILE_BODY_GRACE_MS = 24 * 60 * 60 * 1000;

/** A body to store: its hash and bytes. */
export interface FileBodyWrite {
  sha256: string;
  bytes: Uint8Array;
}

/**
 * Stores `bodies` once each (inside the commit's transaction): a body already there is only
 * marked as written now (`touchedAt`), which keeps garbage collection off it — on PostgreSQL
 * the row lock this takes makes a concurrent collection wait and then see the new time.
 */
export async function writeFileBodies(options: {
  tx: SqlExecutor;
  bodies: readonly FileBodyWrite[];
  now: Date;
  rowsPerStatement: number;
}): Promise<void> {
  const unique = new Map<string, Uint8Array>();
  for (const body of options.bodies) unique.set(body.sha256, body.bytes);
  // A stable order: two commits writing the same bodies lock their rows in the same order.
  const rows = [...unique].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const perStatement = Math.max(1, options.rowsPerStatement);
  for (let index = 0; index < rows.length; index += perStatement) {
    const chunk = rows.slice(index, index + perStatement);
    const values: SqlValue[] = [];
    for (const [sha256, bytes] of chunk) values.push(sha256, bytes, bytes.byteLength, options.now);
    await options.tx.run(
      `INSERT INTO "FileBody" ("sha256", "content", "size", "touchedAt")
       VALUES ${chunk.map(() => "(?, ?, ?, ?)").join(", ")}
       ON CONFLICT ("sha256") DO UPDATE SET "touchedAt" = excluded."touchedAt"`,
      values,
    );
  }
}

/**
 * Deletes the bodies no file holds any more and no commit has written since `before` (a grace
 * period, so a commit that is writing one right now keeps it). Returns how many went and their
 * bytes. Runs with the history compaction job and `cairn dirs compact`.
 */
export async function collectUnreferencedFileBodies(options: {
  sql: Sql;
  before: Date;
  /** At most this many per call (default 10,000); call again while `more`. */
  limit?: number;
  abortSignal?: AbortSignal;
}): Promise<{ deleted: number; bytes: number; more: boolean }> {
  const limit = options.limit ?? 10_000;
  options.abortSignal?.throwIfAborted();
  const candidates = await options.sql.all<{ sha256: string; size: number }>(
    `SELECT b."sha256", b."size" FROM "FileBody" b
     WHERE b."touchedAt" < ?
       AND NOT EXISTS (SELECT 1 FROM "PersistentFile" f WHERE f."sha256" = b."sha256")
     ORDER BY b."sha256" LIMIT ?`,
    [options.before, limit],
  );
  let deleted = 0;
  let bytes = 0;
  const perStatement = 500;
  for (let index = 0; index < candidates.length; index += perStatement) {
    options.abortSignal?.throwIfAborted();
    const chunk = candidates.slice(index, index + perStatement);
    // Checked again in the delete itself: a commit may have written one of them meanwhile.
    const removed = await options.sql.all<{ size: number }>(
      `DELETE FROM "FileBody" WHERE "sha256" IN (${placeholders(chunk.length)})
         AND "touchedAt" < ?
         AND NOT EXISTS (SELECT 1 FROM "PersistentFile" f WHERE f."sha256" = "FileBody"."sha256")
       RETURNING "size"`,
      [...chunk.map((row) => row.sha256), options.before],
    );
    deleted += removed.length;
    for (const row of removed) bytes += Number(row.size);
  }
  return { deleted, bytes, more: candidates.length === limit };
}
