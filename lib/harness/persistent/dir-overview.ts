// What a dir holds at a glance — counts, its top level, and a word index of its paths — for the
// prompt's summary of a dir. Computed once per index of a lazy dir (an unchanged dir hands every
// turn the same index), so a turn in a 100,000-file dir does not walk its paths.

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

const newest = new WeakMap<object, readonly string[]>();

/**
 * The paths of an immutable source, newest first (files without a date last, then by path),
 * computed once per source object: a memory listing of a dir of thousands of notes does not sort
 * them on every turn.
 */
export function memoizedNewestFirst(
  source: object,
  files: () => Iterable<[string, { updatedAt?: Date | null }]>,
): readonly string[] {
  let paths = newest.get(source);
  if (!paths) {
    const dated = [...files()].map(([path, file]) => ({
      path,
      at: file.updatedAt?.getTime() ?? -Infinity,
    }));
    dated.sort((a, b) => b.at - a.at || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    paths = dated.map((file) => file.path);
    newest.set(source, paths);
  }
  return paths;
}
