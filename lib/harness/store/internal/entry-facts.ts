// Over 500 lines, knowingly: the prompt view's per-entry and per-list caches are one exactness
// argument (a fact is reused only while every field it read is unchanged); splitting it would
// split the proof.
/**
 * What the prompt view derives from each entry — its kind's position, a numeric update time,
 * its words as small integers, its rendered lines and their token counts — remembered per
 * entry object, and per frozen list of entries as flat typed arrays (`StateFacts`), so the
 * next turn (same entries, new query) ranks 10,000 entries with integer operations instead of
 * lowercasing and searching their text again.
 *
 * Exactness: facts are keyed by the entry object and kept only while every field the view
 * reads is the same value (`===`) as when they were computed, so an entry mutated in place,
 * or a different object, is derived afresh. Remembering changes speed, never output.
 */
import type { Entry } from "../types";
import { BODY_LIMIT, HEAD_LIMITS, MAX_QUERY_TERMS } from "./lexical-relevance";
import { previousListOf } from "./snapshot-lineage";

const WORD = /[\p{L}\p{N}_]+/gu;
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** FNV-1a over UTF-16 code units (the same as `idsOf`'s in-place scan computes). */
function hashOf(word: string): number {
  let hash = FNV_OFFSET;
  for (let index = 0; index < word.length; index++) {
    hash = Math.imul(hash ^ word.charCodeAt(index), FNV_PRIME);
  }
  return hash;
}

/**
 * Whether `source` holds `word` at `start`, ASCII letters compared case-folded (the caller
 * checked that it fits; `word` is lowercase).
 */
function sameFolded(word: string, source: string, start: number): boolean {
  for (let index = 0; index < word.length; index++) {
    let code = source.charCodeAt(start + index);
    if (code >= 65 && code <= 90) code += 32;
    if (word.charCodeAt(index) !== code) return false;
  }
  return true;
}

function grown(array: Int32Array, size: number): Int32Array<ArrayBuffer> {
  let capacity = Math.max(1, array.length);
  while (capacity < size) capacity *= 2;
  const next = new Int32Array(capacity);
  next.set(array);
  return next;
}

/** Word ids of one text: a plain array (small typed arrays cost far more to allocate). */
type WordIds = readonly number[];
const NO_WORDS: WordIds = Object.freeze([]);
const HEAD_FIELD_LIMITS = [
  HEAD_LIMITS.title,
  HEAD_LIMITS.id,
  HEAD_LIMITS.path,
  HEAD_LIMITS.name,
  HEAD_LIMITS.description,
];

function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}

/** A dictionary this large is started afresh (facts then re-derive their words lazily). */
export const MAX_DICTIONARY_WORDS = 250_000;

/**
 * Interns words to integers and, per query, marks which terms each word matches (a word
 * matches a term when it starts with it). Words are bucketed by their first two UTF-16 units,
 * so a term is compared only with words that could start with it.
 */
export class WordDictionary {
  private readonly words: string[] = [];
  /** Open addressing: word id + 1 per slot, 0 = empty; sized to stay at most half full. */
  private slots = new Int32Array(4096);
  private readonly byStart = new Map<string, number[]>();
  private masks = new Int32Array(1024);
  private stamps = new Int32Array(1024);
  private stamp = 0;
  /** The terms of the last `prepare`: words interned later are marked against them at once. */
  private terms: readonly string[] = [];
  /** Per word id, the `idsOf` call that last collected it (deduplication without sorting). */
  private collected = new Int32Array(1024);
  private collecting = 0;
  private scratch: number[] = [];

  get size(): number {
    return this.words.length;
  }

  /**
   * The distinct ids of the words of `texts` (each clipped to `limit` UTF-16 units first, as
   * `lexical-relevance.ts` reads them), in no particular order.
   */
  idsOf(texts: readonly string[], limits: readonly number[]): WordIds {
    this.collecting += 1;
    if (this.collecting >= 0x3fffffff) {
      this.collected.fill(0);
      this.collecting = 1;
    }
    let count = 0;
    for (let index = 0; index < texts.length; index++) {
      count = this.collectText(texts[index]!, limits[index]!, count);
    }
    if (count === 0) return NO_WORDS;
    const ids = this.scratch.slice(0, count);
    this.scratch.length = 0;
    return ids;
  }

