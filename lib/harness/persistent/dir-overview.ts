// What a dir holds at a glance — counts, its top level, and a word index of its paths — for the
// prompt's summary of a dir. Computed once per index of a lazy dir (an unchanged dir hands every
// turn the same index), so a turn in a 100,000-file dir does not walk its paths.

import { folderCountsOf, type DirIndexEntry, type DirIndexMap } from "./dir-index";

/** A dir's paths summed up. */
export interface DirOverview {
  fileCount: number;
  bytes: number;
  folderCount: number;
  /** Top-level folder → files under it at any depth. */
  topFolders: ReadonlyMap<string, number>;
  /** Files at the top level. */
  topFiles: readonly string[];
  /** Lowercase word of a path (letters and digits) → the paths holding it. */
  words: ReadonlyMap<string, readonly string[]>;
  /** The words of `words` that are not only digits (what a partial match looks through). */
  textWords: readonly string[];
}

/** A text's lowercase words and numbers. */
export function tokensOf(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** The overview of these files (path → bytes). */
export function buildDirOverview(files: Iterable<[string, { bytes: number }]>): DirOverview {
  const folders = new Set<string>();
  const topFolders = new Map<string, number>();
  const topFiles: string[] = [];
  const words = new Map<string, string[]>();
  let fileCount = 0;
  let bytes = 0;
  for (const [path, file] of files) {
    fileCount += 1;
    bytes += file.bytes;
    for (let slash = path.indexOf("/"); slash !== -1; slash = path.indexOf("/", slash + 1))
      folders.add(path.slice(0, slash));
    const first = path.indexOf("/");
    if (first === -1) topFiles.push(path);
    else {
      const top = path.slice(0, first);
      topFolders.set(top, (topFolders.get(top) ?? 0) + 1);
    }
    for (const word of new Set(tokensOf(path))) {
      const list = words.get(word);
      if (list) list.push(path);
      else words.set(word, [path]);
    }
  }
  const textWords = [...words.keys()].filter((word) => !/^\p{N}+$/u.test(word));
  return { fileCount, bytes, folderCount: folders.size, topFolders, topFiles, words, textWords };
}

const overviews = new WeakMap<object, DirOverview>();

/** `buildDirOverview` of an immutable source, computed once per source object. */
export function memoizedDirOverview(
  source: object,
  files: () => Iterable<[string, { bytes: number }]>,
): DirOverview {
  let overview = overviews.get(source);
  if (!overview) {
    overview = buildDirOverview(files());
    overviews.set(source, overview);
  }
  return overview;
}

const baseOverviews = new WeakMap<object, DirOverview>();

/**
 * The overview of a lazy dir's index, computed once per base layer of the index (shared by every
 * version derived from it) and adjusted by the index's delta: a commit of one note into a dir of
 * 5,000 costs the next turn's overview O(changed), not a walk of the dir.
 */
export function indexOverview(index: DirIndexMap): DirOverview {
  const known = overviews.get(index);
  if (known) return known;
  const { base, delta } = index.layers();
  let overview = baseOverviews.get(base);
  if (!overview) {
    overview = buildDirOverview(base);
    baseOverviews.set(base, overview);
  }
  if (delta.size > 0) overview = withDelta(overview, base, delta, index);
  overviews.set(index, overview);
  return overview;
}

/** `overview` (of `base`) with `delta`'s added and deleted paths. */
function withDelta(
  overview: DirOverview,
  base: ReadonlyMap<string, DirIndexEntry>,
  delta: ReadonlyMap<string, DirIndexEntry | null>,
  index: DirIndexMap,
): DirOverview {
  const topFolders = new Map(overview.topFolders);
  const topFiles = new Set(overview.topFiles);
  const words = new Map(overview.words);
  const textWords = new Set(overview.textWords);
  const move = (path: string, by: 1 | -1) => {
    const first = path.indexOf("/");
    if (first === -1) {
      if (by === 1) topFiles.add(path);
      else topFiles.delete(path);
    } else {
      const top = path.slice(0, first);
      const count = (topFolders.get(top) ?? 0) + by;
      if (count > 0) topFolders.set(top, count);
      else topFolders.delete(top);
    }
    for (const word of new Set(tokensOf(path))) {
      const paths = words.get(word) ?? [];
      const next = by === 1 ? [...paths, path] : paths.filter((other) => other !== path);
      if (next.length > 0) words.set(word, next);
      else words.delete(word);
      if (next.length > 0 && !/^\p{N}+$/u.test(word)) textWords.add(word);
      else textWords.delete(word);
    }
  };
  for (const [path, entry] of delta) {
    const inBase = base.has(path);
    if (entry === null && inBase) move(path, -1);
    else if (entry !== null && !inBase) move(path, 1);
  }
  return {
    fileCount: index.size,
    bytes: index.bytes,
    folderCount: folderCountsOf(index).size,
    topFolders,
    topFiles: [...topFiles],
    words,
    textWords: [...textWords],
  };
}

const newest = new WeakMap<object, { limit: number; paths: readonly string[] }>();

/** Newer first; undated last; then by path. */
function newerFirst(a: { path: string; at: number }, b: { path: string; at: number }): number {
  return b.at - a.at || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
}

/**
 * The `limit` newest paths of an immutable source (files without a date last, then by path), in
 * one pass that keeps only the newest `limit` — no sort of the whole dir — remembered per source
 * object for the largest `limit` asked: a memory listing of a dir of thousands of notes costs
 * one pass once per version, and nothing for a version already seen.
 */
export function memoizedNewest(
  source: object,
  limit: number,
  files: () => Iterable<[string, { updatedAt?: Date | null }]>,
): readonly string[] {
  const known = newest.get(source);
  if (known && known.limit >= limit) return known.paths.slice(0, limit);
  const kept: { path: string; at: number }[] = [];
  for (const [path, file] of files()) {
    const candidate = { path, at: file.updatedAt?.getTime() ?? -Infinity };
    if (kept.length === limit && newerFirst(candidate, kept[limit - 1]!) >= 0) continue;
    // Insertion into the kept few (a listing's few dozen), in order.
    let index = kept.length;
    while (index > 0 && newerFirst(candidate, kept[index - 1]!) < 0) index -= 1;
    kept.splice(index, 0, candidate);
    if (kept.length > limit) kept.pop();
  }
  const paths = kept.map((file) => file.path);
  newest.set(source, { limit, paths });
  return paths;
}
