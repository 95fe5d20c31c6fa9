/**
 * The search index's writes: dir files are split into passages and written in the dir
 * commit's own transaction (`indexDirChanges`); chat messages and harness entries are written
 * by triggers on their tables (the migration), so every path that writes them — the SQL layer,
 * Prisma, a cascade — keeps the index in step. `reindexAll` rebuilds everything.
 */
import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";

import {
  placeholders,
  toBool,
  toBytes,
  toDate,
  type Sql,
  type SqlExecutor,
} from "@/lib/storage/sql";
import type { DirCommitted } from "@/lib/storage/dir-backing";
import { splitIntoPassages, type Passage } from "./passages";

/** What a passage was cut from. */
export type SearchKind = "memory" | "company" | "docs" | "harness" | "chat";
export const SEARCH_KINDS: readonly SearchKind[] = ["memory", "company", "docs", "harness", "chat"];

/** The row key of the read-only docs folder's passages (it is one for the whole server). */
export const DOCS_DIR_KEY = "docs";

/** The content of one changed file, as a change set carries it. */
type ChangedContent = string | Uint8Array;

/** A dir commit's change set, as much of it as the index reads. */
export interface IndexedDirChanges {
  created: readonly { path: string; content: ChangedContent }[];
  updated: readonly { path: string; content: ChangedContent }[];
  deleted: readonly string[];
}

/** Which kind and audience a dir's passages get, from its row key; `null`: not indexed. */
export function dirSearchTarget(dirKey: string): { kind: SearchKind; audience: string } | null {
  if (dirKey.startsWith("user:")) return { kind: "memory", audience: dirKey };
  if (dirKey.startsWith("company:")) {
    return { kind: "company", audience: `workspace:${dirKey.slice("company:".length)}` };
  }
  if (dirKey === DOCS_DIR_KEY) return { kind: "docs", audience: DOCS_DIR_KEY };
  return null;
}

/**
 * The audience of a chat's passages (its messages and local entries): its owner in its
 * workspace. Written by the triggers from "Chat"; a chat's owner and workspace never change.
 */
export const chatAudience = (userId: string, workspaceId: string) =>
  `chat:${userId}:${workspaceId}`;

export const dirSourceKey = (dirKey: string, filePath: string) => `dir:${dirKey}:${filePath}`;

const INSERT_PASSAGE = `INSERT INTO "SearchPassage"
  ("sourceKey", "kind", "audience", "chatId", "messageId", "path", "title", "body", "lineStart", "lineEnd", "updatedAt")
  VALUES (?, ?, ?, NULL, NULL, ?, ?, ?, ?, ?, ?)`;

/** Files per DELETE statement. */
const DELETE_CHUNK = 100;

/**
 * Indexes a dir commit's changes inside the commit's transaction `tx`: a deleted path's
 * passages go, a created file's come, an updated file's changed passages are replaced. A commit
 * that rolls back takes these rows with it; a rename (delete + create) leaves no stale hit.
 * Byte files are not indexed.
 */
export async function indexDirChanges(
  tx: SqlExecutor,
  options: { dirKey: string; changes: IndexedDirChanges; at?: Date },
): Promise<void> {
  const target = dirSearchTarget(options.dirKey);
  if (!target) return;
  const { changes, dirKey } = options;
  const at = options.at ?? new Date();
  // A created path had no file at the commit's base, so it has no passages; a deleted one (or
  // one that became bytes) loses all of its own.
  const removed = [
    ...changes.deleted,
    ...changes.updated.filter((file) => typeof file.content !== "string").map((file) => file.path),
  ].map((filePath) => dirSourceKey(dirKey, filePath));
  for (let start = 0; start < removed.length; start += DELETE_CHUNK) {
    const keys = removed.slice(start, start + DELETE_CHUNK);
    await tx.run(
      `DELETE FROM "SearchPassage" WHERE "sourceKey" IN (${placeholders(keys.length)})`,
      keys,
    );
  }
  for (const file of changes.created) {
    if (typeof file.content !== "string") continue;
    await insertFilePassages(tx, { ...target, dirKey, path: file.path, text: file.content, at });
  }
  for (const file of changes.updated) {
    if (typeof file.content !== "string") continue;
    await updateFilePassages(tx, { ...target, dirKey, path: file.path, text: file.content, at });
  }
}

