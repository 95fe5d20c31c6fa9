// The checkout's file system: read, write, delete, rename and list over every dir of a turn.
// Its per-dir state and diff live in checkout-state.ts, listings in checkout-listing.ts, and
// loading in load-checkout.ts.
import {
  HarnessConflictError,
  HarnessForbiddenError,
  HarnessNotFoundError,
  HarnessValidationError,
} from "../errors";
import {
  buildDirectoryListing,
  type CheckoutDirInfo,
  type CheckoutFileInfo,
  type DirectoryListing,
} from "./checkout-listing";
import {
  checkoutStates,
  currentFile,
  currentFiles,
  diffDirState,
  dirInfo,
  hasFile,
  isFolder,
  putCurrent,
  readCurrent,
  type CheckoutDirState,
  type DirChanges,
} from "./checkout-state";
import { buildDirOverview, type DirOverview } from "./dir-overview";
import { contentByteLength, copyContent, isFileContent } from "./internal/content";
import {
  assertDirWithinLimits,
  assertFileWithinLimits,
  isWithinHarnessDir,
  joinHarnessPath,
  printable,
  resolvePersistentPath,
  validateHarnessDir,
  PERSISTENT_ROOT,
} from "./paths";
import type { Clock, CommitMode, DirLimits, FileContent } from "./types";

