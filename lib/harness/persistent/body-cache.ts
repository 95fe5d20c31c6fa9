import { contentHash } from "./internal/content";
import type { FileContent } from "./types";

/** Default budget of the process-wide body cache: 128 MiB of content. */
export const DEFAULT_BODY_CACHE_BYTES = 128 * 1024 * 1024;

// Strings count as UTF-16 (what they occupy in memory), bytes as their length.
const sizeOf = (content: FileContent) =>
  64 + (typeof content === "string" ? content.length * 2 : content.byteLength);

/**
 * File bodies by content hash, least recently used out first once `maxBytes` is passed. Shared
 * by every turn, person and chat of a process: an entry can never be stale, because its key is
 * the hash of its content. Bodies are immutable here (strings, or bytes nobody outside holds):
 * callers get copies of bytes.
 */
export class BodyCache {
  readonly #maxBytes: number;
  readonly #entries = new Map<string, FileContent>();
  #bytes = 0;

  constructor(options: { maxBytes?: number } = {}) {
    this.#maxBytes = options.maxBytes ?? DEFAULT_BODY_CACHE_BYTES;
  }

  /** Bytes held now, as counted for the budget. */
  get bytes(): number {
    return this.#bytes;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The body with `hash` (bytes copied), or `undefined`. */
  get(hash: string): FileContent | undefined {
    const content = this.#entries.get(hash);
    if (content === undefined) return undefined;
    this.#entries.delete(hash);
    this.#entries.set(hash, content);
    return typeof content === "string" ? content : new Uint8Array(content);
  }

  /**
   * Keeps `content` under `hash` if it really hashes to it (a backing that returned a wrong body
   * must not poison other turns); returns whether it was kept. `verified`: the caller has just
   * computed `hash` from `content` itself, so it is not hashed again. A body larger than a
   * quarter of the budget is not kept.
   */
  set(hash: string, content: FileContent, options: { verified?: boolean } = {}): boolean {
    if (this.#entries.has(hash)) return true;
    const size = sizeOf(content);
    if (size > this.#maxBytes / 4) return false;
    if (!options.verified && contentHash(content) !== hash) return false;
    this.#entries.set(hash, typeof content === "string" ? content : new Uint8Array(content));
    this.#bytes += size;
    for (const [key, value] of this.#entries) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#entries.delete(key);
      this.#bytes -= sizeOf(value);
    }
    return true;
  }

  clear(): void {
    this.#entries.clear();
    this.#bytes = 0;
  }
}

/** The process-wide body cache every lazy checkout reads through. */
export const sharedBodyCache = new BodyCache();