  /**
   * ASCII text is scanned in place, folding case as it goes (no allocation unless a word is
   * new); text with any other character is lowercased and split by the Unicode expression.
   */
  private collectText(text: string, limit: number, count: number): number {
    const end = Math.min(text.length, limit);
    let start = -1;
    let hash = FNV_OFFSET;
    for (let index = 0; index <= end; index++) {
      let code = index < end ? text.charCodeAt(index) : 32;
      if (code >= 128) return this.collectUnicode(text.slice(0, end), count);
      if (code >= 65 && code <= 90) code += 32;
      if ((code >= 97 && code <= 122) || (code >= 48 && code <= 57) || code === 95) {
        if (start < 0) {
          start = index;
          hash = FNV_OFFSET;
        }
        hash = Math.imul(hash ^ code, FNV_PRIME);
      } else if (start >= 0) {
        if (index - start >= 2) count = this.collect(this.idOf(text, start, index, hash), count);
        start = -1;
      }
    }
    return count;
  }

  private collectUnicode(text: string, count: number): number {
    // Words already collected from this text's ASCII start are deduplicated by the stamp.
    for (const word of text.toLowerCase().match(WORD) ?? []) {
      if (word.length < 2) continue;
      count = this.collect(this.idOf(word, 0, word.length, hashOf(word)), count);
    }
    return count;
  }

  private collect(id: number, count: number): number {
    if (this.collected.length <= id) this.collected = grown(this.collected, id + 1);
    if (this.collected[id] === this.collecting) return count;
    this.collected[id] = this.collecting;
    this.scratch.push(id);
    return count + 1;
  }

  /** The id of `source.slice(start, end)` (whose hash is `hash`), interning it if new. */
  private idOf(source: string, start: number, end: number, hash: number): number {
    const length = end - start;
    const mask = this.slots.length - 1;
    let slot = hash & mask;
    for (;;) {
      const stored = this.slots[slot]!;
      if (stored === 0) break;
      const word = this.words[stored - 1]!;
      if (word.length === length && sameFolded(word, source, start)) return stored - 1;
      slot = (slot + 1) & mask;
    }
    // Either lowercase already (the Unicode path) or ASCII, whose lowercasing is the fold.
    const word = (
      start === 0 && end === source.length ? source : source.slice(start, end)
    ).toLowerCase();
    const id = this.words.length;
    this.words.push(word);
    this.slots[slot] = id + 1;
    if (this.words.length * 2 > this.slots.length) this.rehash();
    const first = word.slice(0, 2);
    const bucket = this.byStart.get(first);
    if (bucket) bucket.push(id);
    else this.byStart.set(first, [id]);
    if (this.terms.length > 0) this.markNewWord(id, word);
    return id;
  }

  private rehash(): void {
    const slots = new Int32Array(this.slots.length * 2);
    const mask = slots.length - 1;
    this.words.forEach((word, id) => {
      let slot = hashOf(word) & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = id + 1;
    });
    this.slots = slots;
  }

  /**
   * Marks the words matching each term (bit `i` for `terms[i]`); `maskOf` then reads the
   * marks. Words interned afterwards are marked as they arrive. Each call replaces the
   * previous call's marks.
   */
  prepare(terms: readonly string[]): void {
    this.terms = terms.slice(0, MAX_QUERY_TERMS);
    this.stamp += 1;
    if (this.stamp >= 0x3fffffff) {
      this.stamps.fill(0);
      this.stamp = 1;
    }
    this.ensureCapacity(this.words.length);
    for (let termIndex = 0; termIndex < this.terms.length; termIndex++) {
      const term = this.terms[termIndex]!;
      const bucket = this.byStart.get(term.slice(0, 2));
      if (!bucket) continue;
      const bit = 1 << termIndex;
      for (const id of bucket) {
        if (this.words[id]!.startsWith(term)) this.mark(id, bit);
      }
    }
  }

