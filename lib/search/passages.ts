/**
 * Splitting text into passages: the unit search ranks and points at. A file is cut at its
 * Markdown headings and, inside a section, at blank lines; short paragraphs of one section are
 * joined up to `TARGET_CHARS`, long ones cut at line ends near `MAX_CHARS`. Every passage knows
 * its heading (the nearest one above it) and its 1-based, inclusive line range, so a hit names
 * exactly the lines to open (`view` with `view_range`).
 */

/** A passage of a file. */
export interface Passage {
  /** The nearest Markdown heading above the passage (without `#`), or "". */
  heading: string;
  text: string;
  /** 1-based, inclusive. */
  lineStart: number;
  lineEnd: number;
}

/** Paragraphs of one section are joined while the passage stays under this many characters. */
export const TARGET_CHARS = 600;
/** A paragraph longer than this is cut at line ends. */
export const MAX_CHARS = 1500;

const HEADING = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;

interface Block {
  lines: string[];
  start: number;
  heading: string;
}

/** The passages of a text file, in order. Blank files have none. */
export function splitIntoPassages(text: string): Passage[] {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const blocks: Block[] = [];
  let heading = "";
  let current: Block | null = null;
  let sectionStart = true;
  let inFence = false;
  const flush = () => {
    const block = current as Block | null;
    current = null;
    if (!block) return;
    while (block.lines.length > 0 && block.lines.at(-1)!.trim() === "") block.lines.pop();
    if (block.lines.length > 0) blocks.push(block);
  };
  lines.forEach((line, index) => {
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    const match = inFence ? null : HEADING.exec(line);
    if (match) {
      flush();
      heading = match[2] ?? "";
      sectionStart = true;
      current = { lines: [line], start: index + 1, heading };
      return;
    }
    if (line.trim() === "" && !inFence) {
      // A heading keeps its first paragraph with it (and the blank lines between them).
      if (current && sectionStart && HEADING.test(current.lines[0] ?? "")) current.lines.push(line);
      else flush();
      return;
    }
    if (!current) current = { lines: [], start: index + 1, heading };
    current.lines.push(line);
    sectionStart = false;
  });
  flush();

  // Cut long blocks at line ends, then join short neighbours of one section.
  const pieces: Block[] = [];
  for (const block of blocks) {
    let piece: Block = { lines: [], start: block.start, heading: block.heading };
    let size = 0;
    block.lines.forEach((line, offset) => {
      if (piece.lines.length > 0 && size + line.length + 1 > MAX_CHARS) {
        pieces.push(piece);
        piece = { lines: [], start: block.start + offset, heading: block.heading };
        size = 0;
      }
      // A single line longer than the maximum stays whole: its line range is still exact.
      piece.lines.push(line);
      size += line.length + 1;
    });
    if (piece.lines.length > 0) pieces.push(piece);
  }
  const passages: Passage[] = [];
  let open: (Passage & { chars: number }) | null = null;
  // A finished passage, without its running size.
  const close = ({ chars: _chars, ...passage }: Passage & { chars: number }) =>
    passages.push(passage);
  for (const piece of pieces) {
    const body = piece.lines.join("\n");
    const end = piece.start + piece.lines.length - 1;
    if (
      open &&
      open.heading === piece.heading &&
      !HEADING.test(piece.lines[0] ?? "") &&
      open.chars + body.length + 2 <= TARGET_CHARS
    ) {
      // Keep the blank lines between them: the text is the file's lines lineStart..lineEnd.
      const gap = piece.start - open.lineEnd - 1;
      open.text = `${open.text}${"\n".repeat(gap + 1)}${body}`;
      open.lineEnd = end;
      open.chars += body.length + 2;
      continue;
    }
    if (open) close(open);
    open = {
      heading: piece.heading,
      text: body,
      lineStart: piece.start,
      lineEnd: end,
      chars: body.length,
    };
  }
  if (open) close(open);
  return passages;
}

/** The text of a chat message's parts (a `UIMessage`'s `parts` as stored): its text parts, joined. */
export function messageText(partsJson: string): string {
  try {
    const parts: unknown = JSON.parse(partsJson);
    if (!Array.isArray(parts)) return "";
    return parts
      .filter(
        (part): part is { type: "text"; text: string } =>
          typeof part === "object" &&
          part !== null &&
          (part as { type?: unknown }).type === "text" &&
          typeof (part as { text?: unknown }).text === "string",
      )
      .map((part) => part.text)
      .join("\n");
  } catch {
    return "";
  }
}
