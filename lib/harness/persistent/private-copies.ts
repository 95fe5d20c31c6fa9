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
const BASE_2 = 0x5bd1e995;

/** B^(K-1) mod 2^32 for both hashes. */
function topPower(base: number): number {
  let power = 1;
  for (let index = 0; index < K - 1; index++) power = Math.imul(power, base);
  return power;
}
const TOP = topPower(BASE);
const TOP_2 = topPower(BASE_2);

/**
 * Calls `visit(hash, start)` for every k-gram of `text` (two 32-bit rolling hashes folded into one
 * safe integer, so unrelated k-grams practically never collide; hits are checked anyway).
 */
function eachGram(text: string, visit: (hash: number, start: number) => boolean | void): void {
  if (text.length < K) return;
  let h1 = 0;
  let h2 = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (index >= K) {
      const out = text.charCodeAt(index - K);
      h1 = (h1 - Math.imul(out, TOP)) | 0;
      h2 = (h2 - Math.imul(out, TOP_2)) | 0;
    }
    h1 = (Math.imul(h1, BASE) + code) | 0;
    h2 = (Math.imul(h2, BASE_2) + code) | 0;
    if (index >= K - 1) {
      const hash = (h1 >>> 0) * 0x200000 + ((h2 >>> 0) & 0x1fffff);
      if (visit(hash, index - K + 1) === true) return;
    }
  }
}

/** The winnowed fingerprints of `text`: hash → first start position. */
function fingerprints(text: string): Map<number, number> {
  const hashes: number[] = [];
  eachGram(text, (hash) => void hashes.push(hash));
  const kept = new Map<number, number>();
  if (hashes.length === 0) return kept;
  const window = Math.min(W, hashes.length);
  let last = -1;
  for (let start = 0; start + window <= hashes.length; start++) {
    let best = start;
    for (let index = start + 1; index < start + window; index++)
      if (hashes[index]! <= hashes[best]!) best = index;
    if (best !== last) {
      last = best;
      if (!kept.has(hashes[best]!)) kept.set(hashes[best]!, best);
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
  if (left.slice(a, a + K) !== right.slice(b, b + K)) return null;
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

/**
 * The first private piece of `written` (by the order of `sources`, then position) that is long
 * enough and new. Each common region is grown once: hits inside a region already looked at are
 * skipped, so a long copy costs linear time, not quadratic.
 */
function firstCopy(
  written: string,
  prints: Map<number, number>,
  sources: readonly { path: string; text: string | null }[],
  minChars: number,
  isNew: (piece: string) => boolean,
): { source: string; chars: number } | null {
  for (const source of sources) {
    const privateText = source.text;
    if (privateText === null) continue;
    if (privateText.length < K) {
      // Too short to fingerprint: a short private file counts when it is copied whole.
      if (privateText.length >= MIN_WHOLE_FILE_CHARS && written.includes(privateText)) {
        if (isNew(privateText)) return { source: source.path, chars: privateText.length };
      }
      continue;
    }
    const needed = Math.min(minChars, Math.max(K, privateText.length));
    let coveredUntil = 0;
    let chars = 0;
    eachGram(privateText, (hash, start) => {
      if (start < coveredUntil) return;
      const at = prints.get(hash);
      if (at === undefined) return;
      const piece = commonPiece(written, at, privateText, start);
      if (piece === null) return;
      coveredUntil = piece.end - K + 1;
      if (piece.text.length < needed || !isNew(piece.text)) return;
      chars = piece.text.length;
      return true;
    });
    if (chars > 0) return { source: source.path, chars };
  }
  return null;
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

  const found: CopiedText[] = [];
  for (const file of options.written) {
    if (typeof file.content !== "string") {
      const bytes = file.content;
      const source = sources.find(
        (candidate) =>
          typeof candidate.content !== "string" &&
          bytes.byteLength > 0 &&
          sameBytes(candidate.content, bytes),
      );
      if (source && !alreadyHoldsBytes(bytes))
        found.push({ path: file.path, source: source.path, chars: bytes.byteLength });
      continue;
    }
    const written = normalise(file.content);
    const prints = fingerprints(written);
    const finding = firstCopy(written, prints, sources, minChars, isNew);
    if (finding) found.push({ path: file.path, ...finding });
  }
  return found;
}
