import { plannedPerCall, type SqlExecutor, type SqlValue } from "@/lib/sql-storage/sql";
import type { SearchKind } from "./index-store";
import { isEmptyQuery, matcherOf, parseQuery, termPattern } from "./query";
import {
  FIELD_WEIGHTS,
  NOT_TEMPORARY,
  PASSAGE_COLUMNS,
  accessToken,
  byScoreThenRecency,
  hitOf,
  visibleScopes,
  type HitRow,
  type SearchActor,
  type SearchHit,
  type SearchOptions,
} from "./search";
import { formatSnippet } from "./snippet";

/**
 * A word of the message found in more passages than this, among those the person may see, is
 * common: it does not choose the prompt's candidates — the rare words do, or, when every word is
 * common, the newest passages holding all of them (decision 0063). It still counts in the ranking.
 */
export const PROMPT_TERM_MAX_PASSAGES = 300;
/** At most this many passages are read and ranked for the prompt. */
export const PROMPT_MAX_CANDIDATES = 900;

/**
 * On PostgreSQL, a word the planner's statistics estimate in more passages than this (in the
 * whole table) is taken as common without counting.
 */
const COMMON_ESTIMATE = 10 * PROMPT_TERM_MAX_PASSAGES;

/** BM25's term-frequency saturation and length normalisation. */
const K1 = 1.2;
const B = 0.75;

export type Scopes = ReturnType<typeof visibleScopes>;

/** FTS5's MATCH over what `scopes` may see, for these words joined by `operator`. */
function ftsMatch(scopes: Scopes, terms: readonly string[], operator: "OR" | "AND"): string {
  const access = scopes.map((scope) => `"${accessToken(scope)}"`).join(" OR ");
  return `access : (${access}) AND {path title body} : (${terms.map((term) => `"${term}"`).join(` ${operator} `)})`;
}

/** PostgreSQL's condition on `s` for what `scopes` may see, and its parameters. */
function pgScope(scopes: Scopes): { sql: string; params: SqlValue[] } {
  return {
    sql: `(s."audience", s."kind") IN (${scopes.map(() => "(?, ?)").join(", ")})`,
    params: scopes.flatMap((scope) => [scope.audience, scope.kind]),
  };
}

/** The statement counting, per word, the passages `scopes` may see that hold it (at most `cap + 1`). */
function countStatement(
  executor: SqlExecutor,
  terms: readonly string[],
  scopes: Scopes,
): { text: string; params: SqlValue[] } {
  const capped = PROMPT_TERM_MAX_PASSAGES + 1;
  const total = `(SELECT max("id") FROM "SearchPassage") AS "total"`;
  if (executor.dialect === "sqlite") {
    return {
      text: `SELECT ${terms
        .map(
          (_, index) =>
            `(SELECT count(*) FROM (SELECT 1 FROM "SearchPassageFts" WHERE "SearchPassageFts" MATCH ? LIMIT ?)) AS "n${index}"`,
        )
        .join(", ")}, ${total}`,
      params: terms.flatMap((term) => [ftsMatch(scopes, [term], "OR"), capped]),
    };
  }
  // PostgreSQL's GIN index cannot stop early: counting a word held by a million passages builds
  // a bitmap of a million. So a word the planner's statistics (ANALYZE's most common elements of
  // "searchVector") already know to be common is not counted: its estimate stands.
  const scope = pgScope(scopes);
  const estimates = terms
    .map(
      (_, index) =>
        `(SELECT max(m.f) * max(st.reltuples) FROM st, unnest(st.elems, st.freqs) AS m(e, f)
           WHERE m.e = ANY (tsvector_to_array(to_tsvector('english', ?)))) AS "e${index}"`,
    )
    .join(", ");
  return {
    text: `WITH st AS (
        SELECT ps."most_common_elems"::text::text[] AS elems, ps."most_common_elem_freqs" AS freqs,
               (SELECT c."reltuples" FROM pg_class AS c WHERE c."oid" = '"SearchPassage"'::regclass) AS reltuples
        FROM pg_stats AS ps
        WHERE ps."schemaname" = current_schema() AND ps."tablename" = 'SearchPassage'
          AND ps."attname" = 'searchVector')
      SELECT ${terms
        .map(
          (_, index) =>
            `"e${index}", CASE WHEN coalesce("e${index}", 0) > ? THEN NULL ELSE
               (SELECT count(*) FROM (SELECT 1 FROM "SearchPassage" AS s
                 WHERE s."searchVector" @@ to_tsquery('english', ?) AND ${scope.sql} LIMIT ?) AS c)
             END AS "n${index}"`,
        )
        .join(", ")}, ${total}
      FROM (SELECT ${estimates}) AS est`,
    params: [
      ...terms.flatMap((term) => [COMMON_ESTIMATE, term, ...scope.params, capped]),
      ...terms,
    ],
  };
}

