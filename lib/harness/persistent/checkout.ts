// Over 500 lines, knowingly: the checkout is one in-memory file system (read, write, list, diff,
// limits) over every dir of a turn; its methods share the per-dir state and are tested as one
// unit.
import {
  HarnessConflictError,
  HarnessForbiddenError,
  HarnessNotFoundError,
  HarnessValidationError,
} from "../errors";
import { resolvePersistentDirs, type ResolvedPersistentDir } from "./define-persistent-dirs";
import {
  contentByteLength,
  contentHash,
  copyContent,
  emptyFileMap,
  isFileContent,
} from "./internal/content";
import {
  assertDirWithinLimits,
  assertFileWithinLimits,
  isWithinHarnessDir,
  joinHarnessPath,
  printable,
  resolvePersistentPath,
  validateHarnessDir,
  validateRelativePath,
  PERSISTENT_ROOT,
} from "./paths";
import type {
  ChangeSet,
  Clock,
  CommitMode,
  DirCursor,
  DirLimits,
  FileContent,
  FileMap,
  LoadResult,
  PersistentDir,
  PersistentDirTraceEvent,
} from "./types";

/** One file as listed by the checkout. */
export interface CheckoutFileInfo {
  /** Absolute, e.g. `/persistent/user/notes/a.md`. */
  path: string;
  harnessDir: string;
  relativePath: string;
  bytes: number;
  /** When the file last changed, if the backing reported it or the file was written this turn. */
  updatedAt: Date | null;
}

/** One dir as seen by this turn. */
export interface CheckoutDirInfo {
  harnessDir: string;
  mode: CommitMode;
  readOnly: boolean;
  readOnlyReason?: "commit-mode" | "can-write" | "can-write-error";
  fileCount: number;
  bytes: number;
  /** The cursor the dir was loaded at (the base of this turn's change set). */
  cursor: DirCursor;
}

/** One line of a `DirectoryListing`; `depth` 1 is a direct child of the listed path. */
export type DirectoryEntry =
  | { type: "file"; path: string; depth: number; bytes: number; updatedAt: Date | null }
  | { type: "folder"; path: string; depth: number; fileCount: number; bytes: number }
  | {
      /** A persistent dir (only when listing `/persistent` or a folder holding dirs). */
      type: "dir";
      path: string;
      depth: number;
      fileCount: number;
      bytes: number;
      mode: CommitMode;
      readOnly: boolean;
    };

/** What `getDirectoryListing` returns. Paths are absolute; folders have no trailing slash. */
export interface DirectoryListing {
  /** The listed path, NFC-normalised, without a trailing slash. */
  path: string;
  /**
   * `root`: `/persistent` or a folder that holds dirs; `dir`: a dir's root; `folder`: a folder
   * inside a dir.
   */
  kind: "root" | "dir" | "folder";
  /** The dir `path` lies in, with its mode and read-only flag this turn; `null` for `root`. */
  dir: CheckoutDirInfo | null;
  /** Files and bytes under `path`, at any depth. */
  fileCount: number;
  bytes: number;
  /** Up to `depth` levels, in tree order (a folder before what it holds, siblings by name). */
  entries: DirectoryEntry[];
  /** Entries left out to stay within `maxEntries` (the deepest levels go first). */
  omitted: number;
}

/** Default bounds of `getDirectoryListing`. */
export const DIRECTORY_LISTING_DEFAULTS = { depth: 2, maxEntries: 500 } as const;

function compareTreePaths(left: string, right: string): number {
  const a = left.split("/");
  const b = right.split("/");
  for (let index = 0; index < Math.min(a.length, b.length); index += 1) {
    if (a[index] !== b[index]) return a[index]! < b[index]! ? -1 : 1;
  }
  return a.length - b.length;
}

/** One dir's change set. */
export interface DirChanges {
  harnessDir: string;
  changes: ChangeSet;
}

