import { HarnessConflictError, validateRelativePath } from "@/lib/harness";
import { fileInfoOf, getDirVersion, type DirFileInfo, type FileInfoRow } from "./dir-backing";
import type { Sql, SqlValue } from "./sql";

/**
 * A page of a dir's files for a browser (the Files page): one folder's subfolders with their
 * file counts and the files directly in it, or — with a filter — the files whose path matches,
 * whatever folder they are in. Never the whole dir: a knowledge base of 100,000 files is read
 * a page at a time (issue 23).
 */

/** Files per page when the caller gives no `limit`. */
export const DEFAULT_DIR_LISTING_LIMIT = 200;
/** The most files one page holds. */
export const MAX_DIR_LISTING_LIMIT = 1000;
/** The most subfolders one listing names; a folder with more says so (`foldersTruncated`). */
export const MAX_DIR_LISTING_FOLDERS = 1000;
/** Filter words beyond this many are ignored; each word is cut to `MAX_FILTER_TERM_LENGTH`. */
const MAX_FILTER_TERMS = 8;
const MAX_FILTER_TERM_LENGTH = 200;

/** What to list. */
export interface DirListingOptions {
  /** A folder relative to the dir (`""` or absent: the top level), without a trailing slash. */
  folder?: string;
  /**
   * Words that every listed path contains, case-insensitively (ASCII letters on SQLite), split
   * on whitespace. When given, the listing is flat: the matching files under `folder`, no
   * subfolders.
   */
  filter?: string;
  /** The previous page's `nextAfter`: files after this path. */
  after?: string | null;
  /** Files per page; default `DEFAULT_DIR_LISTING_LIMIT`, at most `MAX_DIR_LISTING_LIMIT`. */
  limit?: number;
}

/** One subfolder of the listed folder. */
export interface DirListingFolder {
  /** Relative to the dir (`notes/2024`). */
  path: string;
  /** The last segment (`2024`). */
  name: string;
  /** Files under it, at any depth. */
  fileCount: number;
}

/** One page of a listing. */
export interface DirListingPage<TFile> {
  /** The folder listed (`""` for the top level), as normalised. */
  folder: string;
  /** The filter's words as applied (empty: no filter). */
  terms: string[];
  /** Subfolders by name (only on the first page of an unfiltered listing; empty otherwise). */
  folders: DirListingFolder[];
  /** Whether the folder has more subfolders than `folders` names. */
  foldersTruncated: boolean;
  /** This page's files, by path. */
  files: TFile[];
  /** Pass as `after` for the next page; `null` on the last page. */
  nextAfter: string | null;
  /** Files the paged sequence holds in all: directly in the folder, or matching the filter. */
  fileCount: number;
  /** Files under the folder at any depth, filter or not. */
  totalFiles: number;
}

/** A database listing: its files as stored, and the dir version it was read at. */
export type DirListing = DirListingPage<DirFileInfo> & { version: number };

interface NormalizedListing {
  folder: string;
  /** `folder/`, or `""` at the top level. */
  prefix: string;
  terms: string[];
  after: string | null;
  limit: number;
}

function normalizeListing(options: DirListingOptions): NormalizedListing {
  const rawFolder = (options.folder ?? "").replace(/\/+$/, "");
  const folder = rawFolder === "" ? "" : validateRelativePath({ path: rawFolder });
  const terms = (options.filter ?? "")
    .normalize("NFC")
    .split(/\s+/)
    .filter((term) => term !== "")
    .slice(0, MAX_FILTER_TERMS)
    .map((term) => term.slice(0, MAX_FILTER_TERM_LENGTH));
  const limit = Math.max(
    1,
    Math.min(MAX_DIR_LISTING_LIMIT, Math.floor(options.limit ?? DEFAULT_DIR_LISTING_LIMIT)),
  );
  return {
    folder,
    prefix: folder === "" ? "" : `${folder}/`,
    terms,
    after: options.after || null,
    limit,
  };
}

