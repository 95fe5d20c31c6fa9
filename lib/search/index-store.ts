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
  type SqlValue,
} from "@/lib/sql-storage/sql";
import type { DirCommitted } from "@/lib/sql-storage/dir-backing";
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

/** A passage row to write for a dir file. */
interface NewPassage {
  sourceKey: string;
  kind: SearchKind;
  audience: string;
  path: string;
  passage: Passage;
  at: Date;
}

/**
 * Rows (or ids) per statement: 11 bound values a passage row, far below either database's
 * limit. Few statements matter on PostgreSQL (a round trip each); on SQLite each distinct row
 * count is one more prepared text, so batches are cut at powers of two.
 */
const ROWS_PER_STATEMENT = 64;

/** `items` in batches of at most `ROWS_PER_STATEMENT`, each a power of two long on SQLite. */
function batches<T>(dialect: SqlExecutor["dialect"], items: readonly T[]): T[][] {
  const result: T[][] = [];
  let start = 0;
  while (start < items.length) {
    let size = Math.min(ROWS_PER_STATEMENT, items.length - start);
    if (dialect === "sqlite") size = 2 ** Math.floor(Math.log2(size));
    result.push(items.slice(start, start + size));
    start += size;
  }
  return result;
}

async function insertPassages(tx: SqlExecutor, rows: readonly NewPassage[]): Promise<void> {
  for (const batch of batches(tx.dialect, rows)) {
    const values: SqlValue[] = [];
    for (const row of batch) {
      values.push(
        row.sourceKey,
        row.kind,
        row.audience,
        row.path,
        row.passage.heading,
        row.passage.text,
        row.passage.lineStart,
        row.passage.lineEnd,
        row.at,
      );
    }
    await tx.run(
      `INSERT INTO "SearchPassage"
         ("sourceKey", "kind", "audience", "chatId", "messageId", "path", "title", "body", "lineStart", "lineEnd", "updatedAt")
       VALUES ${batch.map(() => "(?, ?, ?, NULL, NULL, ?, ?, ?, ?, ?, ?)").join(", ")}`,
      values,
    );
  }
}

async function deleteWhereIn(
  tx: SqlExecutor,
  column: "id" | "sourceKey",
  keys: readonly (string | number)[],
): Promise<void> {
  for (const batch of batches(tx.dialect, keys)) {
    await tx.run(
      `DELETE FROM "SearchPassage" WHERE "${column}" IN (${placeholders(batch.length)})`,
      batch,
    );
  }
}

/** New line ranges of passages whose text is unchanged (an edit above them moved them). */
async function moveLineRanges(
  tx: SqlExecutor,
  moves: readonly { id: number; lineStart: number; lineEnd: number }[],
): Promise<void> {
  for (const batch of batches(tx.dialect, moves)) {
    const cases = batch.map(() => "WHEN ? THEN CAST(? AS INTEGER)").join(" ");
    await tx.run(
      `UPDATE "SearchPassage"
       SET "lineStart" = CASE "id" ${cases} END, "lineEnd" = CASE "id" ${cases} END
       WHERE "id" IN (${placeholders(batch.length)})`,
      [
        ...batch.flatMap((move) => [move.id, move.lineStart]),
        ...batch.flatMap((move) => [move.id, move.lineEnd]),
        ...batch.map((move) => move.id),
      ],
    );
  }
}

interface StoredPassage {
  id: number;
  sourceKey: string;
  title: string;
  body: string;
  lineStart: number;
  lineEnd: number;
}

/**
 * Indexes a dir commit's changes inside the commit's transaction `tx`, touching only the
 * changed files' passages: a deleted path's passages go, a created file's come, and an updated
 * file is split again and compared with its stored passages — those whose heading and text are
 * unchanged stay (an edit above them only moves their line range), the others are replaced. So
 * the full-text index does work in proportion to what changed, and the statements are batched
 * across the commit's files (one read, one delete, one insert for most commits). A commit that
 * rolls back takes these rows with it; a rename (delete + create) leaves no stale hit. Byte
 * files are not indexed; nothing is read but the changed files' own passages.
 */
