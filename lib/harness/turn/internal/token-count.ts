import { countPromptTokens } from "../../store";

/** Texts at most this long are remembered (longer ones are counted each time). */
const MAX_TEXT_CHARS = 200_000;
/** Characters of remembered texts kept in all (least recently used out first). */
const MAX_TOTAL_CHARS = 4_000_000;

const counts = new Map<string, number>();
let totalChars = 0;

/**
 * `countPromptTokens`, remembered by exact text for the process: a turn's instruction sections
 * (base prompt, tools, an unchanged memory listing) and the conversation's earlier messages
 * (compaction's estimate) are the same text turn after turn, so only new text is tokenized.
 * A pure function of the text, so a remembered count is the count.
 */
export function countTokensRemembered(text: string): number {
  if (text.length > MAX_TEXT_CHARS) return countPromptTokens(text);
  const known = counts.get(text);
  if (known !== undefined) {
    counts.delete(text);
    counts.set(text, known);
    return known;
  }
  const tokens = countPromptTokens(text);
  counts.set(text, tokens);
  totalChars += text.length;
  while (totalChars > MAX_TOTAL_CHARS) {
    const oldest = counts.keys().next();
    if (oldest.done) break;
    counts.delete(oldest.value);
    totalChars -= oldest.value.length;
  }
  return tokens;
}