/**
 * The same listing over files held in memory (a dir without a database backing, e.g. one its
 * definition loads whole): the reference the SQL listing is tested against. Matching is
 * case-insensitive for every letter here, for ASCII letters only on SQLite.
 */
export function pageFiles<TFile extends { path: string }>(
  files: readonly TFile[],
  options: DirListingOptions = {},
): DirListingPage<TFile> {
  const { folder, prefix, terms, after, limit } = normalizeListing(options);
  const under = files
    .filter((file) => file.path.startsWith(prefix))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const lowered = terms.map((term) => term.toLowerCase());
  const sequence =
    terms.length > 0
      ? under.filter((file) => {
          const path = file.path.toLowerCase();
          return lowered.every((term) => path.includes(term));
        })
      : under.filter((file) => !file.path.slice(prefix.length).includes("/"));
  const counts = new Map<string, number>();
  if (terms.length === 0 && after === null) {
    for (const file of under) {
      const rest = file.path.slice(prefix.length);
      const slash = rest.indexOf("/");
      if (slash > 0) counts.set(rest.slice(0, slash), (counts.get(rest.slice(0, slash)) ?? 0) + 1);
    }
  }
  const names = [...counts.keys()].sort();
  const start = after === null ? 0 : sequence.findIndex((file) => file.path > after);
  const page = start < 0 ? [] : sequence.slice(start, start + limit);
  const more = start >= 0 && start + limit < sequence.length;
  return {
    folder,
    terms,
    folders: names.slice(0, MAX_DIR_LISTING_FOLDERS).map((name) => ({
      path: `${prefix}${name}`,
      name,
      fileCount: counts.get(name)!,
    })),
    foldersTruncated: names.length > MAX_DIR_LISTING_FOLDERS,
    files: page,
    nextAfter: more ? page.at(-1)!.path : null,
    fileCount: sequence.length,
    totalFiles: under.length,
  };
}

