import { HarnessValidationError } from "../errors";
import { Checkout } from "./checkout";
import { systemClock } from "./system-clock";
import { loadedBase, indexBase } from "./checkout-base";
import { newDirState, type CheckoutDirState } from "./checkout-state";
import { DirIndexMap, type DirIndex, type DirIndexEntry } from "./dir-index";
import {
  resolvePersistentDirs,
  withTurnLimits,
  type ResolvedPersistentDir,
} from "./define-persistent-dirs";
import { contentByteLength, copyContent, isFileContent } from "./internal/content";
import {
  assertDirWithinLimits,
  assertFileWithinLimits,
  joinHarnessPath,
  printable,
  validateRelativePath,
} from "./paths";
import type {
  Clock,
  DirCursor,
  DirLimits,
  FileContent,
  LoadResult,
  PersistentDir,
  PersistentDirTraceEvent,
} from "./types";

/**
 * Validates what a backing's `load` returned and turns it into checkout maps. Throws
 * `validation:dir` with the dir named when a path is hostile, two paths collide after NFC
 * normalisation, content is not text or bytes, the cursor is missing, or a limit is exceeded.
 */
export function validateLoadResult(options: {
  harnessDir: string;
  limits: DirLimits;
  result: LoadResult;
}): {
  files: Map<string, FileContent>;
  updatedAt: Map<string, Date>;
  cursor: DirCursor;
  bytes: number;
} {
  const { harnessDir, limits, result } = options;
  const fail = (message: string, cause?: unknown): never => {
    throw new HarnessValidationError({
      surface: "dir",
      message: `${harnessDir}: load returned ${message}`,
      details: { harnessDir },
      cause,
    });
  };
  if (
    typeof result !== "object" ||
    result === null ||
    typeof result.files !== "object" ||
    result.files === null
  )
    fail("no files object.");
  if (typeof result.cursor !== "string" && typeof result.cursor !== "number")
    fail("no cursor (a string or number).");
  const files = new Map<string, FileContent>();
  const updatedAt = new Map<string, Date>();
  let bytes = 0;
  for (const rawPath of Object.keys(result.files)) {
    let relativePath: string;
    try {
      relativePath = validateRelativePath({ path: rawPath });
    } catch (error) {
      return fail(
        `an invalid path: ${HarnessValidationError.isInstance(error) ? error.message : String(error)}`,
        error,
      );
    }
    if (files.has(relativePath))
      fail(`two paths that are the same after Unicode normalisation: ${printable(relativePath)}.`);
    const content = result.files[rawPath];
    if (!isFileContent(content))
      fail(`content for ${printable(relativePath)} that is neither a string nor a Uint8Array.`);
    const size = contentByteLength(content as FileContent);
    assertFileWithinLimits({
      path: joinHarnessPath({ harnessDir, relativePath }),
      bytes: size,
      limits,
    });
    bytes += size;
    files.set(relativePath, copyContent(content as FileContent));
    const time = result.updatedAt?.[rawPath];
    if (time !== undefined) {
      const date = time instanceof Date ? time : new Date(time);
      if (!Number.isNaN(date.getTime())) updatedAt.set(relativePath, date);
    }
  }
  assertDirWithinLimits({ harnessDir, fileCount: files.size, bytes, limits });
  return { files, updatedAt, cursor: result.cursor, bytes };
}

/**
 * Validates a lazy dir's index as `validateLoadResult` validates a load: every path, the
 * per-file size, the file count and the dir's bytes. The work is done once per shared base
 * layer of the index, so turns at nearby versions of a large dir only check what changed.
 */
export function validateDirIndex(options: {
  harnessDir: string;
  limits: DirLimits;
  index: DirIndex;
}): void {
  const { harnessDir, limits, index } = options;
  const fail = (message: string, cause?: unknown): never => {
    throw new HarnessValidationError({
      surface: "dir",
      message: `${harnessDir}: loadIndex returned ${message}`,
      details: { harnessDir },
      cause,
    });
  };
  if (typeof index !== "object" || index === null || !DirIndexMap.isInstance(index.entries))
    fail("no index (a DirIndexMap in `entries`).");
  if (typeof index.cursor !== "string" && typeof index.cursor !== "number")
    fail("no cursor (a string or number).");
  const { base, delta } = index.entries.layers();
  const check = (entries: Iterable<[string, DirIndexEntry | null]>): number => {
    let largest = 0;
    for (const [path, entry] of entries) {
      if (entry === null) continue;
      let valid: string;
      try {
        valid = validateRelativePath({ path });
      } catch (error) {
        if (!HarnessValidationError.isInstance(error)) throw error;
        return fail(`an invalid path: ${error.message}`, error);
      }
      if (valid !== path) fail(`a path that is not NFC-normalised: ${printable(path)}.`);
      if (
        !Number.isSafeInteger(entry.bytes) ||
        entry.bytes < 0 ||
        !/^[0-9a-f]{64}$/.test(entry.hash)
      )
        fail(`an entry for ${printable(path)} without a size or a sha256 hash.`);
      largest = Math.max(largest, entry.bytes);
    }
    return largest;
  };
  let largest = checkedBases.get(base);
  if (largest === undefined) {
    largest = check(base);
    checkedBases.set(base, largest);
  }
  largest = Math.max(largest, check(delta));
  if (largest > limits.maxFileBytes) {
    for (const [path, entry] of index.entries) {
      if (entry.bytes > limits.maxFileBytes)
        assertFileWithinLimits({
          path: joinHarnessPath({ harnessDir, relativePath: path }),
          bytes: entry.bytes,
          limits,
        });
    }
  }
  assertDirWithinLimits({
    harnessDir,
    fileCount: index.entries.size,
    bytes: index.entries.bytes,
    limits,
  });
}