/**
 * A turn's isolated view of its persistent dirs: each dir at the cursor it was loaded at (loaded
 * whole, or as an index whose file bodies are read on first use) plus a copy-on-write overlay of
 * what the turn wrote. Every method takes absolute `/persistent/...` paths and validates them.
 * Nothing here writes to backing storage: changes reach it only when the turn commits.
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
    checkoutStates.set(this, this.#dirs);
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
    /** A write here becomes a suggestion for review after the turn, never a commit. */
    suggestOnly: boolean;
  } {
    const { state, relativePath, path } = this.#locate(options.path);
    this.#assertWritable(state, path);
    return {
      path,
      harnessDir: state.dir.harnessDir,
      relativePath,
      mode: state.dir.mode,
      limits: { ...state.dir.limits },
      suggestOnly: state.suggestOnly === true,
    };
  }

  /**
   * Whether a write at `path` becomes a suggestion for review rather than a commit (the dir is
   * not this turn's to write, but takes suggestions). `false` for paths outside every dir.
   */
  suggestsAt(options: { path: string }): boolean {
    try {
      return this.#locate(options.path).state.suggestOnly === true;
    } catch {
      return false;
    }
  }

  /**
   * The content at `path`, or `null` when there is no such file. Bytes are returned as a copy.
   * A lazy dir's body is read from the body cache or the backing on first use.
   */
  async readFile(options: { path: string }): Promise<FileContent | null> {
    const { state, relativePath } = this.#locate(options.path);
    return readCurrent(state, relativePath);
  }

  /** Whether a file exists at `path` (no content is read). */
  exists(options: { path: string }): boolean {
    const { state, relativePath } = this.#locate(options.path);
    return hasFile(state, relativePath);
  }

  /**
   * Reads the bodies of `paths` (absolute; files outside every dir or missing are ignored) in
   * as few backing calls as their dirs need, so the reads that follow are served from memory.
   */
  async prefetch(options: { paths: Iterable<string> }): Promise<void> {
    const byDir = new Map<CheckoutDirState, string[]>();
    for (const path of options.paths) {
      let located: { state: CheckoutDirState; relativePath: string };
      try {
        located = this.#locate(path);
      } catch {
        continue;
      }
      if (located.state.overlay.has(located.relativePath)) continue;
      const list = byDir.get(located.state) ?? [];
      list.push(located.relativePath);
      byDir.set(located.state, list);
    }
    await Promise.all([...byDir].map(([state, paths]) => state.base.prefetch(paths)));
  }

  /** Like `readFile`, but throws `not_found:path` when the file does not exist. */
  async readFileOrThrow(options: { path: string }): Promise<FileContent> {
    const content = await this.readFile(options);
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
    const previous = currentFile(state, relativePath);
    const nextBytes = state.bytes - (previous === undefined ? 0 : previous.bytes) + bytes;
    const nextCount = state.fileCount + (previous === undefined ? 1 : 0);
    this.#assertNoFileDirectoryClash(state, relativePath, path);
    assertDirWithinLimits({
      harnessDir: state.dir.harnessDir,
      fileCount: nextCount,
      bytes: nextBytes,
      limits: state.dir.limits,
      before: { fileCount: state.fileCount, bytes: state.bytes },
    });
    if (!state.overlay.has(relativePath)) state.base.retain(relativePath);
    putCurrent(state, relativePath, copyContent(options.content), this.#clock.now());
  }

  // A path cannot be both a file and a folder, or a file-system backing could not store it.
  #assertNoFileDirectoryClash(state: CheckoutDirState, relativePath: string, path: string): void {
    const segments = relativePath.split("/");
    for (let index = 1; index < segments.length; index += 1) {
      const ancestor = segments.slice(0, index).join("/");
      if (hasFile(state, ancestor)) {
        throw new HarnessConflictError({
          surface: "path",
          message: `Cannot create ${printable(path)}: ${printable(joinHarnessPath({ harnessDir: state.dir.harnessDir, relativePath: ancestor }))} is a file.`,
          details: { path: printable(path) },
        });
      }
    }
    if (!hasFile(state, relativePath) && isFolder(state, relativePath)) {
      throw new HarnessConflictError({
        surface: "path",
        message: `Cannot create ${printable(path)}: it is a folder.`,
        details: { path: printable(path) },
      });
    }
  }

  /** Deletes a file; throws `not_found:path` when it does not exist. */
  deleteFile(options: { path: string }): void {
    const { state, relativePath, path } = this.#locate(options.path);
    this.#assertWritable(state, path);
    if (!hasFile(state, relativePath)) {
      throw new HarnessNotFoundError({
        surface: "path",
        message: `No file at ${printable(path)}.`,
        details: { path: printable(path) },
      });
    }
    if (!state.overlay.has(relativePath)) state.base.retain(relativePath);
    putCurrent(state, relativePath, null, null);
  }

  /**
   * Moves a file, possibly across dirs (both must be writable). Throws `not_found:path` when
   * `from` is missing and `conflict:path` when `to` exists unless `overwrite` is true.
   */
  async renameFile(options: { from: string; to: string; overwrite?: boolean }): Promise<void> {
    const source = this.#locate(options.from);
    const target = this.#locate(options.to);
    this.#assertWritable(source.state, source.path);
    this.#assertWritable(target.state, target.path);
    const content = await readCurrent(source.state, source.relativePath);
    if (content === null) {
      throw new HarnessNotFoundError({
        surface: "path",
        message: `No file at ${printable(source.path)}.`,
        details: { path: printable(source.path) },
      });
    }
    if (source.path === target.path) return;
    if (!options.overwrite && hasFile(target.state, target.relativePath)) {
      throw new HarnessConflictError({
        surface: "path",
        message: `${printable(target.path)} already exists.`,
        details: { path: printable(target.path) },
      });
    }
    // Remove first so the size checks see the dir without the moved file; restore on failure.
    const overlaid = source.state.overlay.has(source.relativePath);
    const writtenAt = source.state.writtenAt.get(source.relativePath);
    this.deleteFile({ path: source.path });
    try {
      this.writeFile({ path: target.path, content });
    } catch (error) {
      putCurrent(source.state, source.relativePath, content, writtenAt ?? null);
      // Back to the base's own file when it was never written this turn.
      if (!overlaid) {
        source.state.overlay.delete(source.relativePath);
        source.state.writtenAt.delete(source.relativePath);
      }
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
      for (const [relativePath, file] of currentFiles(state)) {
        const path = joinHarnessPath({ harnessDir, relativePath });
        if (!isWithinHarnessDir({ path, harnessDir: prefix })) continue;
        result.push({
          path,
          harnessDir,
          relativePath,
          bytes: file.bytes,
          updatedAt: file.updatedAt,
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

  /**
   * A dir's files at a glance: counts, bytes, its top level and a word index of its paths. For
   * a dir the turn has not written, computed once per version of a lazy dir's index.
   */
  overview(options: { harnessDir: string }): DirOverview {
    const state = this.#dirs.get(options.harnessDir.normalize("NFC"));
    if (!state) {
      throw new HarnessNotFoundError({
        surface: "dir",
        message: `No persistent dir ${printable(options.harnessDir)} in this turn.`,
        details: { harnessDir: printable(options.harnessDir) },
      });
    }
    return state.overlay.size === 0 ? state.base.overview() : buildDirOverview(currentFiles(state));
  }

  /**
   * A dir's `limit` newest files (then by path; files without a date last), with how many it
   * holds: what `listFiles` sorted by date would start with, without listing the dir. For the
   * base they are found in one pass once per version of a lazy dir's index.
   */
  recentFiles(options: { harnessDir: string; limit: number }): {
    files: CheckoutFileInfo[];
    total: number;
  } {
    const harnessDir = options.harnessDir.normalize("NFC");
    const state = this.#dirs.get(harnessDir);
    if (!state) {
      throw new HarnessNotFoundError({
        surface: "dir",
        message: `No persistent dir ${printable(options.harnessDir)} in this turn.`,
        details: { harnessDir: printable(options.harnessDir) },
      });
    }
    const limit = Math.max(0, Math.floor(options.limit));
    // Enough of the base's newest to fill `limit` whatever the overlay replaced or deleted.
    const candidates = state.base
      .newest(limit + state.overlay.size)
      .filter((path) => !state.overlay.has(path));
    for (const [path, content] of state.overlay) if (content !== null) candidates.push(path);
    const files = candidates.map((relativePath): CheckoutFileInfo => {
      const file = currentFile(state, relativePath)!;
      return {
        path: joinHarnessPath({ harnessDir, relativePath }),
        harnessDir,
        relativePath,
        bytes: file.bytes,
        updatedAt: file.updatedAt,
      };
    });
    files.sort(
      (a, b) =>
        (b.updatedAt?.getTime() ?? -Infinity) - (a.updatedAt?.getTime() ?? -Infinity) ||
        (a.path < b.path ? -1 : a.path > b.path ? 1 : 0),
    );
    return { files: files.slice(0, limit), total: state.fileCount };
  }

  /** Every dir of this turn with its mode, read-only flag, size and base cursor. */
  listDirs(): CheckoutDirInfo[] {
    return [...this.#dirs.values()].map(dirInfo);
  }

  /**
   * A directory listing of `path` (see `buildDirectoryListing`): `/persistent`, a dir's root, a
   * folder inside a dir, or a folder that holds dirs, `depth` levels deep (default 2), at most
   * `maxEntries` entries (default 500). `null` when nothing is there or `path` is a file.
   */
  getDirectoryListing(options: {
    path: string;
    depth?: number;
    maxEntries?: number;
  }): DirectoryListing | null {
    return buildDirectoryListing({
      ...options,
      states: this.#dirs,
      locate: (path) => this.#locate(path),
    });
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
