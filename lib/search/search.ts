/**
 * Searching the index: one statement per query on either database, filtered by who asks
 * before anything is ranked or counted, ranked BM25-style with field weights (path and heading
 * above body), with phrases and a trailing prefix, recency breaking ties, and snippets.
 */
import { plannedPerCall, toDate, type SqlExecutor, type SqlValue } from "@/lib/sql-storage/sql";
import { DOCS_DIR_KEY, SEARCH_KINDS, chatAudience, type SearchKind } from "./index-store";
import { fts5Match, isEmptyQuery, matcherOf, parseQuery, tsQuery, type ParsedQuery } from "./query";
import { snippetOf, type SnippetSegment } from "./snippet";
import { RERANK_CANDIDATES, rerankWithEmbeddings, type SearchEmbeddings } from "./embeddings";

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

/**
 * A hit as `GET /api/search` returns it to the browser: where it is and what it says, the date
 * as ISO text and the page that opens it; no score and no entry internals.
 */
export type SearchResultItem = Pick<
  SearchHit,
  | "kind"
  | "location"
  | "path"
  | "title"
  | "lineStart"
  | "lineEnd"
  | "chatId"
  | "messageId"
  | "snippet"
> & { updatedAt: string; href: string };

export interface SearchOptions {
  actor: SearchActor;
  query: string;
  /** Kinds to search; default all. */
  kinds?: readonly SearchKind[];
  /** Default 10, at most 50. */
  limit?: number;
  /** Where each kind of dir is mounted for agents. Default the app's. */
  mounts?: Partial<Record<"memory" | "company" | "docs", string>>;
  /**
   * Semantic re-ranking of the lexical candidates (decision 0052); default none: lexical only.
   * When the embedding call fails the search answers lexically.
   */
  embeddings?: SearchEmbeddings;
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

export interface HitRow {
  id: number;
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

/**
 * What `actor` may see, as (kind, audience) pairs: their memory, their workspace's company
 * knowledge and global entries, the docs folder, and their own chats' messages and local entries
 * in this workspace. Only pairs a passage can have are listed, so the index is asked for at most
 * six.
 */
export function visibleScopes(
  actor: SearchActor,
  kinds: readonly SearchKind[],
): { kind: SearchKind; audience: string }[] {
  const chats = chatAudience(actor.userId, actor.workspaceId);
  const workspace = `workspace:${actor.workspaceId}`;
  const all: { kind: SearchKind; audience: string }[] = [
    { kind: "memory", audience: `user:${actor.userId}` },
    { kind: "company", audience: workspace },
    { kind: "docs", audience: DOCS_DIR_KEY },
    { kind: "harness", audience: workspace },
    { kind: "harness", audience: chats },
    { kind: "chat", audience: chats },
  ];
  return all.filter((scope) => kinds.includes(scope.kind));
}

/**
 * The FTS5 token of a (kind, audience) pair, as the migration's triggers write it into the
 * "access" column: `a` + hex of `<kind> <audience>` (UTF-8) + `0` — one unicode61 token that no
 * Porter rule changes (it ends in a digit).
 */
export function accessToken(scope: { kind: string; audience: string }): string {
  return `a${Buffer.from(`${scope.kind} ${scope.audience}`, "utf8").toString("hex")}0`;
}

/**
 * Candidates ranked inside the index per wanted hit: the recency tiebreak and the outer order
 * work on these only, and only these rows of "SearchPassage" are read.
 */
const CANDIDATE_FACTOR = 3;

/**
 * A temporary chat's messages and local entries are never found (issue 26, decision 0055): it is
 * in no list once left, ⌘K and the agent's `search` included, until its job deletes it.
 */
export const NOT_TEMPORARY = `(ch."id" IS NULL OR NOT ch."temporary")`;

/** What a hit needs of a passage (`p`) and its chat (`ch`), score aside. */
export const PASSAGE_COLUMNS = `p."id", p."kind", p."sourceKey", p."path", p."title", p."body", p."lineStart",
  p."lineEnd", p."chatId", p."messageId", p."updatedAt", ch."title" AS "chatTitle"`;

function statementFor(
  executor: SqlExecutor,
  query: ParsedQuery,
  kinds: readonly SearchKind[],
  actor: SearchActor,
  candidates: number,
): { text: string; params: SqlValue[] } {
  const scopes = visibleScopes(actor, kinds);
  const columns = `${PASSAGE_COLUMNS}, c."score"`;
  if (executor.dialect === "sqlite") {
    // The access rule is part of the MATCH: FTS5 intersects the words' postings with the
    // actor's (kind, audience) tokens, ranks only those rows with bm25() (lower is better; the
    // "access" column weighs 0) and hands the best `candidates` to the join.
    const access = scopes.map((scope) => `"${accessToken(scope)}"`).join(" OR ");
    const rank = `bm25("SearchPassageFts", ${FIELD_WEIGHTS.path}.0, ${FIELD_WEIGHTS.title}.0, ${FIELD_WEIGHTS.body}.0, 0.0)`;
    return {
      text: `SELECT ${columns}
        FROM (SELECT f.rowid AS "id", -${rank} AS "score" FROM "SearchPassageFts" AS f
              WHERE "SearchPassageFts" MATCH ? ORDER BY ${rank} LIMIT ?) AS c
        JOIN "SearchPassage" AS p ON p."id" = c."id"
        LEFT JOIN "Chat" AS ch ON ch."id" = p."chatId"
        WHERE ${NOT_TEMPORARY}
        ORDER BY c."score" DESC, p."updatedAt" DESC`,
      params: [`access : (${access}) AND {path title body} : (${fts5Match(query)})`, candidates],
    };
  }
  // ts_rank's weights are {D, C, B, A}: path (A) and title (B) above body (C). Normalisation
  // 1 divides by the log of the passage's length (BM25's length term), 32 maps into 0..1.
  // ts_rank (term frequency), not ts_rank_cd (cover density): over a stored tsvector it costs a
  // fraction (measured: 9,000 matches ranked in ~10 ms instead of ~100 ms) and ranked the
  // benchmark's answers as well or better. The GIN match and the (audience, kind) index meet in
  // a bitmap AND, and only the ranked `candidates` are joined.
  const weights = `'{0, ${(FIELD_WEIGHTS.body / FIELD_WEIGHTS.path).toFixed(2)}, 1, 1}'`;
  const pairs = scopes.map(() => "(?, ?)").join(", ");
  return {
    text: `SELECT ${columns}
      FROM (SELECT s."id", ts_rank(${weights}::float4[], s."searchVector", q.query, 1 | 32) AS "score"
            FROM "SearchPassage" AS s CROSS JOIN (SELECT to_tsquery('english', ?) AS query) AS q
            WHERE s."searchVector" @@ q.query AND (s."audience", s."kind") IN (${pairs})
            ORDER BY "score" DESC, s."updatedAt" DESC LIMIT ?) AS c
      JOIN "SearchPassage" AS p ON p."id" = c."id"
      LEFT JOIN "Chat" AS ch ON ch."id" = p."chatId"
      WHERE ${NOT_TEMPORARY}
      ORDER BY c."score" DESC, p."updatedAt" DESC`,
    params: [
      tsQuery(query),
      ...scopes.flatMap((scope) => [scope.audience, scope.kind]),
      candidates,
    ],
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

/** A row of the index with its score, and when it last changed. */
export interface ScoredRow {
  row: HitRow;
  score: number;
  updatedAt: Date;
}

/**
 * Best score first; scores within `TIE` of each other count as a tie, which the newer passage
 * wins.
 */
export function byScoreThenRecency(scored: readonly { row: HitRow; score: number }[]): ScoredRow[] {
  const top = scored.reduce((best, { score }) => Math.max(best, score), 0);
  const bucket = (score: number) => (top > 0 ? Math.round(score / (top * TIE)) : 0);
  return scored
    .map(({ row, score }) => ({ row, score, updatedAt: toDate(row.updatedAt) }))
    .sort(
      (a, b) => bucket(b.score) - bucket(a.score) || b.updatedAt.getTime() - a.updatedAt.getTime(),
    );
}

/** A ranked row as the hit callers get, its snippet marked with `matches`. */
export function hitOf(
  { row, score, updatedAt }: ScoredRow,
  mounts: SearchOptions["mounts"],
  matches: (word: string) => boolean,
): SearchHit {
  return {
    kind: row.kind as SearchKind,
    location: locationOf(row, mounts),
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
  };
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
  const candidates = options.embeddings
    ? Math.max(limit * CANDIDATE_FACTOR, RERANK_CANDIDATES)
    : limit * CANDIDATE_FACTOR;
  const statement = statementFor(executor, query, kinds, options.actor, candidates);
  // Full-text matches are planned with each query's words (decision 0063).
  const rows = await executor.all<HitRow>(plannedPerCall(statement.text), statement.params);
  let ordered = byScoreThenRecency(rows.map((row) => ({ row, score: Number(row.score) })));
  if (options.embeddings && ordered.length > 1) {
    try {
      const fused = await rerankWithEmbeddings(executor, {
        embeddings: options.embeddings,
        query: options.query,
        candidates: ordered.map(({ row }) => ({
          id: Number(row.id),
          text: [row.title, row.body].filter(Boolean).join("\n"),
        })),
      });
      const byId = new Map(ordered.map((hit) => [Number(hit.row.id), hit]));
      ordered = fused.map((id) => byId.get(id)!);
    } catch (error) {
      if (options.embeddings.abortSignal?.aborted) throw error;
      // The provider failed: the lexical order stands.
    }
  }
  ordered = ordered.slice(0, limit);
  const matches = matcherOf(query);
  return ordered.map((hit) => hitOf(hit, options.mounts, matches));
}

/**
 * A condition on a chat id column: the chat has a message matching `text` (the sidebar's chat
 * search). `null` when the text has no words. The caller's own filter (the person's chats)
 * applies to the chats; `owner` (who asks) narrows the index's match to their chats' messages
 * first, so the work follows their chats, not everyone's.
 */
export function chatMessageMatch(
  dialect: SqlExecutor["dialect"],
  column: string,
  text: string,
  owner?: SearchActor,
): { sql: string; params: SqlValue[] } | null {
  const query = parseQuery(text);
  if (isEmptyQuery(query)) return null;
  const audience = owner ? chatAudience(owner.userId, owner.workspaceId) : null;
  if (dialect === "sqlite") {
    const words = `{path title body} : (${fts5Match(query)})`;
    return {
      sql: `${column} IN (SELECT p."chatId" FROM "SearchPassageFts" AS f JOIN "SearchPassage" AS p ON p."id" = f.rowid
             WHERE "SearchPassageFts" MATCH ? AND p."kind" = 'chat')`,
      params: [
        audience ? `access : "${accessToken({ kind: "chat", audience })}" AND ${words}` : words,
      ],
    };
  }
  return {
    sql: `${column} IN (SELECT p."chatId" FROM "SearchPassage" AS p
           WHERE p."searchVector" @@ to_tsquery('english', ?) AND p."kind" = 'chat'${audience ? ` AND p."audience" = ?` : ""})`,
    params: audience ? [tsQuery(query), audience] : [tsQuery(query)],
  };
}
