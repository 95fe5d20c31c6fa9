import { validateHarnessDir, isWithinHarnessDir, joinHarnessPath, PERSISTENT_ROOT } from "./paths";
import { currentFiles, dirInfo, type CheckoutDirState } from "./checkout-state";
import type { CommitMode, DirCursor } from "./types";

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
  /** Writes are kept as a suggestion for review, never committed (the dir's `suggest`). */
  suggestOnly?: boolean;
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
      suggestOnly?: boolean;
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

/**
 * A directory listing of `path` — `/persistent`, a dir's root (`/persistent/user`), a folder
 * inside a dir, or a folder that holds dirs — `depth` levels deep (default 2): files with
 * their sizes, folders with their file counts and sizes, dirs with their mode and read-only
 * flag for this turn. At most `maxEntries` entries (default 500; the deepest levels are left
 * out first). A trailing `/` is ignored; `/` means `/persistent`. Returns `null` when nothing
 * is there or `path` is a file; throws `validation:path` for a hostile path and
 * `not_found:dir` for a path outside every dir. The memory tool's `view` formats it.
 */
export function buildDirectoryListing(options: {
  /** The checkout's dir states by harnessDir. */
  states: ReadonlyMap<string, CheckoutDirState>;
  /** Resolves a path inside a dir (throws as the checkout does for a hostile or unknown path). */
  locate: (path: string) => { state: CheckoutDirState; relativePath: string };
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
    for (const [relativePath, file] of currentFiles(state)) {
      if (relativePrefix !== "" && !relativePath.startsWith(`${relativePrefix}/`)) continue;
      const rest =
        relativePrefix === "" ? relativePath : relativePath.slice(relativePrefix.length + 1);
      const size = file.bytes;
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
            updatedAt: file.updatedAt,
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
  const inside = [...options.states.values()].filter(
    (state) =>
      state.dir.harnessDir !== path &&
      isWithinHarnessDir({ path: state.dir.harnessDir, harnessDir: path }),
  );
  const own = options.states.get(path);
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
        ...(info.suggestOnly ? { suggestOnly: true } : {}),
      });
      if (depth > 1) addTree(state, "", 1);
      totals.fileCount += info.fileCount;
      totals.bytes += info.bytes;
    }
  } else {
    const located = options.locate(path);
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
