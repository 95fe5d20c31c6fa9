import { createHash, randomUUID } from "node:crypto";

import type { SqlExecutor, SqlValue } from "@/lib/sql-storage/sql";
import { nextHarnessVersion } from "@/lib/sql-storage/harness-storage";

/**
 * The statements of an erasure, each taking the caller's transaction. Everything goes
 * including history: a dir's files, versions and their text, bodies no other dir holds, its
 * search passages, failed commits and turn journals; a chat's messages, turns and ratings,
 * its local harness entries with every revision, its local refinements (whose edits quote the
 * entries). Nothing here checks who may do it: the callers (`erasure.ts`) do.
 */

/** Which chats: a `WHERE` over `"Chat"` and its parameters. */
export interface ChatSelection {
  where: string;
  params: SqlValue[];
}

const chatIds = (chats: ChatSelection) => `SELECT "id" FROM "Chat" WHERE ${chats.where}`;

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

/**
 * Deletes a database-backed dir whole, with its history. The dir's version moves on by one
 * (with no files), so every process's snapshot and index caches, which trust a version they
 * know, read it afresh. Bodies this dir held (its files', and its history's text versions by
 * their hash) are deleted when no file of any dir holds them — a body shared with another dir
 * stays — and no commit wrote them since `startedAt` (a commit under way keeps its body).
 */
export async function eraseDirInTransaction(
  tx: SqlExecutor,
  options: { dirKey: string; startedAt: Date; audience?: string },
): Promise<{ files: number; versions: number }> {
  const { dirKey } = options;
  const hashes = new Set(
    (
      await tx.all<{ sha256: string }>(`SELECT "sha256" FROM "PersistentFile" WHERE "dirKey" = ?`, [
        dirKey,
      ])
    ).map((row) => row.sha256),
  );
  const history = await tx.all<{
    contents: string | null;
    historyBytes: number;
    quotaKey: string | null;
  }>(`SELECT "contents", "historyBytes", "quotaKey" FROM "DirCommit" WHERE "dirKey" = ?`, [dirKey]);
  const byQuota = new Map<string, number>();
  for (const row of history) {
    if (row.quotaKey)
      byQuota.set(row.quotaKey, (byQuota.get(row.quotaKey) ?? 0) + Number(row.historyBytes));
    if (!row.contents) continue;
    try {
      const contents = JSON.parse(row.contents) as Record<string, unknown>;
      for (const text of Object.values(contents))
        if (typeof text === "string") hashes.add(sha256(text));
    } catch {
      // A malformed history row has no text to find bodies by.
    }
  }
  const files = (await tx.run(`DELETE FROM "PersistentFile" WHERE "dirKey" = ?`, [dirKey])).changes;
  await tx.run(`DELETE FROM "DirCommit" WHERE "dirKey" = ?`, [dirKey]);
  for (const [quotaKey, bytes] of byQuota) {
    await tx.run(
      `UPDATE "DirHistoryUsage" SET "bytes" = CASE WHEN "bytes" > ? THEN "bytes" - ? ELSE 0 END, "updatedAt" = ? WHERE "quotaKey" = ?`,
      [bytes, bytes, options.startedAt, quotaKey],
    );
  }
  await tx.run(
    `UPDATE "PersistentDirState" SET "version" = "version" + 1, "historyBytes" = 0, "updatedAt" = ? WHERE "dirKey" = ?`,
    [options.startedAt, dirKey],
  );
  const list = [...hashes];
  for (let index = 0; index < list.length; index += 500) {
    const chunk = list.slice(index, index + 500);
    await tx.run(
      `DELETE FROM "FileBody" WHERE "sha256" IN (${chunk.map(() => "?").join(", ")})
         AND "touchedAt" < ?
         AND NOT EXISTS (SELECT 1 FROM "PersistentFile" f WHERE f."sha256" = "FileBody"."sha256")`,
      [...chunk, options.startedAt],
    );
  }
  await tx.run(`DELETE FROM "SearchPassage" WHERE "sourceKey" >= ? AND "sourceKey" < ?`, [
    `dir:${dirKey}:`,
    `dir:${dirKey};`,
  ]);
  return { files, versions: history.length };
}

/**
 * Deletes the local harness entries of the selected chats with every revision, and their
 * local refinements. Each deleted entry leaves one tombstone revision at a new harness version
 * (its key — kind, chat, id — and nothing of its title or content), so every process's
 * snapshot cache, which catches up by revisions, drops it too.
 */