export async function indexDirChanges(
  tx: SqlExecutor,
  options: { dirKey: string; changes: IndexedDirChanges; at?: Date },
): Promise<void> {
  const target = dirSearchTarget(options.dirKey);
  if (!target) return;
  const { changes, dirKey } = options;
  const at = options.at ?? new Date();
  const passageRow = (filePath: string, passage: Passage): NewPassage => ({
    sourceKey: dirSourceKey(dirKey, filePath),
    ...target,
    path: filePath,
    passage,
    at,
  });
  // A created path had no file at the commit's base, so it has no passages; a deleted one (or
  // one that became bytes) loses all of its own.
  const removedFiles = [
    ...changes.deleted,
    ...changes.updated.filter((file) => typeof file.content !== "string").map((file) => file.path),
  ].map((filePath) => dirSourceKey(dirKey, filePath));
  const inserts: NewPassage[] = [];
  for (const file of changes.created) {
    if (typeof file.content !== "string") continue;
    for (const passage of splitIntoPassages(file.content))
      inserts.push(passageRow(file.path, passage));
  }
  const updated = changes.updated.filter(
    (file): file is { path: string; content: string } => typeof file.content === "string",
  );
  const gone: number[] = [];
  const moves: { id: number; lineStart: number; lineEnd: number }[] = [];
  if (tx.dialect === "postgres") {
    // One statement per updated file, the comparison done by the server: a round trip is
    // what a statement costs there.
    for (const file of updated) {
      await replaceChangedPassagesOnPostgres(tx, {
        ...target,
        sourceKey: dirSourceKey(dirKey, file.path),
        path: file.path,
        passages: splitIntoPassages(file.content),
        at,
      });
    }
  } else if (updated.length > 0) {
    const stored = new Map<string, StoredPassage[]>();
    for (const batch of batches(tx.dialect, updated)) {
      const keys = batch.map((file) => dirSourceKey(dirKey, file.path));
      const rows = await tx.all<StoredPassage>(
        `SELECT "id", "sourceKey", "title", "body", "lineStart", "lineEnd" FROM "SearchPassage"
         WHERE "sourceKey" IN (${placeholders(keys.length)})`,
        keys,
      );
      for (const row of rows)
        stored.set(row.sourceKey, [...(stored.get(row.sourceKey) ?? []), row]);
    }
    for (const file of updated) {
      const unused = new Map<string, StoredPassage[]>();
      for (const row of stored.get(dirSourceKey(dirKey, file.path)) ?? []) {
        const key = `${row.title}\u0000${row.body}`;
        unused.set(key, [...(unused.get(key) ?? []), row]);
      }
      for (const passage of splitIntoPassages(file.content)) {
        const same = unused.get(`${passage.heading}\u0000${passage.text}`)?.shift();
        if (!same) inserts.push(passageRow(file.path, passage));
        else if (
          Number(same.lineStart) !== passage.lineStart ||
          Number(same.lineEnd) !== passage.lineEnd
        ) {
          moves.push({
            id: Number(same.id),
            lineStart: passage.lineStart,
            lineEnd: passage.lineEnd,
          });
        }
      }
      for (const rows of unused.values()) for (const row of rows) gone.push(Number(row.id));
    }
  }
  await deleteWhereIn(tx, "sourceKey", removedFiles);
  await deleteWhereIn(tx, "id", gone);
  await moveLineRanges(tx, moves);
  await insertPassages(tx, inserts);
}

/**
 * `indexDirChanges` for one updated file on PostgreSQL, in one statement: the same comparison
 * as the SQLite path (a stored passage with the same heading and text stays, moved to its new
 * line range; the k-th of identical passages matches the k-th stored one by id), with the
 * deletes, moves and inserts as data-modifying CTEs. They all see the rows as they were before
 * the statement, which is what the comparison needs.
 */