interface StoredPassage {
  id: number;
  title: string;
  body: string;
  lineStart: number;
  lineEnd: number;
}

/**
 * An updated file's passages: those whose heading and text are unchanged stay (their line range
 * follows the file; an edit above them moves them), the others go, the new ones come. An edit
 * to one section re-indexes that section only, so the full-text index does work in proportion
 * to what changed.
 */
async function updateFilePassages(
  tx: SqlExecutor,
  file: {
    kind: SearchKind;
    audience: string;
    dirKey: string;
    path: string;
    text: string;
    at: Date;
  },
): Promise<void> {
  const sourceKey = dirSourceKey(file.dirKey, file.path);
  const stored = await tx.all<StoredPassage>(
    `SELECT "id", "title", "body", "lineStart", "lineEnd" FROM "SearchPassage" WHERE "sourceKey" = ?`,
    [sourceKey],
  );
  const unused = new Map<string, StoredPassage[]>();
  for (const row of stored) {
    const key = `${row.title}\u0000${row.body}`;
    unused.set(key, [...(unused.get(key) ?? []), row]);
  }
  const inserts: Passage[] = [];
  for (const passage of splitIntoPassages(file.text)) {
    const same = unused.get(`${passage.heading}\u0000${passage.text}`)?.shift();
    if (!same) {
      inserts.push(passage);
    } else if (
      Number(same.lineStart) !== passage.lineStart ||
      Number(same.lineEnd) !== passage.lineEnd
    ) {
      await tx.run(`UPDATE "SearchPassage" SET "lineStart" = ?, "lineEnd" = ? WHERE "id" = ?`, [
        passage.lineStart,
        passage.lineEnd,
        same.id,
      ]);
    }
  }
  const gone = [...unused.values()].flat().map((row) => Number(row.id));
  for (let start = 0; start < gone.length; start += DELETE_CHUNK) {
    const chunk = gone.slice(start, start + DELETE_CHUNK);
    await tx.run(
      `DELETE FROM "SearchPassage" WHERE "id" IN (${placeholders(chunk.length)})`,
      chunk,
    );
  }
  for (const passage of inserts) {
    await tx.run(INSERT_PASSAGE, [
      sourceKey,
      file.kind,
      file.audience,
      file.path,
      passage.heading,
      passage.text,
      passage.lineStart,
      passage.lineEnd,
      file.at,
    ]);
  }
}

async function insertFilePassages(
  tx: SqlExecutor,
  file: {
    kind: SearchKind;
    audience: string;
    dirKey: string;
    path: string;
    text: string;
    at: Date;
  },
): Promise<number> {
  const passages = splitIntoPassages(file.text);
  const sourceKey = dirSourceKey(file.dirKey, file.path);
  for (const passage of passages) {
    await tx.run(INSERT_PASSAGE, [
      sourceKey,
      file.kind,
      file.audience,
      file.path,
      passage.heading,
      passage.text,
      passage.lineStart,
      passage.lineEnd,
      file.at,
    ]);
  }
  return passages.length;
}

/**
 * The search index's part of a dir commit: `createDirBacking`'s `onDirCommitted`, run inside the
 * commit's own transaction, so a commit that rolls back indexes nothing.
 */
export function indexDirCommit(options: { tx: SqlExecutor; commit: DirCommitted }): Promise<void> {
  const { tx, commit } = options;
  return indexDirChanges(tx, {
    dirKey: commit.dirKey,
    changes: { created: commit.created, updated: commit.updated, deleted: commit.deleted },
    at: commit.at,
  });
}