export async function eraseLocalEntriesInTransaction(
  tx: SqlExecutor,
  options: { workspaceId: string; chats: ChatSelection; actorId: string; at: Date },
): Promise<number> {
  const { workspaceId, chats } = options;
  const entries = await tx.all<{
    entryKey: string;
    id: string;
    kind: string;
    chatId: string;
    createdAt: unknown;
  }>(
    `SELECT "entryKey", "id", "kind", "chatId", "createdAt" FROM "HarnessEntry"
     WHERE "workspaceId" = ? AND "scope" = 'local' AND "chatId" IN (${chatIds(chats)})`,
    [workspaceId, ...chats.params],
  );
  // Revisions of entries already deleted (no head row) go too: select by chat, not by entry.
  await tx.run(
    `DELETE FROM "HarnessRevision" WHERE "workspaceId" = ? AND "scope" = 'local' AND "chatId" IN (${chatIds(chats)})`,
    [workspaceId, ...chats.params],
  );
  await tx.run(
    `DELETE FROM "Refinement" WHERE "workspaceId" = ? AND "scope" = 'local' AND "chatId" IN (${chatIds(chats)})`,
    [workspaceId, ...chats.params],
  );
  if (entries.length === 0) return 0;
  await tx.run(
    `DELETE FROM "HarnessEntry" WHERE "workspaceId" = ? AND "scope" = 'local' AND "chatId" IN (${chatIds(chats)})`,
    [workspaceId, ...chats.params],
  );
  const version = await nextHarnessVersion(tx, workspaceId);
  const at = options.at.toISOString();
  for (const entry of entries) {
    const tombstone = {
      id: entry.id,
      kind: entry.kind,
      scope: "local",
      chatId: entry.chatId,
      title: "",
      content: "",
      path: "erased",
      metadata: {},
      pinned: false,
      source: "user",
      version: 0,
      createdAt: at,
      updatedAt: at,
      createdBy: options.actorId,
      updatedBy: options.actorId,
    };
    await tx.run(
      `INSERT INTO "HarnessRevision" ("id", "workspaceId", "entryKey", "entryId", "kind", "scope", "chatId", "action", "before", "after", "actorId", "reason", "cause", "via", "harnessVersion", "createdAt")
       VALUES (?, ?, ?, ?, ?, 'local', ?, 'delete', ?, NULL, ?, 'erased', 'manual', NULL, ?, ?)`,
      [
        randomUUID(),
        workspaceId,
        entry.entryKey,
        entry.id,
        entry.kind,
        entry.chatId,
        JSON.stringify(tombstone),
        options.actorId,
        version,
        options.at,
      ],
    );
  }
  return entries.length;
}

/**
 * Deletes the selected chats with everything of theirs: messages (their search passages go by
 * the index's triggers), turns, ratings, the turn claim, turn journals and failed commits of
 * their turns. Local entries first (`eraseLocalEntriesInTransaction`). Returns how many chats.
 */
export async function deleteChatsInTransaction(
  tx: SqlExecutor,
  options: { workspaceId: string; chats: ChatSelection; actorId: string; at: Date },
): Promise<{ chats: number; entries: number }> {
  const { chats } = options;
  const entries = await eraseLocalEntriesInTransaction(tx, options);
  const turns = `SELECT "id" FROM "Turn" WHERE "chatId" IN (${chatIds(chats)})`;
  await tx.run(`DELETE FROM "TurnJournalEntry" WHERE "turnId" IN (${turns})`, chats.params);
  await tx.run(`DELETE FROM "DirCommitRecord" WHERE "turnId" IN (${turns})`, chats.params);
  await tx.run(`DELETE FROM "TurnOutcome" WHERE "chatId" IN (${chatIds(chats)})`, chats.params);
  await tx.run(`DELETE FROM "ChatTurnClaim" WHERE "chatId" IN (${chatIds(chats)})`, chats.params);
  await tx.run(`DELETE FROM "Turn" WHERE "chatId" IN (${chatIds(chats)})`, chats.params);
  await tx.run(`DELETE FROM "ChatMessage" WHERE "chatId" IN (${chatIds(chats)})`, chats.params);
  await tx.run(`DELETE FROM "SearchPassage" WHERE "chatId" IN (${chatIds(chats)})`, chats.params);
  const removed = await tx.run(`DELETE FROM "Chat" WHERE ${chats.where}`, chats.params);
  return { chats: removed.changes, entries };
}

/** Deletes a person's data exports (the zips hold their chats and memory). */
export async function deleteExportsInTransaction(
  tx: SqlExecutor,
  options: { userId: string; workspaceId?: string },
): Promise<number> {
  const where = options.workspaceId ? `"userId" = ? AND "workspaceId" = ?` : `"userId" = ?`;
  const params = options.workspaceId ? [options.userId, options.workspaceId] : [options.userId];
  await tx.run(
    `DELETE FROM "DataExportChunk" WHERE "exportId" IN (SELECT "id" FROM "DataExport" WHERE ${where})`,
    params,
  );
  return (await tx.run(`DELETE FROM "DataExport" WHERE ${where}`, params)).changes;
}
