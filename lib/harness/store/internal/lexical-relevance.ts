/**
 * The prompt view's lexical relevance: which query terms an entry mentions, and where.
 * Kept apart from the view so it can be checked against a plain reference implementation.
 */
import type { Entry } from "../types";

const STOPWORDS = new Set(
  "a an and are as at be but by can do does for from has have how i in is it its me my no not of on or our so that the this to was we what when where which who why will with you your".split(
    " ",
  ),
);

/** Lowercased, deduplicated words of the query (at most 32, from its first 4,000 characters). */
export function queryTerms(query: string | undefined): string[] {
  if (typeof query !== "string" || query.length === 0) return [];
  const words =
    query
      .slice(0, 4000)
      .toLowerCase()
      .match(/[\p{L}\p{N}_]+/gu) ?? [];
  const terms: string[] = [];
  const seen = new Set<string>();
  for (const word of words) {
    if (word.length < 2 || STOPWORDS.has(word) || seen.has(word)) continue;
    seen.add(word);
    terms.push(word);
    if (terms.length >= 32) break;
  }
  return terms;
}

function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}

/** Cuts `value` to `limit` UTF-16 units without allocating when it is already short enough. */
function clip(value: string, limit: number): string {
  return value.length > limit ? value.slice(0, limit) : value;
}

/**
 * Lexical relevance: each query term found in the title, name, description, id or path
 * counts 2; found only in the content's first 160 characters, 1. Looking at bounded prefixes
 * keeps ranking linear in the number of entries, whatever their size.
 *
 * Per entry this costs one concatenation, one lowercase pass and one native substring search
 * per term — the fixed cost of each native call dominates at these lengths, so the head and
 * the content prefix are searched as one string: a term's first occurrence lies before the
 * boundary exactly when the head contains it (terms are word characters only, so none spans
 * the separator).
 */
export function relevance(entry: Entry, terms: readonly string[]): number {
  let head = `${clip(text(entry.title), 300)} ${clip(text(entry.id), 100)} ${clip(text(entry.path), 200)}`;
  const metadata: unknown = entry.metadata;
  if (typeof metadata === "object" && metadata !== null) {
    const name = text((metadata as Record<string, unknown>).name);
    const description = text((metadata as Record<string, unknown>).description);
    if (name) head += ` ${clip(name, 100)}`;
    if (description) head += ` ${clip(description, 300)}`;
  }
  const body = clip(text(entry.content), 160);
  const raw = `${head}\n${body}`;
  const lower = raw.toLowerCase();
  // Lowercasing never shortens text, so equal lengths mean every character kept its length
  // and the boundary did not move. Otherwise (e.g. "İ" becomes two units) lower each part.
  if (lower.length !== raw.length) return relevanceOfParts(head, body, terms);
  const boundary = head.length;
  let score = 0;
  for (let index = 0; index < terms.length; index++) {
    const at = lower.indexOf(terms[index]!);
    if (at >= 0) score += at < boundary ? 2 : 1;
  }
  return score;
}

function relevanceOfParts(head: string, body: string, terms: readonly string[]): number {
  const headLower = head.toLowerCase();
  const bodyLower = body.toLowerCase();
  let score = 0;
  for (const term of terms) {
    if (headLower.includes(term)) score += 2;
    else if (bodyLower.includes(term)) score += 1;
  }
  return score;
}
