import { type DirIndexMap, type DirIndexEntry } from "@/lib/harness/spi";

/** Default bound of a process-wide index cache: this many file entries across every dir. */
export const DEFAULT_INDEX_CACHE_ENTRIES = 1_000_000;

interface CachedIndex {
  version: number;
  entries: DirIndexMap;
}

/**
 * The latest index read or committed of each dir (path → size, hash, time), least recently used
 * out first once the entries held pass `maxEntries`. Like the snapshot cache it is only a
 * shortcut for a version just read from the database: an index at version V *is* the database's
 * file rows at V (versions only grow; a commit changes rows and version in one transaction).
 * Indexes are immutable (`DirIndexMap`), so one is handed to every turn at its version, and a
 * commit derives the next one in O(changed).
 */
export class DirIndexCache {
  readonly #maxEntries: number;
  readonly #entries = new Map<string, CachedIndex>();
  #held = 0;

  constructor(options: { maxEntries?: number } = {}) {
    this.#maxEntries = options.maxEntries ?? DEFAULT_INDEX_CACHE_ENTRIES;
  }

  /** File entries held now. */
  get held(): number {
    return this.#held;
  }

  /** The index of `dirKey` at exactly `version`, or `null`. */
  get(dirKey: string, version: number): DirIndexMap | null {
    const cached = this.#entries.get(dirKey);
    if (!cached || cached.version !== version) return null;
    this.#entries.delete(dirKey);
    this.#entries.set(dirKey, cached);
    return cached.entries;
  }

  set(dirKey: string, version: number, entries: DirIndexMap): void {
    const previous = this.#entries.get(dirKey);
    if (previous) {
      if (previous.version > version) return;
      this.#entries.delete(dirKey);
      this.#held -= previous.entries.size;
    }
    if (entries.size > this.#maxEntries) return;
    this.#entries.set(dirKey, { version, entries });
    this.#held += entries.size;
    for (const [key, cached] of this.#entries) {
      if (this.#held <= this.#maxEntries) break;
      this.#entries.delete(key);
      this.#held -= cached.entries.size;
    }
  }

  /** After a commit from `fromVersion` to `toVersion`: derives the next index if the base is held. */
  applyCommit(
    dirKey: string,
    commit: {
      fromVersion: number;
      toVersion: number;
      set: readonly [string, DirIndexEntry][];
      deleted: readonly string[];
    },
  ): void {
    const cached = this.#entries.get(dirKey);
    if (!cached) return;
    if (cached.version !== commit.fromVersion) {
      if (cached.version < commit.toVersion) {
        this.#entries.delete(dirKey);
        this.#held -= cached.entries.size;
      }
      return;
    }
    this.set(
      dirKey,
      commit.toVersion,
      cached.entries.withChanges({ set: commit.set, deleted: commit.deleted }),
    );
  }
}