  private markNewWord(id: number, word: string): void {
    this.ensureCapacity(id + 1);
    for (let termIndex = 0; termIndex < this.terms.length; termIndex++) {
      if (word.startsWith(this.terms[termIndex]!)) this.mark(id, 1 << termIndex);
    }
  }

  private mark(id: number, bit: number): void {
    if (this.stamps[id] !== this.stamp) {
      this.stamps[id] = this.stamp;
      this.masks[id] = 0;
    }
    this.masks[id]! |= bit;
  }

  private ensureCapacity(size: number): void {
    if (this.masks.length >= size) return;
    this.masks = grown(this.masks, size);
    this.stamps = grown(this.stamps, size);
  }

  /** The marks of the last `prepare`, for loops that read many ids at once. */
  marks(): { stamps: Int32Array; masks: Int32Array; stamp: number } {
    return { stamps: this.stamps, masks: this.masks, stamp: this.stamp };
  }

  /** The terms (as bits) that the words `ids` match, per the last `prepare`. */
  maskOf(ids: WordIds, start = 0, end = ids.length): number {
    let mask = 0;
    const stamps = this.stamps;
    const masks = this.masks;
    const stamp = this.stamp;
    for (let index = start; index < end; index++) {
      const id = ids[index]!;
      if (stamps[id] === stamp) mask |= masks[id]!;
    }
    return mask;
  }
}

/** 2 per term matching the head, 1 per term matching only the content prefix. */
function scoreOf(head: number, body: number): number {
  return 2 * popcount(head) + popcount(body & ~head);
}

