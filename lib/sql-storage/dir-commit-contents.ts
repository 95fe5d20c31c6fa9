import type { ChangeSet } from "@/lib/harness";
import type { SqlExecutor } from "./sql";

/**
 * What a history row knows about one file on one side of a commit: its text, that it is bytes,
 * that it did not exist, that its text was dropped by compaction (decision 0030: versions
 * older than the retention window keep only what a later version needs), or nothing (commits
 * written before `DirCommit.contents` existed).
 */
export type RecordedContent =
  | { state: "text"; text: string }
  | { state: "binary" }
  | { state: "absent" }
  | { state: "compacted" }
  | { state: "unrecorded" };

/** One file a commit changed, with its content before and after the commit. */
export interface DirCommitFileChange {
  path: string;
  change: "created" | "updated" | "deleted";
  before: RecordedContent;
  after: RecordedContent;
}

/** One commit of a database-backed dir with the content of every file it changed. */
export interface DirCommitDetail {
  id: string;
  dirKey: string;
  version: number;
  files: DirCommitFileChange[];
}

/**
 * The `DirCommit.contents` column for a change set: each created or updated path's text after
 * the commit, `null` for bytes (the history shows text diffs only). Deleted paths need nothing:
 * their content before is the previous commit's after.
 */
export function commitContentsJson(changes: ChangeSet): string {
  const contents: Record<string, string | null> = {};
  for (const file of [...changes.created, ...changes.updated]) {
    contents[file.path] = typeof file.content === "string" ? file.content : null;
  }
  return JSON.stringify(contents);
}

function parseJson<T>(json: string | null, fallback: T): T {
  if (json === null) return fallback;
  try {
    return JSON.parse(json) as T;
  } catch {
    return fallback;
  }
}

interface CommitRow {
  id: string;
  dirKey: string;
  version: number;
  created: string;
  updated: string;
  deleted: string;
  contents: string | null;
}

/** What `row` left `path` as, or `undefined` when the commit did not touch it. */
function contentAfter(row: CommitRow, path: string): RecordedContent | undefined {
  const paths = (json: string) => parseJson<string[]>(json, []);
  if (paths(row.deleted).includes(path)) return { state: "absent" };
  if (!paths(row.created).includes(path) && !paths(row.updated).includes(path)) return undefined;
  const contents = parseJson<Record<string, string | null> | null>(row.contents, null);
  if (contents === null) return { state: "unrecorded" };
  // A commit records every path it wrote: one missing was dropped by compaction.
  if (!Object.hasOwn(contents, path)) return { state: "compacted" };
  const text = contents[path];
  return typeof text === "string" ? { state: "text", text } : { state: "binary" };
}

const SCAN_BATCH = 100;
/** How far back a file's earlier content is looked for (commits). */
const SCAN_LIMIT = 2_000;

/**
 * One commit of `dirKey` with each changed file's content before and after it, or `null` when
 * the dir has no such commit. The content before comes from the newest earlier commit that
 * touched the path (a dir keeps no other copy of old contents).
 */
export async function readDirCommitDetail(options: {
  sql: SqlExecutor;
  dirKey: string;
  id: string;
}): Promise<DirCommitDetail | null> {
  const { sql, dirKey } = options;
  const columns = `"id", "dirKey", "version", "created", "updated", "deleted", "contents"`;
  const row = await sql.get<CommitRow>(
    `SELECT ${columns} FROM "DirCommit" WHERE "id" = ? AND "dirKey" = ?`,
    [options.id, dirKey],
  );
  if (!row) return null;
  const paths = (json: string) => parseJson<string[]>(json, []);
  const files: DirCommitFileChange[] = [
    ...paths(row.created).map((path) => ({ path, change: "created" as const })),
    ...paths(row.updated).map((path) => ({ path, change: "updated" as const })),
    ...paths(row.deleted).map((path) => ({ path, change: "deleted" as const })),
  ].map((file) => ({
    ...file,
    before: file.change === "created" ? { state: "absent" } : { state: "unrecorded" },
    after: contentAfter(row, file.path) ?? { state: "unrecorded" },
  }));
  const pending = new Map(
    files.filter((file) => file.change !== "created").map((file) => [file.path, file]),
  );
  let below = row.version;
  for (let scanned = 0; pending.size > 0 && scanned < SCAN_LIMIT; scanned += SCAN_BATCH) {
    const earlier = await sql.all<CommitRow>(
      `SELECT ${columns} FROM "DirCommit" WHERE "dirKey" = ? AND "version" < ?
       ORDER BY "version" DESC LIMIT ?`,
      [dirKey, below, SCAN_BATCH],
    );
    for (const candidate of earlier) {
      for (const [path, file] of pending) {
        const content = contentAfter(candidate, path);
        if (content === undefined) continue;
        file.before = content;
        pending.delete(path);
      }
    }
    if (earlier.length < SCAN_BATCH) break;
    below = earlier.at(-1)!.version;
  }
  return { id: row.id, dirKey: row.dirKey, version: row.version, files };
}