/** @internal The per-dir state of a checkout; the commit runner reads it, nothing else should. */
export interface CheckoutDirState {
  dir: ResolvedPersistentDir<unknown, unknown>;
  readOnly: boolean;
  readOnlyReason?: "commit-mode" | "can-write" | "can-write-error";
  cursor: DirCursor;
  /** The before-snapshot: content as loaded (copies), never mutated. */
  base: Map<string, FileContent>;
  /** sha256 of base content, computed on demand for touched paths only (loads stay cheap). */
  baseHashes: Map<string, string>;
  files: Map<string, FileContent>;
  updatedAt: Map<string, Date>;
  /** Paths written or deleted since load: only these can differ from the base. */
  touched: Set<string>;
  bytes: number;
}

const states = new WeakMap<Checkout, Map<string, CheckoutDirState>>();

/** @internal The dir states behind a checkout, for the commit runner. */
export function checkoutDirStates(checkout: Checkout): Map<string, CheckoutDirState> {
  const map = states.get(checkout);
  if (!map) throw new Error("Not a checkout created by loadCheckout.");
  return map;
}

function emptyChangeSet(): ChangeSet {
  return { created: [], updated: [], deleted: [] };
}

/**
 * A turn's isolated, in-memory copy of its persistent dirs plus the before-snapshot taken at
 * load (the loaded content; its sha256 hashes are computed only for paths the turn touched). Every method takes absolute `/persistent/...` paths and validates
 * them. Nothing here touches backing storage: changes reach it only when the turn commits.
 *
 * Writes, deletes and renames under a read-only dir (mode `read-only`, or `canWrite` false for
 * this turn) throw `HarnessForbiddenError` (`forbidden:dir`) at once, for tools and host alike.
 */
export class Checkout {
  readonly #clock: Clock;
  readonly #dirs: Map<string, CheckoutDirState>;
  readonly #harnessDirs: string[];

