/**
 * Searching the index: one statement per query on either database, filtered by who asks
 * before anything is ranked or counted, ranked BM25-style with field weights (path and heading
 * above body), with phrases and a trailing prefix, recency breaking ties, and snippets.
 */
import { placeholders, toDate, type SqlExecutor, type SqlValue } from "@/lib/storage/sql";
import { SEARCH_KINDS, type SearchKind } from "./index-store";
import { fts5Match, isEmptyQuery, matcherOf, parseQuery, tsQuery, type ParsedQuery } from "./query";
import { snippetOf, type SnippetSegment } from "./snippet";

/** Who searches: read from the database per request (the session's or the token's Actor). */
export interface SearchActor {
  userId: string;
  workspaceId: string;
}

/** One ranked passage. */
export interface SearchHit {
  kind: SearchKind;
  /** Where it lives for the agent: `/persistent/user/notes.md`, an entry's `local:<id>` / `global:<id>`, a chat. */
  location: string;
  /** The file's path in its dir, the entry's path; "" for a chat message. */
  path: string;
  /** The passage's heading, the entry's title, the chat's title. */
  title: string;
  lineStart: number;
  lineEnd: number;
  chatId: string | null;
  messageId: string | null;
  /** The entry's reference as the harness tools show it (`[global:<id>] memory`), for harness hits. */
  entryRef: string | null;
  /** The entry's scope, kind and id, for harness hits. */
  entry: { scope: "global" | "local"; kind: string; id: string } | null;
  updatedAt: Date;
  /** Higher is better; comparable within one result list only. */
  score: number;
  snippet: SnippetSegment[];
}

export interface SearchOptions {
  actor: SearchActor;
  query: string;
  /** Kinds to search; default all. */
  kinds?: readonly SearchKind[];
  /** Default 10, at most 50. */
  limit?: number;
  /** Where each kind of dir is mounted for agents. Default the app's. */
  mounts?: Partial<Record<"memory" | "company" | "docs", string>>;
}

export const DEFAULT_SEARCH_LIMIT = 10;
export const MAX_SEARCH_LIMIT = 50;

const DEFAULT_MOUNTS = {
  memory: "/persistent/user",
  company: "/persistent/company",
  docs: "/persistent/docs",
} as const;

/** Field weights: path, title (heading), body. */
export const FIELD_WEIGHTS = { path: 4, title: 4, body: 1 } as const;

interface HitRow {
  kind: string;
  sourceKey: string;
  path: string;
  title: string;
  body: string;
  lineStart: number;
  lineEnd: number;
  chatId: string | null;
  messageId: string | null;
  chatTitle: string | null;
  updatedAt: unknown;
  score: number;
}

/** The access filter: what `actor` may see, as SQL over the passage alias `p`. */
function accessFilter(actor: SearchActor): { sql: string; params: SqlValue[] } {
  return {
    sql: `(p."audience" IN (?, ?, 'docs') OR (p."audience" = 'chat' AND p."chatId" IN (
            SELECT c."id" FROM "Chat" AS c WHERE c."userId" = ? AND c."workspaceId" = ?)))`,
    params: [
      `user:${actor.userId}`,
      `workspace:${actor.workspaceId}`,
      actor.userId,
      actor.workspaceId,
    ],
  };
}

/** Candidates read per wanted hit, for the recency tiebreak and de-duplication. */
const CANDIDATE_FACTOR = 3;

function statementFor(
  executor: SqlExecutor,
  query: ParsedQuery,
  kinds: readonly SearchKind[],
  actor: SearchActor,
  candidates: number,
): { text: string; params: SqlValue[] } {
  const access = accessFilter(actor);
  const kindFilter = `p."kind" IN (${placeholders(kinds.length)})`;
  const columns = `p."kind", p."sourceKey", p."path", p."title", p."body", p."lineStart", p."lineEnd",
    p."chatId", p."messageId", p."updatedAt", ch."title" AS "chatTitle"`;
  if (executor.dialect === "sqlite") {
    // bm25() is lower for better matches; its arguments weight path, title, body.
    return {
      text: `SELECT ${columns}, -bm25("SearchPassageFts", ${FIELD_WEIGHTS.path}.0, ${FIELD_WEIGHTS.title}.0, ${FIELD_WEIGHTS.body}.0) AS "score"
        FROM "SearchPassageFts" AS f
        JOIN "SearchPassage" AS p ON p."id" = f.rowid
        LEFT JOIN "Chat" AS ch ON ch."id" = p."chatId"
        WHERE "SearchPassageFts" MATCH ? AND ${kindFilter} AND ${access.sql}
        ORDER BY "score" DESC, p."updatedAt" DESC LIMIT ?`,
      params: [fts5Match(query), ...kinds, ...access.params, candidates],
    };
  }
  // ts_rank_cd's weights are {D, C, B, A}: path (A) and title (B) above body (C). Normalisation
  // 1 divides by the log of the passage's length (BM25's length term), 32 maps into 0..1.
  const weights = `'{0, ${(FIELD_WEIGHTS.body / FIELD_WEIGHTS.path).toFixed(2)}, 1, 1}'`;
  return {
    text: `SELECT ${columns}, ts_rank_cd(${weights}::float4[], "search_passage_tsv"(p."path", p."title", p."body"), q.query, 1 | 32) AS "score"
      FROM "SearchPassage" AS p
      CROSS JOIN (SELECT to_tsquery('english', ?) AS query) AS q
      LEFT JOIN "Chat" AS ch ON ch."id" = p."chatId"
      WHERE "search_passage_tsv"(p."path", p."title", p."body") @@ q.query AND ${kindFilter} AND ${access.sql}
      ORDER BY "score" DESC, p."updatedAt" DESC LIMIT ?`,
    params: [tsQuery(query), ...kinds, ...access.params, candidates],
  };
}

