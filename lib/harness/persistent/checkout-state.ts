import type { ResolvedPersistentDir } from "./define-persistent-dirs";
import { contentHash, copyContent, emptyFileMap } from "./internal/content";
import type { CheckoutDirInfo } from "./checkout-listing";
import type { ChangeSet, DirCursor, FileContent, FileMap } from "./types";

// The per-dir state behind a checkout and the pure functions over it (diff, snapshot, info),
// shared by the checkout's file system, its listings and the turn's commit.

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

/** @internal */
export const checkoutStates = new WeakMap<object, Map<string, CheckoutDirState>>();

/** @internal The dir states behind a checkout, for the commit runner. */
export function checkoutDirStates(checkout: object): Map<string, CheckoutDirState> {
  const map = checkoutStates.get(checkout);
  if (!map) throw new Error("Not a checkout created by loadCheckout.");
  return map;
}

export function emptyChangeSet(): ChangeSet {
  return { created: [], updated: [], deleted: [] };
}

/** @internal What a dir state says of itself in listings. */
export function dirInfo(state: CheckoutDirState): CheckoutDirInfo {
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
