import type { FileContent } from "./types";

/**
 * Finding private text in what a turn writes to a shared place (docs/decisions/0031).
 *
 * Texts are compared after folding case and collapsing whitespace, so re-wrapping or re-indenting
 * a copied paragraph does not hide it. The written text is fingerprinted by winnowing (k-grams of
 * `K` characters, the smallest hash of every `W` consecutive ones kept): any common piece of
 * `K + W - 1` characters or more shares a fingerprint. Every k-gram of the private text is looked
 * up in those fingerprints; a hit is checked character by character and grown to the whole
 * common piece, which counts when it has at least `minChars` characters (or is a whole private
 * file of at least 8) and does not already occur in the shared place's base. Bytes count only
 * as an exact copy of a private file. Cost: linear in the written and private text; the shared
 * base is read only for pieces that matched.
 *
 * What this cannot see: paraphrase, translation, encodings (base64…), pieces shorter than the
 * threshold. It is the commit-time guard against verbatim copies (`cp`, `cat >`, the memory tool);
 * marking tool results as data is the other half.
 */

/** Characters per k-gram. */
const K = 16;
/** Winnowing window, in k-grams: every common piece of K + W - 1 = 23 characters is seen. */
const W = 8;

/** A private file shorter than a k-gram counts when copied whole and at least this long. */
const MIN_WHOLE_FILE_CHARS = 8;

/** The shortest common piece (normalised characters) that counts as copied. */
export const DEFAULT_MIN_COPIED_CHARS = 24;

/** A file (or entry) by its name and content. */
export interface NamedContent {
  /** An absolute path (`/persistent/user/secret.md`) or another name the person recognises. */
  path: string;
  content: FileContent;
}

/** One written file that contains text of a private one. */
export interface CopiedText {
  /** The written file. */
  path: string;
  /** The private file its text came from. */
  source: string;
  /** Normalised characters of the first common piece found (bytes: their length). */
  chars: number;
}

function normalise(text: string): string {
  return text.toLowerCase().replace(/\s+/g, " ").trim();
}

const BASE = 0x01000193;

/** B^(K-1) mod 2^32. */
const TOP = (() => {
  let power = 1;
  for (let index = 0; index < K - 1; index++) power = Math.imul(power, BASE);
  return power;
})();

/**
 * A rolling hash of every k-gram of `text`, cut to 30 bits so that V8 keeps it a small integer
 * (no allocation per character, fast map keys). Collisions are possible and harmless: every hit
 * is checked character by character.
 */
function gramHashes(text: string): Int32Array {
  const count = Math.max(0, text.length - K + 1);
  const hashes = new Int32Array(count);
  let hash = 0;
  for (let index = 0; index < text.length; index++) {
    if (index >= K) hash = (hash - Math.imul(text.charCodeAt(index - K), TOP)) | 0;
    hash = (Math.imul(hash, BASE) + text.charCodeAt(index)) | 0;
    if (index >= K - 1) hashes[index - K + 1] = hash & 0x3fffffff;
  }
  return hashes;
}

/** Start positions kept per fingerprint: repetitive text (tables, lists) has a few of each. */
const MAX_POSITIONS = 8;

/** The winnowed fingerprints of `text`: hash → start positions (the first few). */
function fingerprints(text: string): Map<number, number[]> {
  const hashes = gramHashes(text);
  const kept = new Map<number, number[]>();
  if (hashes.length === 0) return kept;
  const window = Math.min(W, hashes.length);
  let last = -1;
  for (let start = 0; start + window <= hashes.length; start++) {
    let best = start;
    for (let index = start + 1; index < start + window; index++)
      if (hashes[index]! <= hashes[best]!) best = index;
    if (best !== last) {
      last = best;
      const positions = kept.get(hashes[best]!);
      if (!positions) kept.set(hashes[best]!, [best]);
      else if (positions.length < MAX_POSITIONS) positions.push(best);
    }
  }
  return kept;
}

/**
 * The common piece around a k-gram both texts hold at `a` and `b`, and where it ends in `right`;
 * `null` if the k-grams differ (a hash collision).
 */
function commonPiece(
  left: string,
  a: number,
  right: string,
  b: number,
): { text: string; end: number } | null {
  for (let index = 0; index < K; index++)
    if (left.charCodeAt(a + index) !== right.charCodeAt(b + index)) return null;
  let before = 0;
  while (a - before > 0 && b - before > 0 && left[a - before - 1] === right[b - before - 1])
    before++;
  let after = K;
  while (
    a + after < left.length &&
    b + after < right.length &&
    left[a + after] === right[b + after]
  )
    after++;
  return { text: left.slice(a - before, a + after), end: b + after };
}

function sameBytes(left: Uint8Array, right: Uint8Array): boolean {
  if (left.byteLength !== right.byteLength) return false;
  for (let index = 0; index < left.byteLength; index++)
    if (left[index] !== right[index]) return false;
  return true;
}

/** Bits of the prefilter that spares most map lookups: 2^22 bits, 512 KiB. */
const FILTER_BITS = 22;

/**
 * The private pieces of the written texts, scanning every private text once whatever the number
 * of written files. `written` is every written text joined by "\n" (which normalised text never
 * holds, so no k-gram spans two files); `fileAt(position)` says which file a position is in.
 * Each common region is grown once per written file: hits inside a region already looked at are
 * skipped, so a long copy costs linear time, not quadratic.
 */