/**
 * The statement reading the candidates: every passage `scopes` may see holding a rare word, and
 * the newest `PROMPT_TERM_MAX_PASSAGES` holding every common one.
 */
function candidateStatement(
  executor: SqlExecutor,
  rare: readonly string[],
  common: readonly string[],
  scopes: Scopes,
): { text: string; params: SqlValue[] } {
  const parts: string[] = [];
  const params: SqlValue[] = [];
  if (executor.dialect === "sqlite") {
    if (rare.length > 0) {
      parts.push(
        `SELECT "id" FROM (SELECT rowid AS "id" FROM "SearchPassageFts" WHERE "SearchPassageFts" MATCH ? LIMIT ?)`,
      );
      params.push(ftsMatch(scopes, rare, "OR"), PROMPT_MAX_CANDIDATES);
    }
    if (common.length > 0) {
      parts.push(
        `SELECT "id" FROM (SELECT rowid AS "id" FROM "SearchPassageFts" WHERE "SearchPassageFts" MATCH ? ORDER BY rowid DESC LIMIT ?)`,
      );
      params.push(ftsMatch(scopes, common, "AND"), PROMPT_TERM_MAX_PASSAGES);
    }
    return {
      text: `SELECT ${PASSAGE_COLUMNS}
        FROM (${parts.join(" UNION ")}) AS c
        JOIN "SearchPassage" AS p ON p."id" = c."id"
        LEFT JOIN "Chat" AS ch ON ch."id" = p."chatId"
        WHERE ${NOT_TEMPORARY}`,
      params,
    };
  }
  const scope = pgScope(scopes);
  if (rare.length > 0) {
    parts.push(
      `(SELECT s."id" FROM "SearchPassage" AS s
        WHERE s."searchVector" @@ to_tsquery('english', ?) AND ${scope.sql} LIMIT ?)`,
    );
    params.push(rare.join(" | "), ...scope.params, PROMPT_MAX_CANDIDATES);
  }
  if (common.length > 0) {
    parts.push(
      `(SELECT s."id" FROM "SearchPassage" AS s
        WHERE s."searchVector" @@ to_tsquery('english', ?) AND ${scope.sql}
        ORDER BY s."id" DESC LIMIT ?)`,
    );
    params.push(common.join(" & "), ...scope.params, PROMPT_TERM_MAX_PASSAGES);
  }
  return {
    text: `SELECT ${PASSAGE_COLUMNS}
      FROM "SearchPassage" AS p LEFT JOIN "Chat" AS ch ON ch."id" = p."chatId"
      WHERE p."id" IN (${parts.join(" UNION ")}) AND ${NOT_TEMPORARY}`,
    params,
  };
}

/** A word of the message and the passages holding it, counted or estimated. */
export interface WordCount {
  term: string;
  /** Passages the person may see that hold it, counted up to `PROMPT_TERM_MAX_PASSAGES + 1`; or estimated. */
  passages: number;
  /** `false`: PostgreSQL's statistics estimate it common (in the whole table), so it was not counted. */
  counted: boolean;
}

/**
 * Step 1 of `searchPromptPassages`: each word's passages among what `scopes` may see, counted
 * up to the cap (or, on PostgreSQL, estimated from the planner's statistics when they say it is
 * common), and the index's size (its largest id) for the words' weights.
 */
export async function countWords(
  executor: SqlExecutor,
  terms: readonly string[],
  scopes: Scopes,
): Promise<{ total: number; words: WordCount[] }> {
  const count = countStatement(executor, terms, scopes);
  const row = await executor.get<Record<string, unknown>>(plannedPerCall(count.text), count.params);
  return {
    total: Math.max(1, Number(row?.total ?? 1)),
    words: terms.map((term, index) => {
      const counted = row?.[`n${index}`];
      return counted === null
        ? { term, passages: Math.round(Number(row?.[`e${index}`] ?? 0)), counted: false }
        : { term, passages: Number(counted ?? 0), counted: true };
    }),
  };
}

/**
 * The passages most relevant to a person's message, for the prompt — at a bounded cost however
 * large the knowledge base is (decision 0063):
 *
 * 1. One statement counts, for each word of the message, the passages the person may see that
 *    hold it, stopping past `PROMPT_TERM_MAX_PASSAGES`.
 * 2. One statement reads the candidates: every passage the person may see holding one of the
 *    rare words (rarest first while they fit `PROMPT_MAX_CANDIDATES`), and the newest
 *    `PROMPT_TERM_MAX_PASSAGES` holding every common word.
 * 3. The candidates are ranked here with BM25 over every word of the message, with the search's
 *    fields and weights (path and heading 4, body 1), each word weighed by how rare it is among
 *    what the person may see (a common word as if it were just past the count); scores within
 *    2% tie and the newer passage wins.
 *
 * The access rule is the search's: both statements ask only for what `actor` may see. The cost
 * follows the counts' bound, never the size of the knowledge base; the agent's `search` ranks
 * inside the index without it.
 */
