// A dir's index — path → size, content hash, last change — as an immutable, layered map, so a
// backing can hand the same index to every turn at a version and derive the next version's
// index from a commit in O(changed) (decision 0054).
import type { DirCursor, FileContent, LoadOptions } from "./types";

/** One file of a dir's index. `hash` is the sha256 (lowercase hex) of the file's stored bytes. */
export interface DirIndexEntry {
  readonly bytes: number;
  readonly hash: string;
  readonly updatedAt?: Date;
  /**
   * Whether the file is text (`true`: its body reads as a UTF-8 string) or bytes (`false`); a
   * body is stored once by hash whatever the files holding it are. Absent: as `readBodies` gives it.
   */
  readonly text?: boolean;
}

/** What a lazy backing's `loadIndex` returns: the dir's index at `cursor`. */
export interface DirIndex {
  cursor: DirCursor;
  /** Never mutated once returned: a backing may give the same object to many turns. */
  entries: DirIndexMap;
}

/**
 * The optional lazy capability of a dir (the AI SDK's habit: optional methods, detected). A dir
 * that offers both is loaded as an index, and file bodies are read on first use; its `store` is
 * then called without `snapshot`. A dir that offers neither is loaded whole by `load`.
 */
export interface LazyDirCapability<TExtraBody = unknown, TSession = unknown> {
  /** The dir's index at its current version, with paths that pass `validateRelativePath`. */
  loadIndex(options: LoadOptions<TExtraBody, TSession>): Promise<DirIndex>;
  /**
   * The bodies with these hashes (content-addressed, so any version's body is valid forever).
   * Hashes the dir does not hold may be left out of the result.
   */
  readBodies(
    options: LoadOptions<TExtraBody, TSession> & { hashes: readonly string[] },
  ): Promise<Map<string, FileContent>>;
}

/** Past this many changed paths over a layer (or a 16th of it), a derived index is flattened. */
const MIN_FLATTEN_DELTA = 1024;

/**
 * An immutable map of path → entry: a shared base map plus a small delta of changes over it.
 * `withChanges` returns a new index sharing the base, so a commit of one file into a dir of
 * 100,000 copies nothing; once the delta grows past a 16th of the base it is flattened.
 */
// A brand, not `instanceof`: a bundler may load this module twice (two copies of the class).
const BRAND = Symbol.for("cairn.DirIndexMap");

export class DirIndexMap implements Iterable<[string, DirIndexEntry]> {
  readonly [BRAND] = true;

  /** Whether `value` is a `DirIndexMap` (from any copy of this module). */
  static isInstance(value: unknown): value is DirIndexMap {
    return typeof value === "object" && value !== null && BRAND in value;
  }

  readonly #base: ReadonlyMap<string, DirIndexEntry>;
  /** Changes over the base; `null` removes a path. */
  readonly #delta: ReadonlyMap<string, DirIndexEntry | null>;
  readonly size: number;
  readonly bytes: number;

  private constructor(
    base: ReadonlyMap<string, DirIndexEntry>,
    delta: ReadonlyMap<string, DirIndexEntry | null>,
    size: number,
    bytes: number,
  ) {
    this.#base = base;
    this.#delta = delta;
    this.size = size;
    this.bytes = bytes;
  }

  static readonly EMPTY = new DirIndexMap(new Map(), new Map(), 0, 0);

  /** An index of these entries (the map is copied). */
  static from(entries: Iterable<readonly [string, DirIndexEntry]>): DirIndexMap {
    const base = new Map<string, DirIndexEntry>();
    let bytes = 0;
    for (const [path, entry] of entries) {
      const previous = base.get(path);
      if (previous) bytes -= previous.bytes;
      base.set(path, Object.freeze({ ...entry }));
      bytes += entry.bytes;
    }
    return new DirIndexMap(base, new Map(), base.size, bytes);
  }

  get(path: string): DirIndexEntry | undefined {
    const changed = this.#delta.get(path);
    if (changed !== undefined) return changed ?? undefined;
    return this.#base.get(path);
  }