// Base layers already validated, with the largest file size they hold.
const checkedBases = new WeakMap<object, number>();

/** Options for `loadCheckout`. */
export interface LoadCheckoutOptions<TExtraBody, TSession> {
  dirs: readonly PersistentDir<TExtraBody, TSession>[];
  extraBody: TExtraBody;
  session: TSession;
  /** Default: the system clock. */
  clock?: Clock;
  /** Receives each `dir.loaded` event. */
  onTrace?: (event: PersistentDirTraceEvent) => void;
  abortSignal?: AbortSignal;
}

/**
 * Loads every dir (in parallel) into a fresh checkout: evaluates `canWrite` once per dir for
 * this turn (false or throwing → read-only), decides the dir's limits for the turn (a resolver is
 * called once; a throw or a bad value rejects, `validation:dir`), calls `load`, validates the result, records the
 * before-snapshot and emits `dir.loaded`. Anything uncommitted from an earlier checkout is not
 * seen: each turn starts from backing storage. A failing `load` rejects the whole call.
 */
export async function loadCheckout<TExtraBody, TSession>(
  options: LoadCheckoutOptions<TExtraBody, TSession>,
): Promise<Checkout> {
  const clock = options.clock ?? systemClock;
  const dirs = resolvePersistentDirs({ dirs: options.dirs });
  const loaded = await Promise.all(
    dirs.map(async (unresolved): Promise<CheckoutDirState> => {
      const loadOptions = {
        extraBody: options.extraBody,
        session: options.session,
        abortSignal: options.abortSignal,
      };
      // The turn's limits are decided once, beside the load (a resolver's call): the checkout
      // state carries them to every write and to the turn's commit.
      const { loadIndex, readBodies } = unresolved.definition;
      if (unresolved.lazy && loadIndex && readBodies) {
        const [dir, access, index] = await Promise.all([
          withTurnLimits(unresolved, options),
          decideAccess(unresolved, options.extraBody),
          loadIndex(loadOptions),
        ]);
        options.abortSignal?.throwIfAborted();
        validateDirIndex({ harnessDir: dir.harnessDir, limits: loadBound(unresolved, dir), index });
        return newDirState({
          dir,
          ...access,
          cursor: index.cursor,
          base: indexBase({
            harnessDir: dir.harnessDir,
            index: index.entries,
            readBodies: (hashes) => readBodies({ ...loadOptions, hashes }),
          }),
        });
      }
      const [dir, access, result] = await Promise.all([
        withTurnLimits(unresolved, options),
        decideAccess(unresolved, options.extraBody),
        unresolved.definition.load(loadOptions),
      ]);
      options.abortSignal?.throwIfAborted();
      const { files, updatedAt, cursor, bytes } = validateLoadResult({
        harnessDir: dir.harnessDir,
        limits: loadBound(unresolved, dir),
        result,
      });
      return newDirState({
        dir,
        ...access,
        cursor,
        base: loadedBase({ files, updatedAt, bytes }),
      });
    }),
  );
  const at = clock.now().toISOString();
  for (const state of loaded) {
    options.onTrace?.({
      type: "dir.loaded",
      at,
      harnessDir: state.dir.harnessDir,
      mode: state.dir.mode,
      fileCount: state.fileCount,
      bytes: state.bytes,
      readOnly: state.readOnly,
      ...(state.readOnlyReason ? { readOnlyReason: state.readOnlyReason } : {}),
      cursor: state.cursor,
    });
  }
  return new Checkout({ dirs: loaded, clock });
}

const UNBOUNDED: DirLimits = Object.freeze({
  maxFileBytes: Number.MAX_SAFE_INTEGER,
  maxDirBytes: Number.MAX_SAFE_INTEGER,
  maxFiles: Number.MAX_SAFE_INTEGER,
});

/**
 * What a loaded dir is held to. Static limits: the dir is refused when it holds more. Limits
 * decided per turn: they may differ from turn to turn (one workspace's lower than another's, an
 * admin lowering them), so the dir opens whatever it holds, and its turn's limits bound what the
 * turn adds — a dir already over them may only shrink.
 */
function loadBound<TExtraBody, TSession>(
  unresolved: ResolvedPersistentDir<TExtraBody, TSession>,
  dir: ResolvedPersistentDir<TExtraBody, TSession>,
): DirLimits {
  return unresolved.pendingLimits ? UNBOUNDED : dir.limits;
}

async function decideAccess<TExtraBody, TSession>(
  dir: ResolvedPersistentDir<TExtraBody, TSession>,
  extraBody: TExtraBody,
): Promise<{
  readOnly: boolean;
  readOnlyReason?: CheckoutDirState["readOnlyReason"];
  suggestOnly?: boolean;
}> {
  if (dir.mode === "read-only") return { readOnly: true, readOnlyReason: "commit-mode" };
  if (!dir.definition.canWrite) return { readOnly: false };
  try {
    if ((await dir.definition.canWrite({ extraBody })) === true) return { readOnly: false };
    // Not this turn's to write, but the dir takes suggestions: writes become a proposal.
    return dir.definition.suggest
      ? { readOnly: false, readOnlyReason: "can-write", suggestOnly: true }
      : { readOnly: true, readOnlyReason: "can-write" };
  } catch {
    // Fail closed: a permission check that cannot answer must not grant writes.
    return { readOnly: true, readOnlyReason: "can-write-error" };
  }
}
