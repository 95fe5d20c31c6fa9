import { systemClock } from "./system-clock";
import { copyContent, emptyFileMap } from "./internal/content";
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
}

/**
 * An in-memory dir backing: files in a map, a numeric cursor, compare-and-swap in `store`
 * (a stale cursor returns `conflict` and changes nothing). The reference implementation of
 * `PersistentDirBacking`; spread it into a dir: `{ harnessDir, ...createInMemoryDirBacking() }`.
 */
export function createInMemoryDirBacking(
  options: { files?: FileMap; clock?: Clock } = {},
): InMemoryDirBacking {
  const clock = options.clock ?? systemClock;
  const files = new Map<string, FileContent>();
  const updatedAt = new Map<string, string>();
  let cursor = 0;
  let loadCount = 0;
  const storeCalls: Array<Omit<StoreOptions, "abortSignal">> = [];
  const put = (path: string, content: FileContent): void => {
    const valid = validateRelativePath({ path });
    files.set(valid, copyContent(content));
    updatedAt.set(valid, clock.now().toISOString());
  };
  const remove = (path: string): void => {
    const valid = validateRelativePath({ path });
    files.delete(valid);
    updatedAt.delete(valid);
  };
  for (const path of Object.keys(options.files ?? {}))
    put(path, options.files![path] as FileContent);

  const snapshot = (): FileMap => {
    const map = emptyFileMap();
    for (const [path, content] of files) map[path] = copyContent(content);
    return map;
  };

  return {
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
