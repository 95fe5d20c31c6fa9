/**
 * The prompt view's lexical relevance, written plainly. `entry-facts.ts` computes the same
 * scores from words it remembers per entry; its tests check it against `relevance` here.
 *
 * Definition:
 * - A text's words are the maximal runs of letters, digits and `_` in the lowercased text;
 *   words shorter than two UTF-16 units are ignored.
 * - Query terms are the query's words (from its first 4,000 characters) minus stopwords,
 *   deduplicated, at most 32, with a plural `s` removed from terms of four or more units
 *   (`deploys` → `deploy`; `ss`, `us` and `is` endings are kept).
 * - A term matches a text when one of the text's words starts with it (`deploy` matches
 *   `deployment` and `Deployed`, `art` does not match `start`).
 * - Each term matching the head — title, id, path, and a skill's or sub-agent's name and
 *   description — scores 2; matching only the content's first 160 characters, 1.
 * Looking at bounded prefixes keeps ranking linear in the number of entries, whatever their size.
 */
import type { Entry } from "../types";

const STOPWORDS = new Set(
  "a an and are as at be but by can do does for from has have how i in is it its me my no not of on or our so that the this to was we what when where which who why will with you your".split(
    " ",
  ),
);

/** At most this many query terms count. */
export const MAX_QUERY_TERMS = 32;

const WORD = /[\p{L}\p{N}_]+/gu;

/** Head fields and how much of each is read. */
export const HEAD_LIMITS = { title: 300, id: 100, path: 200, name: 100, description: 300 };
/** How much of an entry's content is read. */
export const BODY_LIMIT = 160;

/** The words of `text` that can match a term: lowercased, two or more UTF-16 units. */
export function wordsOf(text: string): string[] {
  const words = text.toLowerCase().match(WORD) ?? [];
  return words.filter((word) => word.length >= 2);
}

function stem(word: string): string {
  if (word.length >= 4 && word.endsWith("s") && !/(?:ss|us|is)$/.test(word)) {
    return word.slice(0, -1);
  }
  return word;
}

/** The query's terms, in order of first appearance. */
export function queryTerms(query: string | undefined): string[] {
  if (typeof query !== "string" || query.length === 0) return [];
  const terms: string[] = [];
  const seen = new Set<string>();
  for (const word of wordsOf(query.slice(0, 4000))) {
    if (STOPWORDS.has(word)) continue;
    const term = stem(word);
    if (seen.has(term)) continue;
    seen.add(term);
    terms.push(term);
    if (terms.length >= MAX_QUERY_TERMS) break;
  }
  return terms;
}

function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}

function clip(value: string, limit: number): string {
  return value.length > limit ? value.slice(0, limit) : value;
}

/** The head text of an entry, as relevance reads it (fields joined by spaces). */
export function headTextOf(entry: Entry): string {
  const metadata: unknown = entry.metadata;
  const fields =
    typeof metadata === "object" && metadata !== null
      ? (metadata as Record<string, unknown>)
      : ({} as Record<string, unknown>);
  return [
    clip(text(entry.title), HEAD_LIMITS.title),
    clip(text(entry.id), HEAD_LIMITS.id),
    clip(text(entry.path), HEAD_LIMITS.path),
    clip(text(fields.name), HEAD_LIMITS.name),
    clip(text(fields.description), HEAD_LIMITS.description),
  ].join(" ");
}

/** The content prefix relevance reads. */
export function bodyTextOf(entry: Entry): string {
  return clip(text(entry.content), BODY_LIMIT);
}

/** The entry's relevance to `terms` (see the module comment). */
export function relevance(entry: Entry, terms: readonly string[]): number {
  const head = wordsOf(headTextOf(entry));
  const body = wordsOf(bodyTextOf(entry));
  let score = 0;
  for (const term of terms) {
    if (head.some((word) => word.startsWith(term))) score += 2;
    else if (body.some((word) => word.startsWith(term))) score += 1;
  }
  return score;
}
