/**
 * What a person or a model types, parsed once for both databases: words, "quoted phrases" and
 * a trailing prefix (the last word, unless the query ends in a space). Only letters, digits and
 * `_` reach the database's query syntax, so no input can change its meaning.
 */

export interface ParsedQuery {
  /** Lower-cased single words (stop words removed when anything else is left). */
  terms: string[];
  /** Phrases of two or more words, each as its words. */
  phrases: string[][];
  /** Whether the last term is matched as a prefix (`dash` finds `dashboard`). */
  prefixLast: boolean;
}

/** The longest query accepted, in characters; longer input is cut. */
export const MAX_QUERY_CHARS = 500;
/** At most this many terms reach the index. */
export const MAX_TERMS = 16;

const STOP_WORDS = new Set(
  (
    "a an and are as at be but by did do does for from had has have how i if in into is it its " +
    "me my no not of on or our so that the their them then there these they this to was we " +
    "were what when where which who whom why will with you your"
  ).split(" "),
);

const WORD = /[\p{L}\p{N}_]+/gu;

function wordsOf(text: string): string[] {
  return [...text.normalize("NFKC").toLowerCase().matchAll(WORD)].map((match) => match[0]);
}

/** Parses a query; an empty result (no words) matches nothing. */
export function parseQuery(input: string): ParsedQuery {
  const text = input.slice(0, MAX_QUERY_CHARS);
  const phrases: string[][] = [];
  const rest = text.replace(/"([^"]*)"/g, (_, inner: string) => {
    const words = wordsOf(inner);
    if (words.length > 1) phrases.push(words.slice(0, MAX_TERMS));
    else if (words.length === 1) return ` ${words[0]} `;
    return " ";
  });
  const all = wordsOf(rest);
  const kept = all.filter((word) => !STOP_WORDS.has(word));
  const terms = [...new Set(kept.length > 0 || phrases.length > 0 ? kept : all)].slice(
    0,
    MAX_TERMS,
  );
  const endsInWord = /[\p{L}\p{N}_]$/u.test(text) && terms.length > 0;
  const last = all.at(-1);
  return { terms, phrases, prefixLast: endsInWord && last !== undefined && terms.at(-1) === last };
}

export function isEmptyQuery(query: ParsedQuery): boolean {
  return query.terms.length === 0 && query.phrases.length === 0;
}

/**
 * The FTS5 MATCH expression: any term or phrase (OR; bm25 ranks passages holding more of them
 * higher), each quoted so it is taken literally; the last term also as a prefix.
 */
export function fts5Match(query: ParsedQuery): string {
  const quote = (word: string) => `"${word.replace(/"/g, "")}"`;
  const parts = query.terms.map((term, index) =>
    query.prefixLast && index === query.terms.length - 1 && term.length >= 2
      ? `${quote(term)}*`
      : quote(term),
  );
  for (const phrase of query.phrases) parts.push(`"${phrase.join(" ")}"`);
  return parts.join(" OR ");
}

/** The PostgreSQL `to_tsquery` text: the same shape with `|`, `:*` and `<->`. */
export function tsQuery(query: ParsedQuery): string {
  const parts = query.terms.map((term, index) =>
    query.prefixLast && index === query.terms.length - 1 && term.length >= 2 ? `${term}:*` : term,
  );
  for (const phrase of query.phrases) parts.push(`(${phrase.join(" <-> ")})`);
  return parts.join(" | ");
}

/**
 * Whether a word of a text (lower-cased) is `term` or one of its inflections, roughly as the
 * index's stemmer would have it (`metrics` for `metric`, `policies` for `policy`).
 */
export function termMatcher(term: string): (lowerWord: string) => boolean {
  const stem = term.length >= 4 ? term.slice(0, Math.max(4, term.length - 2)) : null;
  return (lower) =>
    lower === term || (stem !== null && lower.startsWith(stem) && lower.length <= stem.length + 4);
}

/**
 * A pattern finding, in lower-cased text, the words `termMatcher(term)` accepts (flags `gu`):
 * for counting a word's occurrences without splitting the text into words.
 */
export function termPattern(term: string): RegExp {
  const stem = term.length >= 4 ? term.slice(0, Math.max(4, term.length - 2)) : null;
  // Terms are letters, digits and `_` only (parseQuery): nothing in them is a pattern's syntax.
  const word = stem === null ? term : `${term}|${stem}[\\p{L}\\p{N}_]{0,4}`;
  return new RegExp(`(?<![\\p{L}\\p{N}_])(?:${word})(?![\\p{L}\\p{N}_])`, "gu");
}

/** Whether `word` (any case) is one of the query's words, or starts with its prefix term. */
export function matcherOf(query: ParsedQuery): (word: string) => boolean {
  const terms = [...new Set([...query.terms, ...query.phrases.flat()])].map(termMatcher);
  const prefix = query.prefixLast ? query.terms.at(-1) : undefined;
  return (word) => {
    const lower = word.toLowerCase();
    if (prefix && prefix.length >= 2 && lower.startsWith(prefix)) return true;
    // Stemmed matches (`metrics` for `metric`) are marked too.
    return terms.some((matches) => matches(lower));
  };
}
