import type { ChangeSet, FileContent } from "@/lib/harness";

/** One dir's files exactly as the database held them at `version`. */
export interface DirSnapshot {
  version: number;
  /** Relative path → content. Never handed out: callers get copies. */
  files: Map<string, FileContent>;
  /** Relative path → ISO time the file last changed. */
  updatedAt: Map<string, string>;
}

interface CacheEntry extends DirSnapshot {
  bytes: number;
}

/** Default budget of a process-wide snapshot cache: 64 MiB of file content. */
export const DEFAULT_SNAPSHOT_CACHE_BYTES = 64 * 1024 * 1024;

// Strings are counted as UTF-16 (what they occupy in memory), bytes as their length; paths and
// bookkeeping as a small constant, so a dir of many tiny files still counts for something.
const PER_FILE_OVERHEAD = 128;
const sizeOf = (path: string, content: FileContent) =>
  PER_FILE_OVERHEAD +
  path.length * 2 +
  (typeof content === "string" ? content.length * 2 : content.byteLength);

function copyContent(content: FileContent): FileContent {
  return typeof content === "string" ? content : new Uint8Array(content);
}

/**
 * A process-local cache of dir snapshots, keyed by dir key, least recently used first out once
 * the content it holds exceeds `maxBytes`.
 *
 * It is only ever a shortcut for reading a version the caller has just read from the database:
 * an entry at version V *is* the database state at V, because versions only grow and a commit
 * changes the rows and the version in one transaction. So a hit needs the current version
 * first (see `createDirBacking`), which keeps it correct across several app instances.
 * Contents go in and come out as copies; nobody outside holds a reference to an entry.
 */
export class DirSnapshotCache {
  readonly #maxBytes: number;
  // A Map iterates in insertion order: re-inserting on use keeps the least recent first.
  readonly #entries = new Map<string, CacheEntry>();
  #bytes = 0;

  constructor(options: { maxBytes?: number } = {}) {
    this.#maxBytes = options.maxBytes ?? DEFAULT_SNAPSHOT_CACHE_BYTES;
  }

  /** Content bytes held now (as counted for the budget). */
  get bytes(): number {
    return this.#bytes;
  }

  /** The entry for `dirKey` if it is at exactly `version`, else `null` (and a stale one is dropped). */
  get(dirKey: string, version: number): DirSnapshot | null {
    const entry = this.#entries.get(dirKey);
    if (!entry) return null;
    if (entry.version !== version) {
      // Older than the database (another instance committed): useless from now on.
      if (entry.version < version) this.delete(dirKey);
      return null;
    }
    this.#entries.delete(dirKey);
    this.#entries.set(dirKey, entry);
    return entry;
  }

  /**
   * Remembers `files` as the state of `dirKey` at `version`, copying every content. An entry
   * at a newer version is kept (a slower reader must not overwrite a fresher commit).
   */
  set(
    dirKey: string,
    snapshot: {
      version: number;
      files: Iterable<readonly [string, FileContent]>;
      updatedAt: Iterable<readonly [string, string]>;
    },
  ): void {
    const existing = this.#entries.get(dirKey);
    if (existing && existing.version > snapshot.version) return;
    const files = new Map<string, FileContent>();
    let bytes = 0;
    for (const [path, content] of snapshot.files) {
      files.set(path, copyContent(content));
      bytes += sizeOf(path, content);
    }
    this.#put(dirKey, {
      version: snapshot.version,
      files,
      updatedAt: new Map(snapshot.updatedAt),
      bytes,
    });
  }

  /**
   * After a commit from `fromVersion` to `toVersion` succeeded: applies `changes` to the entry
   * if it is at `fromVersion` (it then is the database state at `toVersion`), otherwise drops
   * it — the next load reads the database.
   */
  applyCommit(
    dirKey: string,
    commit: { fromVersion: number; toVersion: number; changes: ChangeSet; updatedAt: string },
  ): void {
    const entry = this.#entries.get(dirKey);
    if (!entry) return;
    if (entry.version !== commit.fromVersion) {
      if (entry.version < commit.toVersion) this.delete(dirKey);
      return;
    }
    this.#entries.delete(dirKey);
    this.#bytes -= entry.bytes;
    for (const file of [...commit.changes.created, ...commit.changes.updated]) {
      const previous = entry.files.get(file.path);
      if (previous !== undefined) entry.bytes -= sizeOf(file.path, previous);
      entry.files.set(file.path, copyContent(file.content));
      entry.updatedAt.set(file.path, commit.updatedAt);
      entry.bytes += sizeOf(file.path, file.content);
    }
    if (commit.changes.created.length > 0) {
      // Keep the order a fresh read has on SQLite (by path, code unit order).
      entry.files = new Map([...entry.files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    }
    for (const path of commit.changes.deleted) {
      const previous = entry.files.get(path);
      if (previous === undefined) continue;
      entry.bytes -= sizeOf(path, previous);
      entry.files.delete(path);
      entry.updatedAt.delete(path);
    }
    entry.version = commit.toVersion;
    this.#put(dirKey, entry);
  }

  delete(dirKey: string): void {
    const entry = this.#entries.get(dirKey);
    if (!entry) return;
    this.#entries.delete(dirKey);
    this.#bytes -= entry.bytes;
  }

  clear(): void {
    this.#entries.clear();
    this.#bytes = 0;
  }

  #put(dirKey: string, entry: CacheEntry): void {
    this.delete(dirKey);
    // A dir larger than the whole budget is never cached: it would only evict everything else.
    if (entry.bytes > this.#maxBytes) return;
    this.#entries.set(dirKey, entry);
    this.#bytes += entry.bytes;
    for (const [key, oldest] of this.#entries) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#entries.delete(key);
      this.#bytes -= oldest.bytes;
    }
  }
}

/** Copies a snapshot's contents into fresh objects a caller may keep and mutate. */
export function copySnapshotOut(snapshot: DirSnapshot): {
  files: Array<[string, FileContent]>;
  updatedAt: Record<string, string>;
} {
  const files: Array<[string, FileContent]> = [];
  for (const [path, content] of snapshot.files) files.push([path, copyContent(content)]);
  const updatedAt = Object.create(null) as Record<string, string>;
  for (const [path, time] of snapshot.updatedAt) updatedAt[path] = time;
  return { files, updatedAt };
}