function findPieces(options: {
  written: string;
  fileAt: (position: number) => number;
  files: number;
  sources: readonly { path: string; text: string | null }[];
  minChars: number;
  isNew: (piece: string) => boolean;
}): Map<number, { source: string; chars: number }> {
  const { written, fileAt, sources, minChars, isNew } = options;
  const found = new Map<number, { source: string; chars: number }>();
  const prints = fingerprints(written);
  const filter = new Uint8Array(1 << (FILTER_BITS - 3));
  const mask = (1 << FILTER_BITS) - 1;
  for (const hash of prints.keys()) filter[(hash & mask) >>> 3]! |= 1 << (hash & 7);
  for (const source of sources) {
    if (found.size === options.files) break;
    const privateText = source.text;
    if (privateText === null) continue;
    if (privateText.length < K) {
      // Too short to fingerprint: a short private file counts when it is copied whole.
      if (privateText.length < MIN_WHOLE_FILE_CHARS || !isNew(privateText)) continue;
      for (
        let at = written.indexOf(privateText);
        at !== -1;
        at = written.indexOf(privateText, at + 1)
      ) {
        const file = fileAt(at);
        if (!found.has(file)) found.set(file, { source: source.path, chars: privateText.length });
      }
      continue;
    }
    const needed = Math.min(minChars, privateText.length);
    const hashes = gramHashes(privateText);
    // Per written file, where in this private text its last common region ended: hits before
    // that are inside a region already grown.
    const coveredUntil = new Map<number, number>();
    for (let start = 0; start < hashes.length; start++) {
      const hash = hashes[start]!;
      if ((filter[(hash & mask) >>> 3]! & (1 << (hash & 7))) === 0) continue;
      const positions = prints.get(hash);
      if (positions === undefined) continue;
      for (const at of positions) {
        const file = fileAt(at);
        if (found.has(file) || start < (coveredUntil.get(file) ?? 0)) continue;
        const piece = commonPiece(written, at, privateText, start);
        if (piece === null) continue;
        coveredUntil.set(file, piece.end - K + 1);
        if (piece.text.length >= needed && isNew(piece.text))
          found.set(file, { source: source.path, chars: piece.text.length });
      }
    }
  }
  return found;
}

/**
 * The written files that contain text of a private file that the shared place did not already
 * hold: at most one finding per written file (the first piece found, from the first source that
 * has one), in the order `written` lists them. Empty when nothing was copied.
 */
export function findCopiedText(options: {
  /** New content of the shared place (created and updated files, an entry's text). */
  written: readonly NamedContent[];
  /** The private text: the person's memory at the turn's start and as the turn left it. */
  sources: readonly NamedContent[];
  /** What the shared place held already (its base): pieces found there are not new. */
  already: readonly FileContent[];
  /** Default `DEFAULT_MIN_COPIED_CHARS`. */
  minChars?: number;
}): CopiedText[] {
  const minChars = options.minChars ?? DEFAULT_MIN_COPIED_CHARS;
  const sources = options.sources.map((source) => ({
    path: source.path,
    content: source.content,
    text: typeof source.content === "string" ? normalise(source.content) : null,
  }));
  let alreadyTexts: string[] | null = null;
  const isNew = (piece: string): boolean => {
    alreadyTexts ??= options.already.flatMap((content) =>
      typeof content === "string" ? [normalise(content)] : [],
    );
    return !alreadyTexts.some((text) => text.includes(piece));
  };
  const alreadyHoldsBytes = (bytes: Uint8Array): boolean =>
    options.already.some((content) => typeof content !== "string" && sameBytes(content, bytes));

  const found = new Map<number, CopiedText>();
  const texts: { index: number; text: string }[] = [];
  // Whole copies (`cp`, a file re-created as it was) are found by equality, without fingerprints.
  const wholeTexts = new Map<string, string>();
  for (const source of sources)
    if (source.text !== null && source.text.length >= MIN_WHOLE_FILE_CHARS)
      if (!wholeTexts.has(source.text)) wholeTexts.set(source.text, source.path);
  options.written.forEach((file, index) => {
    if (typeof file.content === "string") {
      const text = normalise(file.content);
      const whole = wholeTexts.get(text);
      if (whole !== undefined && isNew(text))
        found.set(index, { path: file.path, source: whole, chars: text.length });
      else texts.push({ index, text });
      return;
    }
    const bytes = file.content;
    const source = sources.find(
      (candidate) =>
        typeof candidate.content !== "string" &&
        bytes.byteLength > 0 &&
        sameBytes(candidate.content, bytes),
    );
    if (source && !alreadyHoldsBytes(bytes))
      found.set(index, { path: file.path, source: source.path, chars: bytes.byteLength });
  });
  if (texts.length > 0) {
    const starts: number[] = [];
    let length = 0;
    for (const { text } of texts) {
      starts.push(length);
      length += text.length + 1;
    }
    const fileAt = (position: number): number => {
      let low = 0;
      let high = starts.length - 1;
      while (low < high) {
        const middle = (low + high + 1) >>> 1;
        if (starts[middle]! <= position) low = middle;
        else high = middle - 1;
      }
      return low;
    };
    const pieces = findPieces({
      written: texts.map((entry) => entry.text).join("\n"),
      fileAt,
      files: texts.length,
      sources,
      minChars,
      isNew,
    });
    for (const [file, piece] of pieces) {
      const index = texts[file]!.index;
      found.set(index, { path: options.written[index]!.path, ...piece });
    }
  }
  return [...found.entries()].sort(([a], [b]) => a - b).map(([, copy]) => copy);
}