  /** @internal Use `loadCheckout` or `openTurnCheckout`. */
  constructor(options: { dirs: CheckoutDirState[]; clock: Clock }) {
    this.#clock = options.clock;
    this.#dirs = new Map(options.dirs.map((state) => [state.dir.harnessDir, state]));
    this.#harnessDirs = [...this.#dirs.keys()];
    states.set(this, this.#dirs);
  }

  #locate(path: unknown): { state: CheckoutDirState; relativePath: string; path: string } {
    const located = resolvePersistentPath({ path, harnessDirs: this.#harnessDirs });
    return { ...located, state: this.#dirs.get(located.harnessDir)! };
  }

  #assertWritable(state: CheckoutDirState, path: string): void {
    if (!state.readOnly) return;
    const why =
      state.readOnlyReason === "commit-mode"
        ? "its commit mode is read-only"
        : "writing to it is not permitted for this turn";
    throw new HarnessForbiddenError({
      surface: "dir",
      message: `Cannot change ${printable(path)}: ${state.dir.harnessDir} is read-only (${why}).`,
      details: {
        harnessDir: state.dir.harnessDir,
        path: printable(path),
        reason: state.readOnlyReason,
      },
    });
  }

  /**
   * Checks that a file could be written at `path` now, without writing: the path is valid and
   * lies in a dir this turn may write. Throws as `writeFile` would (`validation:path`,
   * `not_found:dir`, `forbidden:dir`). Lets a caller refuse at once, before reading content.
   */
  assertWritable(options: { path: string }): {
    path: string;
    harnessDir: string;
    relativePath: string;
    mode: CommitMode;
    limits: DirLimits;
  } {
    const { state, relativePath, path } = this.#locate(options.path);
    this.#assertWritable(state, path);
    return {
      path,
      harnessDir: state.dir.harnessDir,
      relativePath,
      mode: state.dir.mode,
      limits: { ...state.dir.limits },
    };
  }

  /** The content at `path`, or `null` when there is no such file. Bytes are returned as a copy. */
  readFile(options: { path: string }): FileContent | null {
    const { state, relativePath } = this.#locate(options.path);
    const content = state.files.get(relativePath);
    return content === undefined ? null : copyContent(content);
  }

  /** Like `readFile`, but throws `not_found:path` when the file does not exist. */
  readFileOrThrow(options: { path: string }): FileContent {
    const content = this.readFile(options);
    if (content === null) {
      throw new HarnessNotFoundError({
        surface: "path",
        message: `No file at ${printable(options.path)}.`,
        details: { path: printable(options.path) },
      });
    }
    return content;
  }

  /**
   * Creates or replaces a file. Validates the path, the per-file size and the dir's file and
   * byte limits (`validation:path` / `validation:dir`); the checkout is unchanged on error.
   */
  writeFile(options: { path: string; content: FileContent }): void {
    const { state, relativePath, path } = this.#locate(options.path);
    this.#assertWritable(state, path);
    if (!isFileContent(options.content)) {
      throw new HarnessValidationError({
        surface: "path",
        message: `Content for ${printable(path)} must be a string or a Uint8Array.`,
        details: { path: printable(path) },
      });
    }
    const bytes = contentByteLength(options.content);
    assertFileWithinLimits({ path, bytes, limits: state.dir.limits });
    const previous = state.files.get(relativePath);
    const nextBytes =
      state.bytes - (previous === undefined ? 0 : contentByteLength(previous)) + bytes;
    const nextCount = state.files.size + (previous === undefined ? 1 : 0);
    this.#assertNoFileDirectoryClash(state, relativePath, path);
    assertDirWithinLimits({
      harnessDir: state.dir.harnessDir,
      fileCount: nextCount,
      bytes: nextBytes,
      limits: state.dir.limits,
    });
    state.files.set(relativePath, copyContent(options.content));
    state.bytes = nextBytes;
    state.touched.add(relativePath);
    state.updatedAt.set(relativePath, this.#clock.now());
  }

  // A path cannot be both a file and a folder, or a file-system backing could not store it.
  #assertNoFileDirectoryClash(state: CheckoutDirState, relativePath: string, path: string): void {
    const segments = relativePath.split("/");
    for (let index = 1; index < segments.length; index += 1) {
      const ancestor = segments.slice(0, index).join("/");
      if (state.files.has(ancestor)) {
        throw new HarnessConflictError({
          surface: "path",
          message: `Cannot create ${printable(path)}: ${printable(joinHarnessPath({ harnessDir: state.dir.harnessDir, relativePath: ancestor }))} is a file.`,
          details: { path: printable(path) },
        });
      }
    }
    if (!state.files.has(relativePath)) {
      const prefix = `${relativePath}/`;
      for (const existing of state.files.keys()) {
        if (existing.startsWith(prefix)) {
          throw new HarnessConflictError({
            surface: "path",
            message: `Cannot create ${printable(path)}: it is a folder.`,
            details: { path: printable(path) },
          });
        }
      }
    }
  }

  /** Deletes a file; throws `not_found:path` when it does not exist. */
  deleteFile(options: { path: string }): void {
    const { state, relativePath, path } = this.#locate(options.path);
    this.#assertWritable(state, path);
    const previous = state.files.get(relativePath);
    if (previous === undefined) {
      throw new HarnessNotFoundError({
        surface: "path",
        message: `No file at ${printable(path)}.`,
        details: { path: printable(path) },
      });
    }
    state.files.delete(relativePath);
    state.bytes -= contentByteLength(previous);
    state.touched.add(relativePath);
    state.updatedAt.delete(relativePath);
  }

  /**
   * Moves a file, possibly across dirs (both must be writable). Throws `not_found:path` when
   * `from` is missing and `conflict:path` when `to` exists unless `overwrite` is true.
   */
  renameFile(options: { from: string; to: string; overwrite?: boolean }): void {
    const source = this.#locate(options.from);
    const target = this.#locate(options.to);
    this.#assertWritable(source.state, source.path);
    this.#assertWritable(target.state, target.path);
    const content = source.state.files.get(source.relativePath);
    if (content === undefined) {
      throw new HarnessNotFoundError({
        surface: "path",
        message: `No file at ${printable(source.path)}.`,
        details: { path: printable(source.path) },
      });
    }
    if (source.path === target.path) return;
    if (!options.overwrite && target.state.files.has(target.relativePath)) {
      throw new HarnessConflictError({
        surface: "path",
        message: `${printable(target.path)} already exists.`,
        details: { path: printable(target.path) },
      });
    }
    // Remove first so the size checks see the dir without the moved file; restore on failure.
    this.deleteFile({ path: source.path });
    try {
      this.writeFile({ path: target.path, content });
    } catch (error) {
      source.state.files.set(source.relativePath, content);
      source.state.bytes += contentByteLength(content);
      throw error;
    }
  }

  /**
   * Files under `path` (a dir, a folder inside one, or `/persistent`; default: every dir),
   * sorted by path.
   */
  listFiles(options: { path?: string } = {}): CheckoutFileInfo[] {
    const prefix = options.path === undefined ? PERSISTENT_ROOT : this.#listPrefix(options.path);
    const result: CheckoutFileInfo[] = [];
    for (const state of this.#dirs.values()) {
      const harnessDir = state.dir.harnessDir;
      if (
        !isWithinHarnessDir({ path: harnessDir, harnessDir: prefix }) &&
        !isWithinHarnessDir({ path: prefix, harnessDir })
      )
        continue;
      for (const [relativePath, content] of state.files) {
        const path = joinHarnessPath({ harnessDir, relativePath });
        if (!isWithinHarnessDir({ path, harnessDir: prefix })) continue;
        result.push({
          path,
          harnessDir,
          relativePath,
          bytes: contentByteLength(content),
          updatedAt: state.updatedAt.get(relativePath) ?? null,
        });
      }
    }
    return result.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  #listPrefix(path: string): string {
    if (path === PERSISTENT_ROOT || path === `${PERSISTENT_ROOT}/`) return PERSISTENT_ROOT;
    const trimmed = path.endsWith("/") ? path.slice(0, -1) : path;
    const known = this.#harnessDirs.find((dir) => dir === trimmed.normalize("NFC"));
    if (known) return known;
    // Either a folder inside a dir, or a parent of some dirs (`/persistent/team`).
    try {
      return this.#locate(trimmed).path;
    } catch (error) {
      if (!HarnessNotFoundError.isInstance(error)) throw error;
      return validateHarnessDir({ harnessDir: trimmed });
    }
  }

  /** Every dir of this turn with its mode, read-only flag, size and base cursor. */
  listDirs(): CheckoutDirInfo[] {
    return [...this.#dirs.values()].map(dirInfo);
  }

  /**
   * A directory listing of `path` — `/persistent`, a dir's root (`/persistent/user`), a folder
   * inside a dir, or a folder that holds dirs — `depth` levels deep (default 2): files with
   * their sizes, folders with their file counts and sizes, dirs with their mode and read-only
   * flag for this turn. At most `maxEntries` entries (default 500; the deepest levels are left
   * out first). A trailing `/` is ignored; `/` means `/persistent`. Returns `null` when nothing
   * is there or `path` is a file; throws `validation:path` for a hostile path and
   * `not_found:dir` for a path outside every dir. The memory tool's `view` formats it.
   */
  getDirectoryListing(options: {
    path: string;
    depth?: number;
    maxEntries?: number;
  }): DirectoryListing | null {
    const depth = Math.max(1, options.depth ?? DIRECTORY_LISTING_DEFAULTS.depth);
    const maxEntries = Math.max(1, options.maxEntries ?? DIRECTORY_LISTING_DEFAULTS.maxEntries);
    const trimmed = typeof options.path === "string" ? options.path.replace(/\/+$/, "") : "";
    const path = (trimmed === "" ? PERSISTENT_ROOT : trimmed).normalize("NFC");

    const entries: DirectoryEntry[] = [];
    // Adds `state`'s files under `relativePrefix` ("" = the dir's root) as entries whose depth
    // starts at `baseDepth + 1`; returns the count and bytes of all of them.
    const addTree = (
      state: CheckoutDirState,
      relativePrefix: string,
      baseDepth: number,
    ): { fileCount: number; bytes: number } => {
      const harnessDir = state.dir.harnessDir;
      const folders = new Map<string, { depth: number; fileCount: number; bytes: number }>();
      let fileCount = 0;
      let bytes = 0;
      for (const [relativePath, content] of state.files) {
        if (relativePrefix !== "" && !relativePath.startsWith(`${relativePrefix}/`)) continue;
        const rest =
          relativePrefix === "" ? relativePath : relativePath.slice(relativePrefix.length + 1);
        const size = contentByteLength(content);
        fileCount += 1;
        bytes += size;
        const segments = rest.split("/");
        for (let level = 1; level <= segments.length && baseDepth + level <= depth; level += 1) {
          const entryPath = joinHarnessPath({
            harnessDir,
            relativePath: [relativePrefix, ...segments.slice(0, level)].filter(Boolean).join("/"),
          });
          if (level === segments.length) {
            entries.push({
              type: "file",
              path: entryPath,
              depth: baseDepth + level,
              bytes: size,
              updatedAt: state.updatedAt.get(relativePath) ?? null,
            });
          } else {
            const folder = folders.get(entryPath) ?? {
              depth: baseDepth + level,
              fileCount: 0,
              bytes: 0,
            };
            folder.fileCount += 1;
            folder.bytes += size;
            folders.set(entryPath, folder);
          }
        }
      }
      for (const [folderPath, folder] of folders)
        entries.push({ type: "folder", path: folderPath, ...folder });
      return { fileCount, bytes };
    };

    let kind: DirectoryListing["kind"];
    let dir: CheckoutDirInfo | null = null;
    let totals: { fileCount: number; bytes: number };
    const inside = [...this.#dirs.values()].filter(
      (state) =>
        state.dir.harnessDir !== path &&
        isWithinHarnessDir({ path: state.dir.harnessDir, harnessDir: path }),
    );
    const own = this.#dirs.get(path);
    if (own) {
      kind = "dir";
      dir = dirInfo(own);
      totals = addTree(own, "", 0);
    } else if (path === PERSISTENT_ROOT || inside.length > 0) {
      if (path !== PERSISTENT_ROOT) validateHarnessDir({ harnessDir: path });
      kind = "root";
      totals = { fileCount: 0, bytes: 0 };
      for (const state of inside) {
        const info = dirInfo(state);
        entries.push({
          type: "dir",
          path: info.harnessDir,
          depth: 1,
          fileCount: info.fileCount,
          bytes: info.bytes,
          mode: info.mode,
          readOnly: info.readOnly,
        });
        if (depth > 1) addTree(state, "", 1);
        totals.fileCount += info.fileCount;
        totals.bytes += info.bytes;
      }
    } else {
      const located = this.#locate(path);
      kind = "folder";
      dir = dirInfo(located.state);
      totals = addTree(located.state, located.relativePath, 0);
      if (totals.fileCount === 0) return null;
    }

    let kept = entries;
    let omitted = 0;
    if (entries.length > maxEntries) {
      kept = [...entries]
        .sort((a, b) => a.depth - b.depth || compareTreePaths(a.path, b.path))
        .slice(0, maxEntries);
      omitted = entries.length - maxEntries;
    }
    kept.sort((a, b) => compareTreePaths(a.path, b.path));
    return { path, kind, dir, ...totals, entries: kept, omitted };
  }

  /**
   * The change set of each dir (or only `harnessDir`) between the before-snapshot and now.
   * Only touched paths are hashed, so a diff is cheap when little changed. A file written back
   * to its loaded content is not a change.
   */
  diff(options: { harnessDir?: string } = {}): DirChanges[] {
    const result: DirChanges[] = [];
    for (const state of this.#dirs.values()) {
      if (
        options.harnessDir !== undefined &&
        state.dir.harnessDir !== options.harnessDir.normalize("NFC")
      )
        continue;
      result.push({ harnessDir: state.dir.harnessDir, changes: diffDirState(state) });
    }
    if (options.harnessDir !== undefined && result.length === 0) {
      throw new HarnessNotFoundError({
        surface: "dir",
        message: `No persistent dir ${printable(options.harnessDir)} in this turn.`,
        details: { harnessDir: printable(options.harnessDir) },
      });
    }
    return result;
  }
}

function dirInfo(state: CheckoutDirState): CheckoutDirInfo {
  return {
    harnessDir: state.dir.harnessDir,
    mode: state.dir.mode,
    readOnly: state.readOnly,
    ...(state.readOnlyReason ? { readOnlyReason: state.readOnlyReason } : {}),
    fileCount: state.files.size,
    bytes: state.bytes,
    cursor: state.cursor,
  };
}

/** @internal The change set of one dir state. */
export function diffDirState(state: CheckoutDirState): ChangeSet {
  const changes = emptyChangeSet();
  for (const relativePath of [...state.touched].sort()) {
    const now = state.files.get(relativePath);
    const beforeHash = baseHash(state, relativePath);
    if (now === undefined) {
      if (beforeHash !== undefined) changes.deleted.push(relativePath);
    } else if (beforeHash === undefined) {
      changes.created.push({ path: relativePath, content: copyContent(now) });
    } else if (contentHash(now) !== beforeHash) {
      changes.updated.push({ path: relativePath, content: copyContent(now) });
    }
  }
  return changes;
}

function baseHash(state: CheckoutDirState, relativePath: string): string | undefined {
  const known = state.baseHashes.get(relativePath);
  if (known !== undefined) return known;
  const content = state.base.get(relativePath);
  if (content === undefined) return undefined;
  const hash = contentHash(content);
  state.baseHashes.set(relativePath, hash);
  return hash;
}

/** @internal The full current contents of one dir state, as a file map (copies). */
export function snapshotDirState(state: CheckoutDirState): FileMap {
  const map = emptyFileMap();
  for (const [path, content] of state.files) map[path] = copyContent(content);
  return map;
}

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

export const systemClock: Clock = { now: () => new Date() };

/**
 * Loads every dir (in parallel) into a fresh checkout: evaluates `canWrite` once per dir for
 * this turn (false or throwing → read-only), calls `load`, validates the result, records the
 * before-snapshot and emits `dir.loaded`. Anything uncommitted from an earlier checkout is not
 * seen: each turn starts from backing storage. A failing `load` rejects the whole call.
 */
export async function loadCheckout<TExtraBody, TSession>(
  options: LoadCheckoutOptions<TExtraBody, TSession>,
): Promise<Checkout> {
  const clock = options.clock ?? systemClock;
  const dirs = resolvePersistentDirs({ dirs: options.dirs });
  const loaded = await Promise.all(
    dirs.map(async (dir): Promise<CheckoutDirState> => {
      const [access, result] = await Promise.all([
        decideAccess(dir, options.extraBody),
        dir.definition.load({
          extraBody: options.extraBody,
          session: options.session,
          abortSignal: options.abortSignal,
        }),
      ]);
      options.abortSignal?.throwIfAborted();
      const { files, updatedAt, cursor, bytes } = validateLoadResult({
        harnessDir: dir.harnessDir,
        limits: dir.limits,
        result,
      });
      return {
        dir,
        ...access,
        cursor,
        base: new Map([...files].map(([path, content]) => [path, copyContent(content)])),
        baseHashes: new Map(),
        files,
        updatedAt,
        touched: new Set(),
        bytes,
      };
    }),
  );
  const at = clock.now().toISOString();
  for (const state of loaded) {
    options.onTrace?.({
      type: "dir.loaded",
      at,
      harnessDir: state.dir.harnessDir,
      mode: state.dir.mode,
      fileCount: state.files.size,
      bytes: state.bytes,
      readOnly: state.readOnly,
      ...(state.readOnlyReason ? { readOnlyReason: state.readOnlyReason } : {}),
      cursor: state.cursor,
    });
  }
  return new Checkout({ dirs: loaded, clock });
}

async function decideAccess<TExtraBody, TSession>(
  dir: ResolvedPersistentDir<TExtraBody, TSession>,
  extraBody: TExtraBody,
): Promise<{ readOnly: boolean; readOnlyReason?: CheckoutDirState["readOnlyReason"] }> {
  if (dir.mode === "read-only") return { readOnly: true, readOnlyReason: "commit-mode" };
  if (!dir.definition.canWrite) return { readOnly: false };
  try {
    return (await dir.definition.canWrite({ extraBody })) === true
      ? { readOnly: false }
      : { readOnly: true, readOnlyReason: "can-write" };
  } catch {
    // Fail closed: a permission check that cannot answer must not grant writes.
    return { readOnly: true, readOnlyReason: "can-write-error" };
  }
}