/** Text files of a folder, recursively, as relative `/`-separated paths (hidden entries skipped). */
async function folderFiles(root: string): Promise<{ path: string; text: string; mtime: Date }[]> {
  const files: { path: string; text: string; mtime: Date }[] = [];
  const walk = async (relative: string) => {
    const entries = await readdir(path.join(root, relative), { withFileTypes: true });
    for (const entry of entries) {
      if (entry.name.startsWith(".")) continue;
      const child = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory()) await walk(child);
      else if (entry.isFile()) {
        const absolute = path.join(root, child);
        const info = await stat(absolute);
        if (info.size > 1024 * 1024) continue;
        const bytes = await readFile(absolute);
        // Text only: a NUL byte or invalid UTF-8 means bytes.
        if (bytes.includes(0)) continue;
        const text = new TextDecoder("utf-8", { fatal: false }).decode(bytes);
        if (text.includes("\uFFFD")) continue;
        files.push({ path: child.normalize("NFC"), text, mtime: info.mtime });
      }
    }
  };
  await walk("");
  return files;
}

/**
 * Replaces the docs folder's passages with the folder's current text files (one transaction).
 * The folder is read-only to Cairn, so this runs at start and on `cairn search reindex`.
 */
export async function indexDocsFolder(sql: Sql, folder: string): Promise<number> {
  const files = await folderFiles(folder);
  const target = dirSearchTarget(DOCS_DIR_KEY)!;
  return sql.transaction(async (tx) => {
    await tx.run(`DELETE FROM "SearchPassage" WHERE "kind" = 'docs'`);
    let count = 0;
    for (const file of files) {
      count += await insertFilePassages(tx, {
        ...target,
        dirKey: DOCS_DIR_KEY,
        path: file.path,
        text: file.text,
        at: file.mtime,
      });
    }
    return count;
  });
}

/** What `reindexAll` wrote, per kind. */
export type ReindexReport = Record<SearchKind, number>;

const ENTRY_PASSAGES_SQL = (lineCount: (column: string) => string) => `
INSERT INTO "SearchPassage" ("sourceKey", "kind", "audience", "chatId", "messageId", "path", "title", "body", "lineStart", "lineEnd", "updatedAt")
SELECT 'entry:' || e."workspaceId" || ':' || e."entryKey", 'harness',
       CASE WHEN e."scope" = 'local'
            THEN COALESCE((SELECT 'chat:' || c."userId" || ':' || c."workspaceId" FROM "Chat" AS c WHERE c."id" = e."chatId"), 'chat:')
            ELSE 'workspace:' || e."workspaceId" END,
       CASE WHEN e."scope" = 'local' THEN e."chatId" ELSE NULL END, NULL,
       e."path", e."title", e."content", 1, ${lineCount(`e."content"`)}, e."updatedAt"
FROM "HarnessEntry" AS e`;

/** A message row `m`'s passage audience (as the triggers write it). */
const CHAT_AUDIENCE_SQL = `COALESCE((SELECT 'chat:' || c."userId" || ':' || c."workspaceId" FROM "Chat" AS c WHERE c."id" = m."chatId"), 'chat:')`;

const SQLITE_MESSAGES_SQL = `
INSERT INTO "SearchPassage" ("sourceKey", "kind", "audience", "chatId", "messageId", "path", "title", "body", "lineStart", "lineEnd", "updatedAt")
SELECT 'msg:' || m."id", 'chat', ${CHAT_AUDIENCE_SQL}, m."chatId", m."id", '', '', m."body", 1,
       length(m."body") - length(replace(m."body", char(10), '')) + 1, m."createdAt"
FROM (SELECT c."id", c."chatId", c."createdAt",
             (SELECT group_concat(json_extract(value, '$.text'), char(10))
              FROM json_each(CASE WHEN json_valid(c."parts") AND json_type(c."parts") = 'array' THEN c."parts" ELSE '[]' END)
              WHERE json_extract(value, '$.type') = 'text' AND json_type(value, '$.text') = 'text') AS "body"
      FROM "ChatMessage" AS c) AS m
WHERE m."body" IS NOT NULL AND trim(m."body") <> ''`;