/** Scores this close (relative) count as a tie, which recency breaks. */
const TIE = 0.02;

function locationOf(row: HitRow, mounts: SearchOptions["mounts"]): string {
  const mount = { ...DEFAULT_MOUNTS, ...mounts };
  switch (row.kind) {
    case "memory":
      return `${mount.memory}/${row.path}`;
    case "company":
      return `${mount.company}/${row.path}`;
    case "docs":
      return `${mount.docs}/${row.path}`;
    case "harness":
      return entryRefOf(row) ?? row.path;
    default:
      return `chat ${row.chatId}`;
  }
}

/** `entry:<workspaceId>:<scope>/<chat>/<kind>/<id>` → the entry's scope, kind and id. */
function entryOf(row: HitRow): SearchHit["entry"] {
  if (row.kind !== "harness") return null;
  const key = row.sourceKey.slice(row.sourceKey.indexOf(":", "entry:".length) + 1);
  const [scope, , kind = "", ...id] = key.split("/");
  return {
    scope: scope === "local" ? "local" : "global",
    kind,
    id: decodeURIComponent(id.join("/")),
  };
}

/** `[<scope>:<id>] <kind>`, as the harness tools show entries. */
function entryRefOf(row: HitRow): string | null {
  const entry = entryOf(row);
  return entry ? `[${entry.scope}:${entry.id}] ${entry.kind}` : null;
}

/**
 * Ranked passages `actor` may see for `query`. An empty query (no words) returns nothing. The
 * access rule is part of the statement, so nothing of another person's reaches ranking,
 * snippets or counts.
 */
export async function searchPassages(
  executor: SqlExecutor,
  options: SearchOptions,
): Promise<SearchHit[]> {
  const query = parseQuery(options.query);
  if (isEmptyQuery(query)) return [];
  const kinds = (options.kinds?.length ? options.kinds : SEARCH_KINDS).filter((kind) =>
    SEARCH_KINDS.includes(kind),
  );
  if (kinds.length === 0) return [];
  const limit = Math.max(
    1,
    Math.min(MAX_SEARCH_LIMIT, Math.floor(options.limit ?? DEFAULT_SEARCH_LIMIT)),
  );
  const statement = statementFor(executor, query, kinds, options.actor, limit * CANDIDATE_FACTOR);
  const rows = await executor.all<HitRow>(statement.text, statement.params);
  const top = rows.length > 0 ? Number(rows[0]!.score) : 0;
  const bucket = (score: number) => (top > 0 ? Math.round(score / (top * TIE)) : 0);
  const ordered = rows
    .map((row) => ({ row, score: Number(row.score), updatedAt: toDate(row.updatedAt) }))
    .sort(
      (a, b) => bucket(b.score) - bucket(a.score) || b.updatedAt.getTime() - a.updatedAt.getTime(),
    )
    .slice(0, limit);
  const matches = matcherOf(query);
  return ordered.map(({ row, score, updatedAt }) => ({
    kind: row.kind as SearchKind,
    location: locationOf(row, options.mounts),
    path: row.path,
    title: row.kind === "chat" ? (row.chatTitle ?? "") : row.title,
    lineStart: Number(row.lineStart),
    lineEnd: Number(row.lineEnd),
    chatId: row.chatId,
    messageId: row.messageId,
    entryRef: entryRefOf(row),
    entry: entryOf(row),
    updatedAt,
    score,
    snippet: snippetOf(row.body, matches),
  }));
}

/**
 * A condition on a chat id column: the chat has a message matching `text` (the sidebar's chat
 * search). `null` when the text has no words. The caller's own filter (the person's chats)
 * applies to the chats; this only looks for the words.
 */
export function chatMessageMatch(
  dialect: SqlExecutor["dialect"],
  column: string,
  text: string,
): { sql: string; params: SqlValue[] } | null {
  const query = parseQuery(text);
  if (isEmptyQuery(query)) return null;
  if (dialect === "sqlite") {
    return {
      sql: `${column} IN (SELECT p."chatId" FROM "SearchPassageFts" AS f JOIN "SearchPassage" AS p ON p."id" = f.rowid
             WHERE "SearchPassageFts" MATCH ? AND p."kind" = 'chat')`,
      params: [fts5Match(query)],
    };
  }
  return {
    sql: `${column} IN (SELECT p."chatId" FROM "SearchPassage" AS p
           WHERE "search_passage_tsv"(p."path", p."title", p."body") @@ to_tsquery('english', ?) AND p."kind" = 'chat')`,
    params: [tsQuery(query)],
  };
}