function popcount(value: number): number {
  let bits = value - ((value >>> 1) & 0x55555555);
  bits = (bits & 0x33333333) + ((bits >>> 2) & 0x33333333);
  return (((bits + (bits >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** The kind's position in `ENTRY_KINDS`, or -1. */
function kindIndexOf(kind: unknown): number {
  switch (kind) {
    case "prompt":
      return 0;
    case "memory":
      return 1;
    case "skill":
      return 2;
    case "subagent":
      return 3;
    default:
      return -1;
  }
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The value of two to four ASCII digits at `start`, or -1. */
function digits(value: string, start: number, length: number): number {
  let result = 0;
  for (let index = start; index < start + length; index++) {
    const digit = value.charCodeAt(index) - 48;
    if (digit < 0 || digit > 9) return -1;
    result = result * 10 + digit;
  }
  return result;
}

/**
 * Milliseconds of an update time written exactly as `Date.prototype.toISOString` writes it
 * (`YYYY-MM-DDTHH:mm:ss.sssZ`, years 100–9999: the store's format), else NaN. For such
 * strings numeric order equals string order and equal numbers mean equal strings, so the view
 * may compare numbers; any other string makes it compare strings, as the definition says.
 */
export function canonicalTime(value: unknown): number {
  if (typeof value !== "string" || value.length !== 24) return Number.NaN;
  if (
    value.charCodeAt(4) !== 45 ||
    value.charCodeAt(7) !== 45 ||
    value.charCodeAt(10) !== 84 ||
    value.charCodeAt(13) !== 58 ||
    value.charCodeAt(16) !== 58 ||
    value.charCodeAt(19) !== 46 ||
    value.charCodeAt(23) !== 90
  ) {
    return Number.NaN;
  }
  const year = digits(value, 0, 4);
  const month = digits(value, 5, 2);
  const day = digits(value, 8, 2);
  const hours = digits(value, 11, 2);
  const minutes = digits(value, 14, 2);
  const seconds = digits(value, 17, 2);
  const millis = digits(value, 20, 3);
  if (year < 100 || month < 1 || month > 12 || day < 1 || hours < 0 || hours > 23) {
    return Number.NaN;
  }
  if (minutes < 0 || minutes > 59 || seconds < 0 || seconds > 59 || millis < 0) return Number.NaN;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const monthDays = month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!;
  if (day > monthDays) return Number.NaN;
  return Date.UTC(year, month - 1, day, hours, minutes, seconds, millis);
}

function metadataField(metadata: unknown, field: "name" | "description"): unknown {
  return typeof metadata === "object" && metadata !== null
    ? (metadata as Record<string, unknown>)[field]
    : undefined;
}

/** One rendered line of an entry at one content width, with its tokens (plus a newline). */
export interface RenderedLine {
  width: number;
  text: string;
  tokens: number;
}

/** What the view derives from one entry. */
export class EntryFacts {
  readonly kind: unknown;
  readonly scope: unknown;
  readonly id: unknown;
  readonly chatId: unknown;
  readonly title: unknown;
  readonly content: unknown;
  readonly path: unknown;
  readonly version: unknown;
  readonly pinned: unknown;
  readonly updatedAt: unknown;
  readonly metadata: unknown;
  readonly name: unknown;
  readonly description: unknown;
  readonly kindIndex: number;
  readonly time: number;
  private dictionary: WordDictionary | null = null;
  private headWords: WordIds = NO_WORDS;
  private bodyWords: WordIds = NO_WORDS;
  /** Rendered lines by width (a handful at most). */
  readonly lines: RenderedLine[] = [];

  constructor(readonly entry: Entry) {
    this.kind = entry.kind;
    this.scope = entry.scope;
    this.id = entry.id;
    this.chatId = entry.chatId;
    this.title = entry.title;
    this.content = entry.content;
    this.path = entry.path;
    this.version = entry.version;
    this.pinned = entry.pinned;
    this.updatedAt = entry.updatedAt;
    this.metadata = entry.metadata;
    this.name = metadataField(entry.metadata, "name");
    this.description = metadataField(entry.metadata, "description");
    this.kindIndex = kindIndexOf(entry.kind);
    this.time = canonicalTime(entry.updatedAt);
  }

  /** Whether the entry still holds the values these facts were derived from. */
  matches(entry: Entry): boolean {
    const metadata: unknown = entry.metadata;
    return (
      this.content === entry.content &&
      this.updatedAt === entry.updatedAt &&
      this.version === entry.version &&
      this.title === entry.title &&
      this.id === entry.id &&
      this.kind === entry.kind &&
      this.scope === entry.scope &&
      this.chatId === entry.chatId &&
      this.path === entry.path &&
      this.pinned === entry.pinned &&
      this.metadata === metadata &&
      this.name === metadataField(metadata, "name") &&
      this.description === metadataField(metadata, "description")
    );
  }

  /** The ids of the head's and the content prefix's words in `dictionary`. */
  words(dictionary: WordDictionary): { head: WordIds; body: WordIds } {
    if (this.dictionary !== dictionary) {
      this.dictionary = dictionary;
      const title = text(this.title);
      const id = text(this.id);
      const path = text(this.path);
      const name = text(this.name);
      const description = text(this.description);
      this.headWords = dictionary.idsOf([title, id, path, name, description], HEAD_FIELD_LIMITS);
      this.bodyWords = dictionary.idsOf([text(this.content)], [BODY_LIMIT]);
    }
    return { head: this.headWords, body: this.bodyWords };
  }

  /** Relevance to the terms last passed to `dictionary.prepare` (see lexical-relevance.ts). */
  score(dictionary: WordDictionary): number {
    const { head, body } = this.words(dictionary);
    return scoreOf(dictionary.maskOf(head), dictionary.maskOf(body));
  }
}

function isFrozenEntry(entry: Entry): boolean {
  if (typeof entry !== "object" || entry === null || !Object.isFrozen(entry)) return false;
  const metadata: unknown = entry.metadata;
  return typeof metadata !== "object" || metadata === null || Object.isFrozen(metadata);
}

/** The words of a list's entries, flat: entry `i`'s ids end at `ends[i]`. */
interface FlatWords {
  dictionary: WordDictionary;
  headIds: Int32Array;
  headEnds: Int32Array;
  bodyIds: Int32Array;
  bodyEnds: Int32Array;
}

/**
 * A list's words as a patch on an earlier list's flat words: entry `i` has the words of
 * `base` entry `baseIndex[i]`, or (-1) its own, from its facts. A new snapshot that differs
 * from the last in a few entries needs no copy of the other entries' ids; past a few percent
 * of own entries the words are made flat again. Patches always rest on flat words, never on
 * another patch.
 */
interface PatchedWords {
  dictionary: WordDictionary;
  base: FlatWords;
  baseIndex: Int32Array;
}

type ListWords = FlatWords | PatchedWords;

function isPatch(words: ListWords): words is PatchedWords {
  return "base" in words;
}

/** A list derived earlier, and for each entry of the new list its index there (or -1). */
interface Predecessor {
  state: StateFacts;
  indexIn: Int32Array;
}

/**
 * What the view derives from a whole list of entries, in flat typed arrays, so ranking does
 * not visit each entry object: kind, pinned, update time, and every entry's word ids. Built
 * from a predecessor (the previous snapshot) where entries are the same frozen objects.
 */
export class StateFacts {
  readonly kindOf: Int8Array;
  readonly pinned: Uint8Array;
  readonly time: Float64Array;
  /** Whether every update time is in the store's format (then times compare as numbers). */
  readonly numericTime: boolean;
  readonly perKindCount: Int32Array;
  /** Per kind, the indices of its entries (reordered freely by selection). */
  readonly byKind: Int32Array[];
  private words: ListWords | null = null;
  /** The predecessor's words and where each entry was there, until this list has its own. */
  private inherited: { words: ListWords; indexIn: Int32Array } | null = null;

  constructor(
    readonly entries: readonly Entry[],
    readonly facts: readonly EntryFacts[],
    predecessor: Predecessor | null = null,
  ) {
    const count = facts.length;
    this.kindOf = new Int8Array(count);
    this.pinned = new Uint8Array(count);
    this.time = new Float64Array(count);
    this.perKindCount = new Int32Array(4);
    let numericTime = true;
    for (let index = 0; index < count; index++) {
      const from = predecessor ? predecessor.indexIn[index]! : -1;
      if (from >= 0) {
        const state = predecessor!.state;
        this.kindOf[index] = state.kindOf[from]!;
        this.pinned[index] = state.pinned[from]!;
        this.time[index] = state.time[from]!;
      } else {
        const fact = facts[index]!;
        this.kindOf[index] = fact.kindIndex;
        this.pinned[index] = fact.pinned === true ? 1 : 0;
        this.time[index] = fact.time;
      }
      if (Number.isNaN(this.time[index])) numericTime = false;
      const kindIndex = this.kindOf[index]!;
      if (kindIndex >= 0) this.perKindCount[kindIndex]! += 1;
    }
    this.numericTime = numericTime;
    this.byKind = Array.from(this.perKindCount, (size) => new Int32Array(size));
    const filled = new Int32Array(4);
    for (let index = 0; index < count; index++) {
      const kindIndex = this.kindOf[index]!;
      if (kindIndex >= 0) this.byKind[kindIndex]![filled[kindIndex]!++] = index;
    }
    const words = predecessor?.state.words;
    if (predecessor && words) this.inherited = { words, indexIn: predecessor.indexIn };
  }

  /**
   * Writes each entry's relevance to the terms last passed to `dictionary.prepare` into
   * `out`. Entries of no known kind score 0.
   */
  scores(dictionary: WordDictionary, out: Int32Array): void {
    if (this.words?.dictionary !== dictionary) this.words = this.collectWords(dictionary);
    // `maskOf`, inlined (one tight loop over typed arrays instead of two calls per entry).
    const { stamps, masks, stamp } = dictionary.marks();
    const words = this.words;
    const flat = isPatch(words) ? words.base : words;
    const baseIndex = isPatch(words) ? words.baseIndex : null;
    const { headIds, headEnds, bodyIds, bodyEnds } = flat;
    for (let index = 0; index < this.facts.length; index++) {
      const from = baseIndex ? baseIndex[index]! : index;
      let head = 0;
      let body = 0;
      if (from >= 0) {
        for (let at = from > 0 ? headEnds[from - 1]! : 0; at < headEnds[from]!; at++) {
          const id = headIds[at]!;
          if (stamps[id] === stamp) head |= masks[id]!;
        }
        for (let at = from > 0 ? bodyEnds[from - 1]! : 0; at < bodyEnds[from]!; at++) {
          const id = bodyIds[at]!;
          if (stamps[id] === stamp) body |= masks[id]!;
        }
      } else if (this.kindOf[index]! >= 0) {
        const own = this.facts[index]!.words(dictionary);
        head = dictionary.maskOf(own.head);
        body = dictionary.maskOf(own.body);
      }
      out[index] = scoreOf(head, body);
    }
  }

  private collectWords(dictionary: WordDictionary): ListWords {
    const count = this.facts.length;
    const inherited = this.inherited?.words.dictionary === dictionary ? this.inherited : null;
    this.inherited = null;
    if (!inherited) return this.flatten(dictionary, null, null);
    // Where each entry's words are in the flat words under the predecessor.
    const predecessor = inherited.words;
    const base = isPatch(predecessor) ? predecessor.base : predecessor;
    const baseIndex = new Int32Array(count);
    let own = 0;
    for (let index = 0; index < count; index++) {
      const from = inherited.indexIn[index]!;
      const at = from < 0 ? -1 : isPatch(predecessor) ? predecessor.baseIndex[from]! : from;
      baseIndex[index] = at;
      if (at < 0 && this.kindOf[index]! >= 0) own += 1;
    }
    if (own <= Math.max(8, count >> 6)) return { dictionary, base, baseIndex };
    return this.flatten(dictionary, base, baseIndex);
  }

  /** Flat words for this list, copying runs from `base` where `baseIndex` points into it. */
  private flatten(
    dictionary: WordDictionary,
    base: FlatWords | null,
    baseIndex: Int32Array | null,
  ): FlatWords {
    const count = this.facts.length;
    const head = new FlatBuilder(count, (base?.headIds.length ?? 0) + 1024);
    const body = new FlatBuilder(count, (base?.bodyIds.length ?? 0) + 1024);
    let index = 0;
    while (index < count) {
      const from = baseIndex ? baseIndex[index]! : -1;
      if (from >= 0) {
        // A run of entries that are consecutive in the base: copy their ids at once.
        let end = index + 1;
        while (end < count && baseIndex![end] === from + (end - index)) end += 1;
        head.copyRun(base!.headIds, base!.headEnds, from, end - index, index);
        body.copyRun(base!.bodyIds, base!.bodyEnds, from, end - index, index);
        index = end;
        continue;
      }
      if (this.kindOf[index]! >= 0) {
        const words = this.facts[index]!.words(dictionary);
        head.append(words.head);
        body.append(words.body);
      }
      head.end(index);
      body.end(index);
      index += 1;
    }
    return {
      dictionary,
      headIds: head.ids(),
      headEnds: head.ends,
      bodyIds: body.ids(),
      bodyEnds: body.ends,
    };
  }
}

/** Appends id ranges into one growing array, recording where each entry's ids end. */
class FlatBuilder {
  private buffer: Int32Array;
  private length = 0;
  readonly ends: Int32Array;

  constructor(count: number, capacity: number) {
    this.ends = new Int32Array(count);
    this.buffer = new Int32Array(capacity);
  }

  append(ids: WordIds): void {
    this.reserve(ids.length);
    for (let index = 0; index < ids.length; index++) this.buffer[this.length + index] = ids[index]!;
    this.length += ids.length;
  }

  /**
   * Copies the ids of `count` consecutive entries starting at `from` in a flat list
   * (`sourceIds`, `sourceEnds`), as entries `to`, `to + 1`, … of this one.
   */
  copyRun(
    sourceIds: Int32Array,
    sourceEnds: Int32Array,
    from: number,
    count: number,
    to: number,
  ): void {
    const start = from > 0 ? sourceEnds[from - 1]! : 0;
    const size = sourceEnds[from + count - 1]! - start;
    this.reserve(size);
    this.buffer.set(sourceIds.subarray(start, start + size), this.length);
    const shift = this.length - start;
    for (let offset = 0; offset < count; offset++) {
      this.ends[to + offset] = sourceEnds[from + offset]! + shift;
    }
    this.length += size;
  }

  private reserve(size: number): void {
    if (this.length + size > this.buffer.length) {
      this.buffer = grown(this.buffer, this.length + size);
    }
  }

  end(index: number): void {
    this.ends[index] = this.length;
  }

  /** The ids (a view of the buffer, which has room for a few more). */
  ids(): Int32Array {
    return this.buffer.subarray(0, this.length);
  }
}

/**
 * For each entry of `next`, its index in `previous` when it is the very same object, else
 * -1. Both lists are in the same (canonical) order with a few entries replaced, added or
 * removed, so one forward walk with a short look-ahead finds them without reading entries.
 */
function align(previous: readonly Entry[], next: readonly Entry[]): Int32Array {
  const indexIn = new Int32Array(next.length).fill(-1);
  let from = 0;
  for (let index = 0; index < next.length; index++) {
    const entry = next[index];
    if (from < previous.length && previous[from] === entry) {
      indexIn[index] = from++;
      continue;
    }
    for (let ahead = 1; ahead <= 16 && from + ahead < previous.length; ahead++) {
      if (previous[from + ahead] === entry) {
        from += ahead;
        indexIn[index] = from++;
        break;
      }
    }
  }
  return indexIn;
}

/**
 * Where facts are remembered between calls: per entry object (validated on every use), and
 * per list of entries when the list and every entry in it (with its metadata) are frozen —
 * then nothing in it can change, so the next call with the same list (the next turn of a chat
 * on an unchanged harness) reuses everything without visiting the entries, and a new frozen
 * list (the next snapshot) reuses what it shares with the last one.
 */
export class FactsStore {
  private facts = new WeakMap<Entry, EntryFacts>();
  private states = new WeakMap<readonly Entry[], StateFacts>();
  /** The last frozen list derived (the predecessor of the next one). */
  private last: StateFacts | null = null;
  private words = new WordDictionary();

  constructor(
    private readonly remember: boolean,
    private readonly maxWords = MAX_DICTIONARY_WORDS,
  ) {}

  /**
   * The dictionary to score with, started afresh when it has grown past `maxWords` (facts
   * derived with the old one derive their words again when next scored).
   */
  dictionary(): WordDictionary {
    if (this.words.size > this.maxWords) this.words = new WordDictionary();
    return this.words;
  }

  factsOf(entry: Entry): EntryFacts {
    if (!this.remember || typeof entry !== "object" || entry === null) {
      return new EntryFacts(entry);
    }
    const known = this.facts.get(entry);
    if (known !== undefined && known.matches(entry)) return known;
    const facts = new EntryFacts(entry);
    this.facts.set(entry, facts);
    return facts;
  }

  stateOf(entries: readonly Entry[]): StateFacts {
    if (!this.remember || !Object.isFrozen(entries)) {
      return new StateFacts(
        entries,
        entries.map((entry) => this.factsOf(entry)),
      );
    }
    const known = this.states.get(entries);
    if (known !== undefined) return known;
    // Entries shared with the list this one was made from (or else the last frozen list
    // derived) are frozen and already derived.
    const previous = previousListOf(entries);
    const last = (previous && this.states.get(previous)) ?? this.last;
    const indexIn = last ? align(last.entries, entries) : null;
    let frozen = true;
    const count = entries.length;
    const facts = new Array<EntryFacts>(count);
    const lastFacts = last?.facts;
    for (let index = 0; index < count; index++) {
      const from = indexIn ? indexIn[index]! : -1;
      if (from >= 0) {
        facts[index] = lastFacts![from]!;
        continue;
      }
      const entry = entries[index]!;
      if (frozen && !isFrozenEntry(entry)) frozen = false;
      facts[index] = this.factsOf(entry);
    }
    const state = new StateFacts(entries, facts, last && indexIn ? { state: last, indexIn } : null);
    if (frozen) {
      this.states.set(entries, state);
      this.last = state;
    }
    return state;
  }

  clear(): void {
    this.facts = new WeakMap();
    this.states = new WeakMap();
    this.last = null;
    this.words = new WordDictionary();
  }
}