const POSTGRES_MESSAGES_SQL = `
INSERT INTO "SearchPassage" ("sourceKey", "kind", "audience", "chatId", "messageId", "path", "title", "body", "lineStart", "lineEnd", "updatedAt")
SELECT 'msg:' || m."id", 'chat', ${CHAT_AUDIENCE_SQL}, m."chatId", m."id", '', '', m."body", 1, "search_line_count"(m."body"), m."createdAt"
FROM (SELECT "id", "chatId", "createdAt", "search_message_text"("parts") AS "body" FROM "ChatMessage") AS m
WHERE m."body" IS NOT NULL AND btrim(m."body") <> ''`;

/**
 * Rebuilds the whole index from the tables it mirrors (dir files, entries, messages) and the
 * docs folder, in one transaction: searches see the old index until it commits.
 */
export async function reindexAll(
  sql: Sql,
  options: { docsFolder?: string | null } = {},
): Promise<ReindexReport> {
  const docsFiles = options.docsFolder ? await folderFiles(options.docsFolder) : [];
  const result = await sql.transaction(async (tx) => {
    await tx.run(`DELETE FROM "SearchPassage"`);
    if (tx.dialect === "sqlite") {
      // The FTS table follows the rows through its triggers; emptying it also drops anything a
      // crash might have left behind. ('rebuild' cannot run: its "access" column is computed.)
      await tx.run(`INSERT INTO "SearchPassageFts" ("SearchPassageFts") VALUES ('delete-all')`);
    }
    await tx.run(
      ENTRY_PASSAGES_SQL((column) =>
        tx.dialect === "sqlite"
          ? `length(${column}) - length(replace(${column}, char(10), '')) + 1`
          : `"search_line_count"(${column})`,
      ),
    );
    await tx.run(tx.dialect === "sqlite" ? SQLITE_MESSAGES_SQL : POSTGRES_MESSAGES_SQL);
    const files = await tx.all<{
      dirKey: string;
      path: string;
      content: unknown;
      isText: unknown;
      updatedAt: unknown;
    }>(
      `SELECT f."dirKey", f."path", b."content", f."isText", f."updatedAt"
       FROM "PersistentFile" f JOIN "FileBody" b ON b."sha256" = f."sha256"
       ORDER BY f."dirKey", f."path"`,
    );
    for (const file of files) {
      if (!toBool(file.isText)) continue;
      const target = dirSearchTarget(file.dirKey);
      if (!target) continue;
      await insertFilePassages(tx, {
        ...target,
        dirKey: file.dirKey,
        path: file.path,
        text: toBytes(file.content).toString("utf8"),
        at: toDate(file.updatedAt),
      });
    }
    const docs = dirSearchTarget(DOCS_DIR_KEY)!;
    for (const file of docsFiles) {
      await insertFilePassages(tx, {
        ...docs,
        dirKey: DOCS_DIR_KEY,
        path: file.path,
        text: file.text,
        at: file.mtime,
      });
    }
    const counts = await tx.all<{ kind: string; count: number }>(
      `SELECT "kind", COUNT(*) AS "count" FROM "SearchPassage" GROUP BY "kind"`,
    );
    const report: ReindexReport = { memory: 0, company: 0, docs: 0, harness: 0, chat: 0 };
    for (const row of counts) report[row.kind as SearchKind] = Number(row.count);
    return report;
  });
  // Fresh statistics after rewriting the table: without them PostgreSQL's planner may not see
  // that the GIN match and the audience index together select few rows.
  if (sql.dialect === "postgres") await sql.run(`ANALYZE "SearchPassage"`);
  return result;
}

/** Whether any dir passage exists (the server reindexes once at start when not and files exist). */
export async function needsInitialReindex(sql: Sql): Promise<boolean> {
  const passage = await sql.get(
    `SELECT 1 AS "one" FROM "SearchPassage" WHERE "kind" IN ('memory', 'company') LIMIT 1`,
  );
  if (passage) return false;
  const file = await sql.get(`SELECT 1 AS "one" FROM "PersistentFile" WHERE "isText" = ? LIMIT 1`, [
    true,
  ]);
  return file !== undefined;
}