async function replaceChangedPassagesOnPostgres(
  tx: SqlExecutor,
  file: {
    kind: SearchKind;
    audience: string;
    sourceKey: string;
    path: string;
    passages: readonly Passage[];
    at: Date;
  },
): Promise<void> {
  const seen = new Map<string, number>();
  const values: SqlValue[] = [];
  for (const passage of file.passages) {
    const key = `${passage.heading}\u0000${passage.text}`;
    const occurrence = (seen.get(key) ?? 0) + 1;
    seen.set(key, occurrence);
    values.push(passage.heading, passage.text, passage.lineStart, passage.lineEnd, occurrence);
  }
  const incoming =
    file.passages.length > 0
      ? `VALUES ${file.passages.map(() => "(?::text, ?::text, ?::int, ?::int, ?::int)").join(", ")}`
      : `SELECT NULL::text, NULL::text, NULL::int, NULL::int, NULL::int WHERE false`;
  await tx.run(
    `WITH v ("title", "body", "lineStart", "lineEnd", "n") AS (${incoming}),
     old AS (
       SELECT "id", "title", "body", "lineStart", "lineEnd",
              row_number() OVER (PARTITION BY "title", "body" ORDER BY "id") AS "n"
       FROM "SearchPassage" WHERE "sourceKey" = ?),
     kept AS (
       SELECT old."id", old."lineStart" AS "oldStart", old."lineEnd" AS "oldEnd", v."lineStart", v."lineEnd"
       FROM old JOIN v ON v."title" = old."title" AND v."body" = old."body" AND v."n" = old."n"),
     gone AS (
       DELETE FROM "SearchPassage" AS s USING old
       WHERE s."id" = old."id" AND old."id" NOT IN (SELECT "id" FROM kept)),
     moved AS (
       UPDATE "SearchPassage" AS s SET "lineStart" = kept."lineStart", "lineEnd" = kept."lineEnd"
       FROM kept WHERE s."id" = kept."id" AND (kept."oldStart" <> kept."lineStart" OR kept."oldEnd" <> kept."lineEnd"))
     INSERT INTO "SearchPassage"
       ("sourceKey", "kind", "audience", "chatId", "messageId", "path", "title", "body", "lineStart", "lineEnd", "updatedAt")
     SELECT ?, ?, ?, NULL, NULL, ?, v."title", v."body", v."lineStart", v."lineEnd", ?::timestamp(3)
     FROM v WHERE NOT EXISTS (
       SELECT 1 FROM old WHERE old."title" = v."title" AND old."body" = v."body" AND old."n" = v."n")`,
    [...values, file.sourceKey, file.sourceKey, file.kind, file.audience, file.path, file.at],
  );
}

/** A whole file's passages as rows (docs folder, reindex). */
function filePassages(
  target: { kind: SearchKind; audience: string },
  file: { dirKey: string; path: string; text: string; at: Date },
): NewPassage[] {
  return splitIntoPassages(file.text).map((passage) => ({
    sourceKey: dirSourceKey(file.dirKey, file.path),
    ...target,
    path: file.path,
    passage,
    at: file.at,
  }));
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
  const rows = files.flatMap((file) =>
    filePassages(target, {
      dirKey: DOCS_DIR_KEY,
      path: file.path,
      text: file.text,
      at: file.mtime,
    }),
  );
  await sql.transaction(async (tx) => {
    await tx.run(`DELETE FROM "SearchPassage" WHERE "kind" = 'docs'`);
    await insertPassages(tx, rows);
  });
  return rows.length;
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
    const rows: NewPassage[] = [];
    for (const file of files) {
      if (!toBool(file.isText)) continue;
      const target = dirSearchTarget(file.dirKey);
      if (!target) continue;
      rows.push(
        ...filePassages(target, {
          dirKey: file.dirKey,
          path: file.path,
          text: toBytes(file.content).toString("utf8"),
          at: toDate(file.updatedAt),
        }),
      );
    }
    const docs = dirSearchTarget(DOCS_DIR_KEY)!;
    for (const file of docsFiles) {
      rows.push(
        ...filePassages(docs, {
          dirKey: DOCS_DIR_KEY,
          path: file.path,
          text: file.text,
          at: file.mtime,
        }),
      );
    }
    await insertPassages(tx, rows);
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
