import type { ResolvedPersistentDir } from "./define-persistent-dirs";
import type { BaseView } from "./checkout-base";
import { contentByteLength, contentHash, copyContent, emptyFileMap } from "./internal/content";
import type { CheckoutDirInfo } from "./checkout-listing";
import type { ChangeSet, DirCursor, FileContent, FileMap } from "./types";

// The per-dir state behind a checkout and the pure functions over it (diff, snapshot, info),
// shared by the checkout's file system, its listings and the turn's commit. A state is the dir
// at its base cursor (`base`: the whole dir loaded, or an index whose bodies are read on first
// use) plus a copy-on-write overlay of what this turn wrote or deleted.

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
  /**
   * `canWrite` said no but the dir takes suggestions: writes land in the overlay, and the turn's
   * change set goes to the dir's `suggest`, never to its store.
   */
  suggestOnly?: boolean;
  cursor: DirCursor;
  /** The dir at `cursor`; never mutated. */
  base: BaseView;
  /** What this turn wrote (content) or deleted (`null`): only these paths can differ from the base. */
  overlay: Map<string, FileContent | null>;
  /** When each file in the overlay was written. */
  writtenAt: Map<string, Date>;
  /** Folder → files the overlay added (+) or removed (−) under it, at any depth. */
  folderDelta: Map<string, number>;
  fileCount: number;
  bytes: number;
}

/** @internal One file as the state holds it now, without its content. */
export interface CurrentFile {
  bytes: number;
  updatedAt: Date | null;
}

/** @internal */
export const checkoutStates = new WeakMap<object, Map<string, CheckoutDirState>>();

/** @internal The dir states behind a checkout, for the commit runner. */
export function checkoutDirStates(checkout: object): Map<string, CheckoutDirState> {
  const map = checkoutStates.get(checkout);
  if (!map) throw new Error("Not a checkout created by loadCheckout.");
  return map;
}

/** @internal A fresh state over `base`, nothing written yet. */
export function newDirState(options: {
  dir: ResolvedPersistentDir<unknown, unknown>;
  readOnly: boolean;
  readOnlyReason?: CheckoutDirState["readOnlyReason"];
  suggestOnly?: boolean;
  cursor: DirCursor;
  base: BaseView;
}): CheckoutDirState {
  return {
    ...options,
    overlay: new Map(),
    writtenAt: new Map(),
    folderDelta: new Map(),
    fileCount: options.base.size,
    bytes: options.base.bytes,
  };
}

export function emptyChangeSet(): ChangeSet {
  return { created: [], updated: [], deleted: [] };
}

/** @internal The file at `path` now, without content; `undefined` when there is none. */
export function currentFile(state: CheckoutDirState, path: string): CurrentFile | undefined {
  if (state.overlay.has(path)) {
    const content = state.overlay.get(path);
    if (content === null || content === undefined) return undefined;
    return { bytes: contentByteLength(content), updatedAt: state.writtenAt.get(path) ?? null };
  }
  const entry = state.base.get(path);
  return entry ? { bytes: entry.bytes, updatedAt: entry.updatedAt ?? null } : undefined;
}

/** @internal Whether a file exists at `path` now. */
export function hasFile(state: CheckoutDirState, path: string): boolean {
  return state.overlay.has(path) ? state.overlay.get(path) !== null : state.base.has(path);
}

/** @internal Whether `path` is a folder now (some file lies under it). */
export function isFolder(state: CheckoutDirState, path: string): boolean {
  return (state.base.folderCounts().get(path) ?? 0) + (state.folderDelta.get(path) ?? 0) > 0;
}

/** @internal The content at `path` now (a copy), or `null`; reads the base body on first use. */
export async function readCurrent(
  state: CheckoutDirState,
  path: string,
): Promise<FileContent | null> {
  if (state.overlay.has(path)) return copyContent(state.overlay.get(path) ?? null);
  return (await state.base.read(path)) ?? null;
}

/** @internal Every file now, without content (base first, then what the turn created). */
export function* currentFiles(state: CheckoutDirState): Generator<[string, CurrentFile]> {
  for (const [path, entry] of state.base.entries()) {
    if (state.overlay.has(path)) continue;
    yield [path, { bytes: entry.bytes, updatedAt: entry.updatedAt ?? null }];
  }
  for (const [path, content] of state.overlay) {
    if (content === null) continue;
    yield [
      path,
      { bytes: contentByteLength(content), updatedAt: state.writtenAt.get(path) ?? null },
    ];
  }
}

function moveFolders(state: CheckoutDirState, path: string, by: number): void {
  for (let slash = path.indexOf("/"); slash !== -1; slash = path.indexOf("/", slash + 1)) {
    const folder = path.slice(0, slash);
    const next = (state.folderDelta.get(folder) ?? 0) + by;
    if (next === 0) state.folderDelta.delete(folder);
    else state.folderDelta.set(folder, next);
  }
}

/**
 * @internal Sets `path` to `content` (`null` deletes) in the overlay, keeping the counts, the
 * bytes and the folder counts; the caller has checked limits and permissions. `content` is
 * kept as given: copy it first.
 */
export function putCurrent(
  state: CheckoutDirState,
  path: string,
  content: FileContent | null,
  at: Date | null,
): void {
  const before = currentFile(state, path);
  if (before) {
    state.fileCount -= 1;
    state.bytes -= before.bytes;
  }
  if (content !== null) {
    state.fileCount += 1;
    state.bytes += contentByteLength(content);
  }
  if (before && content === null) moveFolders(state, path, -1);
  else if (!before && content !== null) moveFolders(state, path, 1);
  state.overlay.set(path, content);
  if (content !== null && at) state.writtenAt.set(path, at);
  else state.writtenAt.delete(path);
}

/** @internal What a dir state says of itself in listings. */
export function dirInfo(state: CheckoutDirState): CheckoutDirInfo {
  return {
    harnessDir: state.dir.harnessDir,
    mode: state.dir.mode,
    readOnly: state.readOnly,
    ...(state.readOnlyReason ? { readOnlyReason: state.readOnlyReason } : {}),
    ...(state.suggestOnly ? { suggestOnly: true } : {}),
    fileCount: state.fileCount,
    bytes: state.bytes,
    cursor: state.cursor,
  };
}

/**
 * @internal The change set of one dir state: only the overlay's paths are compared, by hash
 * against the base (an index carries its hashes; a loaded base hashes the touched paths only).
 */
export function diffDirState(state: CheckoutDirState): ChangeSet {
  const changes = emptyChangeSet();
  for (const relativePath of [...state.overlay.keys()].sort()) {
    const now = state.overlay.get(relativePath) ?? null;
    const beforeHash = state.base.hashOf(relativePath);
    if (now === null) {
      if (beforeHash !== undefined) changes.deleted.push(relativePath);
    } else if (beforeHash === undefined) {
      changes.created.push({ path: relativePath, content: copyContent(now) });
    } else if (contentHash(now) !== beforeHash) {
      changes.updated.push({ path: relativePath, content: copyContent(now) });
    }
  }
  return changes;
}

/**
 * @internal The full current contents of a dir state whose base is loaded whole, as a file map
 * (copies); `undefined` for a lazy base, whose store gets no snapshot.
 */
export function snapshotDirState(state: CheckoutDirState): FileMap | undefined {
  const loaded = state.base.loadedFiles();
  if (!loaded) return undefined;
  const map = emptyFileMap();
  for (const [path, content] of loaded) {
    if (!state.overlay.has(path)) map[path] = copyContent(content);
  }
  for (const [path, content] of state.overlay)
    if (content !== null) map[path] = copyContent(content);
  return map;
}