  has(path: string): boolean {
    return this.get(path) !== undefined;
  }

  *[Symbol.iterator](): IterableIterator<[string, DirIndexEntry]> {
    for (const [path, entry] of this.#base) if (!this.#delta.has(path)) yield [path, entry];
    for (const [path, entry] of this.#delta) if (entry !== null) yield [path, entry];
  }

  keys(): IterableIterator<string> {
    const entries = this[Symbol.iterator]();
    return (function* () {
      for (const [path] of entries) yield path;
    })();
  }

  /** @internal The shared base layer and the delta over it (folder counts are cached per base). */
  layers(): {
    base: ReadonlyMap<string, DirIndexEntry>;
    delta: ReadonlyMap<string, DirIndexEntry | null>;
  } {
    return { base: this.#base, delta: this.#delta };
  }

  /** A new index with `set` written and `deleted` removed; this one is unchanged. */
  withChanges(options: {
    set?: Iterable<readonly [string, DirIndexEntry]>;
    deleted?: Iterable<string>;
  }): DirIndexMap {
    const delta = new Map(this.#delta);
    let size = this.size;
    let bytes = this.bytes;
    const apply = (path: string, entry: DirIndexEntry | null) => {
      const before = delta.has(path) ? (delta.get(path) ?? undefined) : this.#base.get(path);
      if (before) {
        size -= 1;
        bytes -= before.bytes;
      }
      if (entry) {
        size += 1;
        bytes += entry.bytes;
      }
      if (entry === null && !this.#base.has(path)) delta.delete(path);
      else delta.set(path, entry);
    };
    for (const path of options.deleted ?? []) apply(path, null);
    for (const [path, entry] of options.set ?? []) apply(path, Object.freeze({ ...entry }));
    if (delta.size > Math.max(MIN_FLATTEN_DELTA, this.#base.size / 16)) {
      const flat = new Map(this.#base);
      for (const [path, entry] of delta) {
        if (entry === null) flat.delete(path);
        else flat.set(path, entry);
      }
      return new DirIndexMap(flat, new Map(), size, bytes);
    }
    return new DirIndexMap(this.#base, delta, size, bytes);
  }
}

// Folder → number of files under it, per base layer (shared by every index derived from it).
const baseFolderCounts = new WeakMap<object, Map<string, number>>();
const indexFolderCounts = new WeakMap<DirIndexMap, ReadonlyMap<string, number>>();

function addAncestors(counts: Map<string, number>, path: string, by: number): void {
  for (let slash = path.indexOf("/"); slash !== -1; slash = path.indexOf("/", slash + 1)) {
    const folder = path.slice(0, slash);
    const next = (counts.get(folder) ?? 0) + by;
    if (next === 0) counts.delete(folder);
    else counts.set(folder, next);
  }
}

/** Folder → number of these paths under it, at any depth. */
export function countFolders(paths: Iterable<string>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const path of paths) addAncestors(counts, path, 1);
  return counts;
}

/**
 * Folder → number of files under it, at any depth, for an index: computed once per base layer
 * and adjusted by the delta, so turns at nearby versions of a large dir share the work.
 */
export function folderCountsOf(index: DirIndexMap): ReadonlyMap<string, number> {
  const known = indexFolderCounts.get(index);
  if (known) return known;
  const { base, delta } = index.layers();
  let counts = baseFolderCounts.get(base);
  if (!counts) {
    counts = countFolders(base.keys());
    baseFolderCounts.set(base, counts);
  }
  let result: ReadonlyMap<string, number> = counts;
  if (delta.size > 0) {
    const adjusted = new Map(counts);
    for (const [path, entry] of delta) {
      const inBase = base.has(path);
      if (entry === null && inBase) addAncestors(adjusted, path, -1);
      else if (entry !== null && !inBase) addAncestors(adjusted, path, 1);
    }
    result = adjusted;
  }
  indexFolderCounts.set(index, result);
  return result;
}
