/** Snippets: a short window of a passage around its matched words, with those words marked. */

/** A piece of a snippet; `marked` pieces are words the query matched. */
export interface SnippetSegment {
  text: string;
  marked?: true;
}

/** Words a snippet shows around its best spot. */
const WINDOW_WORDS = 28;

/**
 * The window of `text` holding the most matched words (the first such), with ellipses where it
 * was cut. Plain text: the UI renders segments, the model reads `formatSnippet`.
 */
export function snippetOf(text: string, matches: (word: string) => boolean): SnippetSegment[] {
  const tokens = text.replace(/\s+/g, " ").trim().split(" ");
  if (tokens.length === 0 || tokens[0] === "") return [];
  const hit = tokens.map((token) =>
    (token.match(/[\p{L}\p{N}_]+/gu) ?? []).some((word) => matches(word)),
  );
  let best = 0;
  let bestCount = -1;
  let count = 0;
  for (let index = 0; index < tokens.length; index += 1) {
    if (hit[index]) count += 1;
    if (index >= WINDOW_WORDS && hit[index - WINDOW_WORDS]) count -= 1;
    const start = Math.max(0, index - WINDOW_WORDS + 1);
    if (count > bestCount) {
      bestCount = count;
      best = start;
    }
  }
  // Start a few words before the first hit of the window, so it is read in context.
  const firstHit = hit.indexOf(true, best);
  const start = firstHit === -1 ? 0 : Math.max(0, firstHit - 4);
  const end = Math.min(tokens.length, start + WINDOW_WORDS);
  const segments: SnippetSegment[] = [];
  const push = (piece: string, marked: boolean) => {
    const last = segments.at(-1);
    if (last && !last.marked && !marked) last.text += piece;
    else segments.push(marked ? { text: piece, marked: true } : { text: piece });
  };
  if (start > 0) push("… ", false);
  for (let index = start; index < end; index += 1) {
    const token = tokens[index]!;
    if (index > start) push(" ", false);
    if (!hit[index]) {
      push(token, false);
      continue;
    }
    // Mark the matched words, not the punctuation around them.
    let rest = token;
    for (const match of token.matchAll(/[\p{L}\p{N}_]+/gu)) {
      const at = rest.indexOf(match[0]);
      if (at > 0) push(rest.slice(0, at), false);
      push(match[0], matches(match[0]));
      rest = rest.slice(at + match[0].length);
    }
    if (rest) push(rest, false);
  }
  if (end < tokens.length) push(" …", false);
  return segments;
}

/** A snippet as text for a model or a terminal: marked words in `**`. */
export function formatSnippet(segments: readonly SnippetSegment[]): string {
  return segments
    .map((segment) => (segment.marked ? `**${segment.text}**` : segment.text))
    .join("");
}
