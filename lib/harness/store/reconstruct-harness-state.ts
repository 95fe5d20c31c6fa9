import { HarnessValidationError } from "../errors";
import { entryKeyOf } from "./entry-key";
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

/**
 * Rebuilds the harness exactly as it was at `atVersion` (default: now) from the immutable
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
  abortSignal?: AbortSignal;
}): Promise<HarnessSnapshot> {
  const { storage, workspaceId, visibility, abortSignal } = options;
  const current = await storage.getHarnessVersion({ workspaceId, abortSignal });
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
      return {
        workspaceId,
        harnessVersion: current,
        entries: entries.sort(compareEntriesCanonically),
      };
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
  return { workspaceId, harnessVersion: target, entries: entries.sort(compareEntriesCanonically) };
}
