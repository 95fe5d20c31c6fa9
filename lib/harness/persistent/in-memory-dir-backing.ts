import { systemClock } from "./system-clock";
import { DirIndexMap, type DirIndex } from "./dir-index";
import { contentByteLength, contentHash, copyContent, emptyFileMap } from "./internal/content";
import { validateRelativePath } from "./paths";
import type {
  Clock,
  FileContent,
  FileMap,
  LoadOptions,
  PersistentDirBacking,
  StoreOptions,
  StoreResult,
} from "./types";

/** The reference dir backing, with helpers for tests. */
export interface InMemoryDirBacking extends PersistentDirBacking {
  /** Current files (copies). */
  files(): FileMap;
  /** Current cursor: the number of successful stores and external writes so far. */
  cursor(): number;
  /** Changes files directly, as another writer would; advances the cursor. Returns the new cursor. */
  writeExternally(options: { files?: FileMap; deleted?: string[] }): number;
  /** Every `store` call's options (content copied), in call order. */
  readonly storeCalls: ReadonlyArray<Omit<StoreOptions, "abortSignal">>;
  /** Number of `load` calls. */
  readonly loadCount: number;
  /** With `lazy`: the lazy capability (see `LazyDirCapability`); absent otherwise. */
  loadIndex?: (options: LoadOptions) => Promise<DirIndex>;
  readBodies?: (
    options: LoadOptions & { hashes: readonly string[] },
  ) => Promise<Map<string, FileContent>>;
  /** Hashes asked of `readBodies`, in call order (one array per call). */
  readonly bodyReads: ReadonlyArray<readonly string[]>;
}

/**
 * An in-memory dir backing: files in a map, a numeric cursor, compare-and-swap in `store`
 * (a stale cursor returns `conflict` and changes nothing). The reference implementation of
 * `PersistentDirBacking`; spread it into a dir: `{ harnessDir, ...createInMemoryDirBacking() }`.
 */
export function createInMemoryDirBacking(
  options: {
    files?: FileMap;
    clock?: Clock;
    /**
     * Also offer the lazy capability: an index kept in step with every change (a layered
     * `DirIndexMap`, O(changed) per commit) and bodies by hash, kept forever — so a turn pinned
     * to an old cursor still reads its bodies.
     */
    lazy?: boolean;
  } = {},
): InMemoryDirBacking {
  const clock = options.clock ?? systemClock;
  const files = new Map<string, FileContent>();
  const updatedAt = new Map<string, string>();
  let cursor = 0;
  let loadCount = 0;
  const storeCalls: Array<Omit<StoreOptions, "abortSignal">> = [];
  const bodyReads: string[][] = [];
  const bodies = new Map<string, FileContent>();
  let index = DirIndexMap.EMPTY;
  const put = (path: string, content: FileContent, indexed = true): void => {
    const valid = validateRelativePath({ path });
    const at = clock.now();
    files.set(valid, copyContent(content));
    updatedAt.set(valid, at.toISOString());
    if (options.lazy) {
      const hash = contentHash(content);
      bodies.set(hash, copyContent(content));
      if (indexed) {
        index = index.withChanges({
          set: [[valid, { bytes: contentByteLength(content), hash, updatedAt: at }]],
        });
      }
    }
  };
  const remove = (path: string): void => {
    const valid = validateRelativePath({ path });
    files.delete(valid);
    updatedAt.delete(valid);
    if (options.lazy) index = index.withChanges({ deleted: [valid] });
  };
  for (const path of Object.keys(options.files ?? {}))
    put(path, options.files![path] as FileContent, false);
  // The initial files' index in one go (not one derived index per file).
  if (options.lazy) {
    index = DirIndexMap.from(
      [...files].map(([path, content]) => [
        path,
        {
          bytes: contentByteLength(content),
          hash: contentHash(content),
          updatedAt: new Date(updatedAt.get(path)!),
        },
      ]),
    );
  }

  const snapshot = (): FileMap => {
    const map = emptyFileMap();
    for (const [path, content] of files) map[path] = copyContent(content);
    return map;
  };

  const lazy = options.lazy
    ? {
        async loadIndex({ abortSignal }: LoadOptions): Promise<DirIndex> {
          abortSignal?.throwIfAborted();
          return { cursor, entries: index };
        },
        async readBodies({
          hashes,
          abortSignal,
        }: LoadOptions & { hashes: readonly string[] }): Promise<Map<string, FileContent>> {
          abortSignal?.throwIfAborted();
          bodyReads.push([...hashes]);
          const result = new Map<string, FileContent>();
          for (const hash of hashes) {
            const body = bodies.get(hash);
            if (body !== undefined) result.set(hash, copyContent(body));
          }
          return result;
        },
      }
    : {};

  return {
    ...lazy,
    bodyReads,
    async load({ abortSignal }: LoadOptions) {
      abortSignal?.throwIfAborted();
      loadCount += 1;
      return { files: snapshot(), cursor, updatedAt: Object.fromEntries(updatedAt) };
    },
    async store(storeOptions: StoreOptions): Promise<StoreResult> {
      storeOptions.abortSignal?.throwIfAborted();
      const { abortSignal: _abortSignal, ...call } = storeOptions;
      storeCalls.push(structuredClone(call));
      if (storeOptions.cursor !== cursor) {
        return {
          status: "conflict",
          currentCursor: cursor,
          message: `Expected cursor ${String(storeOptions.cursor)}, found ${cursor}.`,
        };
      }
      // Validate everything before changing anything: a store is all or nothing.
      const { created, updated, deleted } = storeOptions.changes;
      for (const file of [...created, ...updated]) validateRelativePath({ path: file.path });
      for (const path of deleted) validateRelativePath({ path });
      for (const file of [...created, ...updated]) put(file.path, file.content);
      for (const path of deleted) remove(path);
      cursor += 1;
      return { status: "stored", cursor };
    },
    files: snapshot,
    cursor: () => cursor,
    writeExternally({ files: written = {}, deleted = [] }) {
      for (const path of Object.keys(written)) put(path, written[path] as FileContent);
      for (const path of deleted) remove(path);
      cursor += 1;
      return cursor;
    },
    storeCalls,
    get loadCount() {
      return loadCount;
    },
  };
}