/** `%word%` for LIKE with `\` as the escape character. */
function containsPattern(term: string): string {
  return `%${term.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

/** How many characters SQL's `substr` counts in `text` (code points, as both databases do). */
function characters(text: string): number {
  return [...text].length;
}

/** A listing re-reads when a commit landed while it was read. */
const MAX_LISTING_ATTEMPTS = 10;


/**
 * One page of a database-backed dir's files (see `DirListingOptions`), read at one dir version:
 * when a commit lands while it is read, it is read again (`conflict:dir` after 10 tries, as
 * `listDirFiles`). A folder is a range of the primary key; a filter scans the dir's rows (LIKE on
 * SQLite, ILIKE on PostgreSQL). No file content is read; at most three statements besides the
 * two version reads.
 */
export async function listDirPage(
  options: {
    sql: Sql;
    dirKey: string;
    abortSignal?: AbortSignal;
  } & DirListingOptions,
): Promise<DirListing> {
  const { sql, dirKey } = options;
  const { folder, prefix, terms, after, limit } = normalizeListing(options);
  const find = sql.dialect === "sqlite" ? "instr" : "strpos";
  const like = sql.dialect === "sqlite" ? "LIKE" : "ILIKE";
  const prefixLength = characters(prefix);
  // The rows under the folder: the dir's, narrowed to the prefix (portable on both databases,
  // whatever the column's collation).
  // The rows under the folder: a range of the primary key (`dirKey`, `path`) from `folder/` up to
  // `folder0` ("0" follows "/"), compared byte-wise — SQLite's column collation is binary, and
  // PostgreSQL's is made "C" here, so a database collated by locale still matches by prefix.
  const path = sql.dialect === "sqlite" ? `"path"` : `"path" COLLATE "C"`;
  const underSql = prefix === "" ? `"dirKey" = ?` : `"dirKey" = ? AND ${path} >= ? AND ${path} < ?`;
  const underParams: SqlValue[] =
    prefix === "" ? [dirKey] : [dirKey, prefix, `${prefix.slice(0, -1)}0`];
  const rest = `substr("path", CAST(? AS INTEGER))`;
  const restParams: SqlValue[] = [prefixLength + 1];
  const matchSql = terms.map(() => `"path" ${like} ? ESCAPE '\\'`).join(" AND ");
  const matchParams = terms.map(containsPattern);
  // The paged sequence: matches, or the files directly in the folder.
  const sequenceSql = terms.length > 0 ? matchSql : `${find}(${rest}, '/') = 0`;
  const sequenceParams = terms.length > 0 ? matchParams : restParams;
  // An unfiltered first page counts by child in one pass: each subfolder's files, and "" for the
  // files directly in the folder. Other pages (and a folder with too many subfolders to name)
  // count in a statement of their own.
  const grouped = terms.length === 0 && after === null;

  for (let attempt = 0; attempt < MAX_LISTING_ATTEMPTS; attempt += 1) {
    options.abortSignal?.throwIfAborted();
    const before = await getDirVersion({ sql, dirKey });
    const children = grouped
      ? await sql.all<{ name: string; fileCount: unknown }>(
          `SELECT CASE WHEN ${find}("rest", '/') > 0 THEN substr("rest", 1, ${find}("rest", '/') - 1)
                  ELSE '' END AS "name", count(*) AS "fileCount"
           FROM (SELECT ${rest} AS "rest" FROM "PersistentFile" WHERE ${underSql}) AS "under"
           GROUP BY 1 ORDER BY 1 LIMIT ${MAX_DIR_LISTING_FOLDERS + 2}`,
          [...restParams, ...underParams],
        )
      : [];
    const direct = children.find((row) => row.name === "");
    const folders = children.filter((row) => row.name !== "");
    const foldersTruncated = folders.length > MAX_DIR_LISTING_FOLDERS;
    let counts: { total: number; inSequence: number };
    if (grouped && !foldersTruncated) {
      const inSequence = Number(direct?.fileCount ?? 0);
      counts = {
        inSequence,
        total: folders.reduce((sum, row) => sum + Number(row.fileCount), inSequence),
      };
    } else {
      const row = await sql.get<{ total: unknown; inSequence: unknown }>(
        `SELECT count(*) AS "total",
                sum(CASE WHEN ${sequenceSql} THEN 1 ELSE 0 END) AS "inSequence"
         FROM "PersistentFile" WHERE ${underSql}`,
        [...sequenceParams, ...underParams],
      );
      counts = { total: Number(row?.total ?? 0), inSequence: Number(row?.inSequence ?? 0) };
    }
    // A folder holding only folders (a knowledge base's top level, often) has no files to page.
    const rows =
      counts.inSequence === 0
        ? []
        : await sql.all<FileInfoRow>(
            `SELECT "path", "size", "isText", "sha256", "updatedAt", "updatedBy" FROM "PersistentFile"
             WHERE ${underSql} AND ${sequenceSql}${after === null ? "" : ` AND "path" > ?`}
             ORDER BY "path" ASC LIMIT ${limit + 1}`,
            [...underParams, ...sequenceParams, ...(after === null ? [] : [after])],
          );
    if ((await getDirVersion({ sql, dirKey })) !== before) continue;
    const page = rows.slice(0, limit).map(fileInfoOf);
    return {
      version: before,
      folder,
      terms,
      folders: folders.slice(0, MAX_DIR_LISTING_FOLDERS).map((row) => ({
        path: `${prefix}${row.name}`,
        name: row.name,
        fileCount: Number(row.fileCount),
      })),
      foldersTruncated,
      files: page,
      nextAfter: rows.length > limit ? page.at(-1)!.path : null,
      fileCount: counts.inSequence,
      totalFiles: counts.total,
    };
  }
  throw new HarnessConflictError({
    surface: "dir",
    message: `Dir ${dirKey} kept changing while it was listed; try again.`,
  });
}