export async function searchPromptPassages(
  executor: SqlExecutor,
  options: {
    actor: SearchActor;
    message: string;
    kinds: readonly SearchKind[];
    limit: number;
    mounts?: SearchOptions["mounts"];
  },
): Promise<SearchHit[]> {
  const parsed = parseQuery(options.message);
  if (isEmptyQuery(parsed)) return [];
  // A sent message is whole: its last word is a word, not a prefix; a phrase counts by its words.
  const terms = [...new Set([...parsed.terms, ...parsed.phrases.flat()])].slice(0, 16);
  const scopes = visibleScopes(options.actor, options.kinds);
  if (scopes.length === 0) return [];

  const { total, words } = await countWords(executor, terms, scopes);
  const found = words
    .filter(({ passages }) => passages > 0)
    .sort((a, b) => a.passages - b.passages);
  if (found.length === 0) return [];
  const rare: string[] = [];
  const common: string[] = [];
  let budget = PROMPT_MAX_CANDIDATES;
  for (const { term, passages } of found) {
    if (passages <= PROMPT_TERM_MAX_PASSAGES && passages <= budget) {
      rare.push(term);
      budget -= passages;
    } else if (passages > PROMPT_TERM_MAX_PASSAGES) common.push(term);
    // A rare word past the budget still counts in the ranking below.
  }

  // Rare words choose the candidates; only a message of common words alone reads the newest
  // passages holding all of them (on PostgreSQL that builds their bitmaps: decision 0063).
  const statement = candidateStatement(executor, rare, rare.length > 0 ? [] : common, scopes);
  const rows = await executor.all<HitRow>(plannedPerCall(statement.text), statement.params);
  if (rows.length === 0) return [];

  const weighted = found.map(({ term, passages }) => ({
    pattern: termPattern(term),
    idf: Math.log(1 + (total - passages + 0.5) / (passages + 0.5)),
  }));
  // Each passage's weighted length (in characters) and weighted count of each word of the
  // message (BM25F over path, heading and body).
  const fields = rows.map((row) => {
    const texts = [
      { text: row.path.toLowerCase(), weight: FIELD_WEIGHTS.path },
      { text: row.kind === "chat" ? "" : row.title.toLowerCase(), weight: FIELD_WEIGHTS.title },
      { text: row.body.toLowerCase(), weight: FIELD_WEIGHTS.body },
    ];
    const length = texts.reduce((sum, { text, weight }) => sum + weight * text.length, 0);
    const frequency = weighted.map(({ pattern }) =>
      texts.reduce((sum, { text, weight }) => sum + weight * (text.match(pattern)?.length ?? 0), 0),
    );
    return { row, frequency, length };
  });
  const averageLength = fields.reduce((sum, field) => sum + field.length, 0) / fields.length;
  const scored = fields.map(({ row, frequency, length }) => {
    const norm = 1 - B + (B * length) / Math.max(1, averageLength);
    let score = 0;
    weighted.forEach(({ idf }, index) => {
      const times = frequency[index]!;
      if (times > 0) score += (idf * times * (K1 + 1)) / (times + K1 * norm);
    });
    return { row, score };
  });
  const matches = matcherOf({
    terms: found.map(({ term }) => term),
    phrases: [],
    prefixLast: false,
  });
  return byScoreThenRecency(scored.filter(({ score }) => score > 0))
    .slice(0, options.limit)
    .map((hit) => hitOf(hit, options.mounts, matches));
}

/** Characters per token, for the budget (o200k averages about four on English prose). */
const CHARS_PER_TOKEN = 4;

/**
 * The prompt's section of passages relevant to the person's message (company knowledge, docs
 * and their memory), best first, as many as fit `tokenBudget`, with a count of the rest — so the
 * model sees what the files say, not just that they exist, and knows where to open them.
 * Empty when nothing matched.
 */
export function relevantPassagesSection(hits: readonly SearchHit[], tokenBudget: number): string {
  if (hits.length === 0) return "";
  const header =
    "## Relevant passages\nFrom memory and company knowledge, ranked for the person's message " +
    "(open the lines with memory view and view_range; `search` finds more):";
  let used = header.length;
  const lines: string[] = [];
  for (const hit of hits) {
    const heading = hit.title ? ` § ${hit.title}` : "";
    const line = `- ${hit.location} lines ${hit.lineStart}-${hit.lineEnd}${heading}: ${formatSnippet(hit.snippet)}`;
    if ((used + line.length + 1) / CHARS_PER_TOKEN > tokenBudget) break;
    lines.push(line);
    used += line.length + 1;
  }
  if (lines.length === 0) return "";
  const rest = hits.length - lines.length;
  const more =
    rest > 0 ? `\n(+${rest} more matching passage${rest === 1 ? "" : "s"} not shown)` : "";
  return `${header}\n${lines.join("\n")}${more}`;
}
