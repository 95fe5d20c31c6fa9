// The base of a checkout's dir: the dir at the cursor the turn loaded, either loaded whole (a
// backing with only `load`) or as an index whose bodies are read on first use (a backing with
// the lazy capability). Both look the same to the checkout.
import { HarnessNotFoundError } from "../errors";
import { sharedBodyCache, type BodyCache } from "./body-cache";
import { countFolders, folderCountsOf, type DirIndexEntry, type DirIndexMap } from "./dir-index";
import {
  indexOverview,
  memoizedDirOverview,
  memoizedNewest,
  type DirOverview,
} from "./dir-overview";
import { contentByteLength, contentHash, copyContent } from "./internal/content";
import { printable } from "./paths";
import type { FileContent } from "./types";

/** One base file without its content. */
export interface BaseEntry {
  bytes: number;
  updatedAt?: Date;
}

/** @internal The dir at the turn's base cursor. Never changes. */
export interface BaseView {
  readonly lazy: boolean;
  readonly size: number;
  readonly bytes: number;
  get(path: string): BaseEntry | undefined;
  has(path: string): boolean;
  entries(): Iterable<[string, BaseEntry]>;
  /** sha256 of the base content at `path`, or `undefined` when the base has no such file. */
  hashOf(path: string): string | undefined;
  /** The base content at `path` (a copy), read on first use for a lazy base. */
  read(path: string): Promise<FileContent | undefined>;
  /** Reads the bodies of these paths in as few backing calls as the base needs. */
  prefetch(paths: Iterable<string>): Promise<void>;
  /**
   * Starts reading the base body of a path the turn is about to change, and keeps it for the
   * turn whatever its size: the commit and the journal need it as the merge base. Never throws.
   */
  retain(path: string): void;
  /** Folder → files under it at any depth. */
  folderCounts(): ReadonlyMap<string, number>;
  /** Every file with content, for a base loaded whole; `undefined` for a lazy base. */
  loadedFiles(): ReadonlyMap<string, FileContent> | undefined;
  /** Counts, top level and a word index of the paths (computed once per base). */
  overview(): DirOverview;
  /** The `limit` newest paths, then by path (one pass once per base and limit). */
  newest(limit: number): readonly string[];
}

/** A base loaded whole by `load`: content in memory, hashes computed for touched paths only. */
export function loadedBase(options: {
  files: Map<string, FileContent>;
  updatedAt: Map<string, Date>;
  bytes: number;
}): BaseView {
  const { files, updatedAt } = options;
  const hashes = new Map<string, string>();
  let folders: ReadonlyMap<string, number> | undefined;
  return {
    lazy: false,
    size: files.size,
    bytes: options.bytes,
    get(path) {
      const content = files.get(path);
      if (content === undefined) return undefined;
      const at = updatedAt.get(path);
      return { bytes: contentByteLength(content), ...(at ? { updatedAt: at } : {}) };
    },
    has: (path) => files.has(path),
    *entries() {
      for (const [path, content] of files) {
        const at = updatedAt.get(path);
        yield [path, { bytes: contentByteLength(content), ...(at ? { updatedAt: at } : {}) }];
      }
    },
    hashOf(path) {
      const known = hashes.get(path);
      if (known !== undefined) return known;
      const content = files.get(path);
      if (content === undefined) return undefined;
      const hash = contentHash(content);
      hashes.set(path, hash);
      return hash;
    },
    read: async (path) => {
      const content = files.get(path);
      return content === undefined ? undefined : copyContent(content);
    },
    prefetch: async () => {},
    retain: () => {},
    folderCounts() {
      folders ??= countFolders(files.keys());
      return folders;
    },
    loadedFiles: () => files,
    overview() {
      return memoizedDirOverview(files, () => this.entries());
    },
    newest(limit) {
      return memoizedNewest(files, limit, () => this.entries());
    },
  };
}

const utf8 = new TextDecoder("utf-8");
const encoder = new TextEncoder();

