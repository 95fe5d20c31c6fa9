import type { SearchHit } from "./search";
import { formatSnippet } from "./snippet";

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
