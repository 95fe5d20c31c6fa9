import { HarnessValidationError } from "../errors";
import { entryKeyOf } from "./entry-key";
import { recordPreviousList } from "./internal/snapshot-lineage";
import { MAX_PAGE_SIZE, type EntryFilter, type HarnessStoragePort } from "./store-port";
import { ENTRY_KINDS, type Entry, type HarnessSnapshot } from "./types";

/** Which entries a snapshot covers. */
export type SnapshotVisibility =
  /** Every entry of the workspace (export, audits). */
  | { kind: "workspace" }
  /** A chat's merged view: global entries plus that chat's local ones; `chatId: null` = global only. */
  | { kind: "chat"; chatId: string | null };

const kindOrder = new Map<string, number>(ENTRY_KINDS.map((kind, index) => [kind, index]));

/** The canonical order of snapshot entries: kind, then scope (global first), chat, id. */
export function compareEntriesCanonically(a: Entry, b: Entry): number {
  const byKind = (kindOrder.get(a.kind) ?? 99) - (kindOrder.get(b.kind) ?? 99);
  if (byKind !== 0) return byKind;
  if (a.scope !== b.scope) return a.scope === "global" ? -1 : 1;
  const chatA = a.chatId ?? "";
  const chatB = b.chatId ?? "";
  if (chatA !== chatB) return chatA < chatB ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function isVisible(entry: Entry, visibility: SnapshotVisibility): boolean {
  if (visibility.kind === "workspace" || entry.scope === "global") return true;
  return visibility.chatId !== null && entry.chatId === visibility.chatId;
}

async function listAllEntries(options: {
  storage: HarnessStoragePort;
  workspaceId: string;
  filter: EntryFilter;
  abortSignal?: AbortSignal;
}): Promise<Entry[]> {
  const entries: Entry[] = [];
  let cursor: string | null = null;
  do {
    const page = await options.storage.listEntries({
      workspaceId: options.workspaceId,
      filter: options.filter,
      cursor,
      limit: MAX_PAGE_SIZE,
      abortSignal: options.abortSignal,
    });
    entries.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return entries;
}

/** Freezes an entry and everything in its metadata; returns it. */
export function freezeEntry(entry: Entry): Entry {
  deepFreeze(entry.metadata);
  return Object.freeze(entry);
}

function deepFreeze(value: unknown): void {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const child of Object.values(value)) deepFreeze(child);
}

function freezeSnapshot(snapshot: HarnessSnapshot): HarnessSnapshot {
  for (const entry of snapshot.entries) freezeEntry(entry);
  Object.freeze(snapshot.entries);
  return Object.freeze(snapshot);
}

/** Beyond this many revisions since the remembered view, a snapshot is read afresh. */
const MAX_CATCH_UP_REVISIONS = 2000;

/**
 * Remembers the current snapshot of each view (a chat's merged view, or the workspace) per
 * storage, least recently used out first. The next `snapshot()` reads the harness version
 * (one query): unchanged, it returns the same frozen snapshot; moved on, it reads only the
 * revisions since (immutable, and ordered by the version counter every change advances),
 * applies them, and keeps every unchanged entry object — so the prompt view, which remembers
 * what it derived per entry object, redoes only what changed.
 *
 * Snapshots handed out are frozen (entries, their metadata and the list): they are shared.
 */
export class SnapshotCache {
  private readonly byStorage = new WeakMap<HarnessStoragePort, Map<string, HarnessSnapshot>>();
  /**
   * Per storage and workspace, the entry object last handed out for each entry key, so every
   * view (each chat's, the workspace's) shares one object per entry state instead of holding
   * its own copy. Held weakly: an entry no view holds any more can go.
   */
  private readonly pools = new WeakMap<
    HarnessStoragePort,
    Map<string, Map<string, WeakRef<Entry>>>
  >();

  constructor(readonly maxViewsPerStorage = 64) {}

  /**
   * The shared object for `entry` (frozen) when one with the same key, version and update time
   * is held — a version is never reused for an entry key, so that is the same state — else
   * `entry` itself, remembered as the shared one.
   */
  shared(storage: HarnessStoragePort, workspaceId: string, entry: Entry): Entry {
    let workspaces = this.pools.get(storage);
    if (!workspaces) this.pools.set(storage, (workspaces = new Map()));
    let pool = workspaces.get(workspaceId);
    if (!pool) workspaces.set(workspaceId, (pool = new Map()));
    const key = entryKeyOf(entry);
    const known = pool.get(key)?.deref();
    if (known && known.version === entry.version && known.updatedAt === entry.updatedAt) {
      return known;
    }
    pool.set(key, new WeakRef(entry));
    if (pool.size > 2 * this.largestView + 1024) this.sweep(pool);
    return entry;
  }

  private largestView = 0;

  private sweep(pool: Map<string, WeakRef<Entry>>): void {
    for (const [key, ref] of pool) if (ref.deref() === undefined) pool.delete(key);
  }

  get(storage: HarnessStoragePort, key: string): HarnessSnapshot | undefined {
    const views = this.byStorage.get(storage);
    const snapshot = views?.get(key);
    if (views && snapshot) {
      views.delete(key);
      views.set(key, snapshot);
    }
    return snapshot;
  }

  set(storage: HarnessStoragePort, key: string, snapshot: HarnessSnapshot): void {
    this.largestView = Math.max(this.largestView, snapshot.entries.length);
    let views = this.byStorage.get(storage);
    if (!views) this.byStorage.set(storage, (views = new Map()));
    views.delete(key);
    views.set(key, snapshot);
    if (views.size > this.maxViewsPerStorage) {
      const oldest = views.keys().next();
      if (!oldest.done) views.delete(oldest.value);
    }
  }
}

/** The cache `createHarness` uses unless told otherwise. */
export const sharedSnapshotCache = new SnapshotCache();

function viewKey(workspaceId: string, visibility: SnapshotVisibility): string {
  return JSON.stringify([workspaceId, visibility.kind === "workspace" ? "*" : visibility.chatId]);
}

/**
 * `previous` brought forward to `current` by the revisions in between, or `null` when there
 * are too many of them (then the caller reads the snapshot afresh).
 */
async function catchUp(options: {
  storage: HarnessStoragePort;
  workspaceId: string;
  cache: SnapshotCache;
  previous: HarnessSnapshot;
  current: number;
  visibility: SnapshotVisibility;
  abortSignal?: AbortSignal;
}): Promise<HarnessSnapshot | null> {
  const { storage, workspaceId, cache, previous, current, visibility, abortSignal } = options;
  // Per entry key, its state after the last revision, and which entry it is (kind, scope,
  // chat, id — from `after`, or `before` for a delete).
  const changes = new Map<string, { after: Entry | null; ref: Entry }>();
  let cursor: string | null = null;
  let read = 0;
  do {
    const page = await storage.listRevisionsInRange({
      workspaceId,
      afterHarnessVersion: previous.harnessVersion,
      upToHarnessVersion: current,
      cursor,
      limit: MAX_PAGE_SIZE,
      abortSignal,
    });
    read += page.items.length;
    if (read > MAX_CATCH_UP_REVISIONS) return null;
    for (const revision of page.items) {
      const ref = revision.after ?? revision.before;
      if (ref) changes.set(revision.entryKey, { after: revision.after, ref });
    }
    cursor = page.nextCursor;
  } while (cursor !== null);

  // The previous list is in canonical order: find each changed entry by binary search
  // (without reading the others), drop it, and insert its new state where it belongs.
  const list = previous.entries;
  const removed = new Uint8Array(list.length);
  const inserts: { at: number; entry: Entry }[] = [];
  for (const [key, { after, ref }] of changes) {
    const at = lowerBound(list, ref);
    if (at < list.length && entryKeyOf(list[at]!) === key) removed[at] = 1;
    if (after && entryKeyOf(after) === key && isVisible(after, visibility)) {
      inserts.push({
        at: lowerBound(list, after),
        entry: cache.shared(storage, workspaceId, freezeEntry(after)),
      });
    }
  }
  inserts.sort((a, b) => a.at - b.at || compareEntriesCanonically(a.entry, b.entry));
  const entries: Entry[] = [];
  let next = 0;
  for (let index = 0; index <= list.length; index++) {
    while (next < inserts.length && inserts[next]!.at === index)
      entries.push(inserts[next++]!.entry);
    if (index < list.length && removed[index] === 0) entries.push(list[index]!);
  }
  // Unchanged entries are frozen already (they come from a frozen snapshot).
  Object.freeze(entries);
  recordPreviousList(entries, list);
  return Object.freeze({ workspaceId, harnessVersion: current, entries });
}

/**
 * A chat's merged view at `current` from the (remembered) global-only view and the chat's local
 * entries, or `null` when the harness moved on while they were read (the caller then reads the
 * merged view afresh). Exact: both parts are of version `current`, checked after the last read.
 */
async function globalViewPlusLocals(options: {
  storage: HarnessStoragePort;
  workspaceId: string;
  cache: SnapshotCache;
  current: number;
  chatId: string;
  abortSignal?: AbortSignal;
}): Promise<HarnessSnapshot | null> {
  const { storage, workspaceId, cache, current, chatId, abortSignal } = options;
  const global = await reconstructHarnessState({
    storage,
    workspaceId,
    visibility: { kind: "chat", chatId: null },
    cache,
    abortSignal,
  });
  if (global.harnessVersion !== current) return null;
  const locals = await listAllEntries({
    storage,
    workspaceId,
    filter: { scope: "local", chatId },
    abortSignal,
  });
  if ((await storage.getHarnessVersion({ workspaceId, abortSignal })) !== current) return null;
  const own = locals
    .map((entry) => cache.shared(storage, workspaceId, freezeEntry(entry)))
    .sort(compareEntriesCanonically);
  const entries: Entry[] = [];
  let g = 0;
  let l = 0;
  while (g < global.entries.length || l < own.length) {
    if (l === own.length) entries.push(global.entries[g++]!);
    else if (g === global.entries.length) entries.push(own[l++]!);
    else if (compareEntriesCanonically(own[l]!, global.entries[g]!) < 0) entries.push(own[l++]!);
    else entries.push(global.entries[g++]!);
  }
  Object.freeze(entries);
  return Object.freeze({ workspaceId, harnessVersion: current, entries });
}

/** The first index of `list` (canonically sorted) whose entry does not sort before `entry`. */
function lowerBound(list: readonly Entry[], entry: Entry): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compareEntriesCanonically(list[middle]!, entry) < 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * Rebuilds the harness exactly as it was at `atVersion` (default: now) — frozen — from the immutable
 * revisions: for every entry key, the `after` of its last revision at or before that
 * version. Revisions are never rewritten, so the same version always yields the same state.
 *
 * For the current version it reads the live entries instead, and falls back to replaying
 * revisions if a write landed while it was reading (the version counter moved).
 *
 * @throws HarnessValidationError if `atVersion` is not an integer in `[0, current]`.
 */
export async function reconstructHarnessState(options: {
  storage: HarnessStoragePort;
  workspaceId: string;
  atVersion?: number;
  visibility: SnapshotVisibility;
  /**
   * Remembers current snapshots between calls (see `SnapshotCache`); `null` reads afresh.
   * Only snapshots of the current version are remembered or served from it.
   */
  cache?: SnapshotCache | null;
  abortSignal?: AbortSignal;
}): Promise<HarnessSnapshot> {
  const { storage, workspaceId, visibility, abortSignal } = options;
  const current = await storage.getHarnessVersion({ workspaceId, abortSignal });
  const cache = options.cache ?? null;
  if (cache && (options.atVersion === undefined || options.atVersion === current)) {
    const key = viewKey(workspaceId, visibility);
    const previous = cache.get(storage, key);
    if (previous && previous.harnessVersion === current) return previous;
    let snapshot: HarnessSnapshot | null = null;
    if (previous && previous.harnessVersion < current) {
      snapshot = await catchUp({
        storage,
        workspaceId,
        cache,
        previous,
        current,
        visibility,
        abortSignal,
      });
    }
    if (!snapshot && visibility.kind === "chat" && visibility.chatId !== null) {
      // A chat seen for the first time: the remembered global view plus the chat's own
      // entries, instead of reading every global entry again for each new chat.
      snapshot = await globalViewPlusLocals({
        storage,
        workspaceId,
        cache,
        current,
        chatId: visibility.chatId,
        abortSignal,
      });
    }
    if (!snapshot) {
      // Read afresh; entries whose state another view holds already share its object.
      const read = await reconstructHarnessState({ ...options, atVersion: current, cache: null });
      const entries = read.entries.map((entry) => cache.shared(storage, workspaceId, entry));
      snapshot = Object.freeze({ ...read, entries: Object.freeze(entries) as Entry[] });
    }
    // A snapshot read while a write landed is of an older version: remember only the newest.
    const latest = cache.get(storage, key);
    if (!latest || latest.harnessVersion <= snapshot.harnessVersion) {
      cache.set(storage, key, snapshot);
    }
    return snapshot;
  }
  const target = options.atVersion ?? current;
  if (!Number.isInteger(target) || target < 0 || target > current) {
    throw new HarnessValidationError({
      surface: "snapshot",
      message: `Harness version ${String(options.atVersion)} does not exist (current version is ${current})`,
      details: { atVersion: options.atVersion, harnessVersion: current },
    });
  }

  if (target === current) {
    const filter: EntryFilter =
      visibility.kind === "workspace"
        ? {}
        : visibility.chatId === null
          ? { scope: "global" }
          : { chatId: visibility.chatId };
    const entries = await listAllEntries({ storage, workspaceId, filter, abortSignal });
    const after = await storage.getHarnessVersion({ workspaceId, abortSignal });
    if (after === current) {
      return freezeSnapshot({
        workspaceId,
        harnessVersion: current,
        entries: entries.sort(compareEntriesCanonically),
      });
    }
  }

  const latest = new Map<string, Entry | null>();
  let cursor: string | null = null;
  do {
    const page = await storage.listRevisionsInRange({
      workspaceId,
      upToHarnessVersion: target,
      cursor,
      limit: MAX_PAGE_SIZE,
      abortSignal,
    });
    // Pages are ordered by harness version, so a later revision of a key overwrites an earlier one.
    for (const revision of page.items) latest.set(revision.entryKey, revision.after);
    cursor = page.nextCursor;
  } while (cursor !== null);

  const entries: Entry[] = [];
  for (const [key, entry] of latest) {
    if (entry && entryKeyOf(entry) === key && isVisible(entry, visibility)) entries.push(entry);
  }
  return freezeSnapshot({
    workspaceId,
    harnessVersion: target,
    entries: entries.sort(compareEntriesCanonically),
  });
}