/** A body as the file holding it is: text for a text file, bytes for a binary one (a copy). */
export function shaped(body: FileContent, text: boolean | undefined): FileContent {
  if (text === true && typeof body !== "string") return utf8.decode(body);
  if (text === false && typeof body === "string") return encoder.encode(body);
  return copyContent(body);
}

/** How a lazy base reads bodies it does not have: the dir's `readBodies` for this turn. */
export type ReadBodies = (hashes: readonly string[]) => Promise<Map<string, FileContent>>;

/**
 * A base that is the dir's index at the cursor: bodies come from the process-wide cache by hash
 * or, on a miss, from the backing — the same body for the same hash, whatever has been committed
 * since. A body the backing no longer has (collected after the dir moved on) is a clear error.
 */
export function indexBase(options: {
  harnessDir: string;
  index: DirIndexMap;
  readBodies: ReadBodies;
  cache?: BodyCache;
}): BaseView {
  const { index, harnessDir } = options;
  const cache = options.cache ?? sharedBodyCache;
  // Bodies this turn read, so a body pushed out of the shared cache is not read twice.
  const local = new Map<string, FileContent>();
  // Base bodies of paths the turn changes, kept whatever their size (the merge base).
  const retained = new Map<string, FileContent>();
  const lookup = (hash: string) => local.get(hash) ?? retained.get(hash) ?? cache.get(hash);
  const fetch = async (hashes: string[]) => {
    if (hashes.length === 0) return;
    const bodies = await options.readBodies(hashes);
    for (const hash of hashes) {
      const body = bodies.get(hash);
      if (body === undefined) continue;
      if (contentHash(body) !== hash) continue;
      cache.set(hash, body, { verified: true });
      if (contentByteLength(body) <= 4 * 1024 * 1024) local.set(hash, body);
    }
  };
  const entryOf = (path: string): DirIndexEntry | undefined => index.get(path);
  return {
    lazy: true,
    size: index.size,
    bytes: index.bytes,
    get(path) {
      const entry = entryOf(path);
      return entry
        ? { bytes: entry.bytes, ...(entry.updatedAt ? { updatedAt: entry.updatedAt } : {}) }
        : undefined;
    },
    has: (path) => index.has(path),
    entries: () => index,
    hashOf: (path) => entryOf(path)?.hash,
    async read(path) {
      const entry = entryOf(path);
      if (!entry) return undefined;
      let body = lookup(entry.hash);
      if (body === undefined) {
        await fetch([entry.hash]);
        body = lookup(entry.hash);
      }
      if (body === undefined) {
        throw new HarnessNotFoundError({
          surface: "path",
          message: `${printable(`${harnessDir}/${path}`)} could not be read: its content is no longer stored (the dir changed since this turn began). Try again.`,
          details: { harnessDir, path: printable(path) },
        });
      }
      return shaped(body, entry.text);
    },
    retain(path) {
      const entry = entryOf(path);
      if (!entry || retained.has(entry.hash)) return;
      const known = lookup(entry.hash);
      if (known !== undefined) {
        retained.set(entry.hash, known);
        return;
      }
      void fetch([entry.hash]).then(
        () => {
          const body = lookup(entry.hash);
          if (body !== undefined) retained.set(entry.hash, body);
        },
        () => undefined,
      );
    },
    async prefetch(paths) {
      const missing = new Set<string>();
      for (const path of paths) {
        const entry = entryOf(path);
        if (entry && lookup(entry.hash) === undefined) missing.add(entry.hash);
      }
      const list = [...missing];
      for (let start = 0; start < list.length; start += 500)
        await fetch(list.slice(start, start + 500));
    },
    folderCounts: () => folderCountsOf(index),
    loadedFiles: () => undefined,
    // The index object is shared by every turn at its version: computed once per version.
    overview: () => indexOverview(index),
    newest: (limit) => memoizedNewest(index, limit, () => index),
  };
}
