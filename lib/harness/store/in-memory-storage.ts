import { HarnessConflictError } from "../errors";
import {
  clampStoragePageSize,
  decodeStorageCursor,
  encodeStorageCursor,
  entryVersionConflict,
  harnessVersionConflict,
  isEntryCursor,
  isRangeCursor,
  isVersionCursor,
} from "./storage-cursors";
import { entryKeyOf } from "./entry-key";
import {
  type ApplyChangesOptions,
  type EntryFilter,
  type HarnessStoragePort,
  type ListEntriesOptions,
  type ListRevisionsInRangeOptions,
  type ListRevisionsOptions,
  type StorageCallOptions,
} from "./store-port";
import { type Entry, type EntryRef, type Page, type Revision } from "./types";

interface WorkspaceData {
  harnessVersion: number;
  entries: Map<string, Entry>;
  /** Every revision, in append order (harness version ascending, then input order). */
  revisions: Revision[];
  revisionsById: Map<string, Revision>;
  revisionsByKey: Map<string, Revision[]>;
}

function matches(entry: Entry, filter: EntryFilter): boolean {
  if (filter.kind !== undefined) {
    const kinds: readonly string[] = typeof filter.kind === "string" ? [filter.kind] : filter.kind;
    if (!kinds.includes(entry.kind)) return false;
  }
  if (filter.scope === "global") {
    if (entry.scope !== "global") return false;
  } else if (filter.scope === "local") {
    if (entry.scope !== "local") return false;
    if (filter.chatId !== undefined && entry.chatId !== filter.chatId) return false;
  } else if (filter.chatId !== undefined) {
    if (entry.scope === "local" && entry.chatId !== filter.chatId) return false;
  }
  if (filter.pathPrefix !== undefined && filter.pathPrefix !== "") {
    if (entry.path !== filter.pathPrefix && !entry.path.startsWith(`${filter.pathPrefix}/`))
      return false;
  }
  if (filter.text !== undefined && filter.text !== "") {
    const needle = filter.text.toLowerCase();
    if (
      !entry.title.toLowerCase().includes(needle) &&
      !entry.content.toLowerCase().includes(needle)
    )
      return false;
  }
  if (filter.pinned !== undefined && entry.pinned !== filter.pinned) return false;
  return true;
}

function compareEntries(
  a: { updatedAt: string; key: string },
  b: { updatedAt: string; key: string },
): number {
  if (a.updatedAt !== b.updatedAt) return a.updatedAt < b.updatedAt ? 1 : -1;
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

/**
 * The reference implementation of `HarnessStoragePort`, kept in process memory. It is the
 * executable specification other adapters are checked against, and the store for tests and
 * library users who need no persistence. Values are deep-copied in and out, so callers can
 * never alias stored state. Writes are atomic because each `applyChanges` validates the
 * whole batch before mutating anything, with no `await` in between.
 */
export class InMemoryHarnessStorage implements HarnessStoragePort {
  private readonly workspaces = new Map<string, WorkspaceData>();

  private workspace(workspaceId: string): WorkspaceData {
    let data = this.workspaces.get(workspaceId);
    if (!data) {
      data = {
        harnessVersion: 0,
        entries: new Map(),
        revisions: [],
        revisionsById: new Map(),
        revisionsByKey: new Map(),
      };
      this.workspaces.set(workspaceId, data);
    }
    return data;
  }

  private async enter(options: StorageCallOptions): Promise<void> {
    options.abortSignal?.throwIfAborted();
    // Yield once so concurrent callers interleave as they would against a real database.
    await Promise.resolve();
    options.abortSignal?.throwIfAborted();
  }

  async applyChanges(
    options: ApplyChangesOptions,
  ): Promise<{ harnessVersion: number; revisions: Revision[] }> {
    await this.enter(options);
    const data = this.workspace(options.workspaceId);
    if (
      options.expectedHarnessVersion !== undefined &&
      options.expectedHarnessVersion !== data.harnessVersion
    ) {
      throw harnessVersionConflict(options.expectedHarnessVersion, data.harnessVersion);
    }
    if (options.changes.length === 0) return { harnessVersion: data.harnessVersion, revisions: [] };

    // Check every expectation before touching anything: all or nothing.
    const seenKeys = new Set<string>();
    const seenRevisionIds = new Set<string>();
    for (const change of options.changes) {
      const { revision } = change;
      const key = entryKeyOf({
        scope: revision.scope,
        chatId: revision.chatId,
        kind: revision.kind,
        id: revision.entryId,
      });
      if (seenKeys.has(key)) {
        throw new HarnessConflictError({
          surface: "entry",
          message: `Entry ${key} appears twice in one batch`,
          details: { entryKey: key },
        });
      }
      seenKeys.add(key);
      if (data.revisionsById.has(revision.id) || seenRevisionIds.has(revision.id)) {
        throw new HarnessConflictError({
          surface: "revision",
          message: `Revision id ${revision.id} already exists`,
          details: { revisionId: revision.id },
        });
      }
      seenRevisionIds.add(revision.id);
      const current = data.entries.get(key);
      const currentVersion = current ? current.version : null;
      if (currentVersion !== change.expectedVersion) {
        throw entryVersionConflict(key, change.expectedVersion, currentVersion);
      }
    }

    const harnessVersion = data.harnessVersion + 1;
    const stored: Revision[] = [];
    for (const change of options.changes) {
      const revision: Revision = structuredClone({
        ...change.revision,
        workspaceId: options.workspaceId,
        harnessVersion,
      });
      const key = entryKeyOf({
        scope: revision.scope,
        chatId: revision.chatId,
        kind: revision.kind,
        id: revision.entryId,
      });
      revision.entryKey = key;
      if (revision.after) data.entries.set(key, structuredClone(revision.after));
      else data.entries.delete(key);
      data.revisions.push(revision);
      data.revisionsById.set(revision.id, revision);
      const byKey = data.revisionsByKey.get(key) ?? [];
      byKey.push(revision);
      data.revisionsByKey.set(key, byKey);
      stored.push(structuredClone(revision));
    }
    data.harnessVersion = harnessVersion;
    return { harnessVersion, revisions: stored };
  }

  async getEntry(
    options: StorageCallOptions & { workspaceId: string; ref: EntryRef },
  ): Promise<Entry | null> {
    await this.enter(options);
    const entry = this.workspaces.get(options.workspaceId)?.entries.get(entryKeyOf(options.ref));
    return entry ? structuredClone(entry) : null;
  }

  async getEntryAndLastRevision(
    options: StorageCallOptions & { workspaceId: string; ref: EntryRef },
  ): Promise<{ entry: Entry | null; lastRevision: Revision | null }> {
    await this.enter(options);
    const data = this.workspaces.get(options.workspaceId);
    const key = entryKeyOf(options.ref);
    const entry = data?.entries.get(key);
    const lastRevision = data?.revisionsByKey.get(key)?.at(-1);
    return {
      entry: entry ? structuredClone(entry) : null,
      lastRevision: lastRevision ? structuredClone(lastRevision) : null,
    };
  }

  async listEntries(options: ListEntriesOptions): Promise<Page<Entry>> {
    await this.enter(options);
    const limit = clampStoragePageSize(options.limit);
    const after = decodeStorageCursor(options.cursor, isEntryCursor);
    const data = this.workspaces.get(options.workspaceId);
    if (!data) return { items: [], nextCursor: null };
    const filter = options.filter ?? {};
    const rows: { updatedAt: string; key: string; entry: Entry }[] = [];
    for (const [key, entry] of data.entries) {
      if (!matches(entry, filter)) continue;
      const row = { updatedAt: entry.updatedAt, key, entry };
      if (after && compareEntries(row, { updatedAt: after[0], key: after[1] }) <= 0) continue;
      rows.push(row);
    }
    rows.sort(compareEntries);
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      items: page.map((row) => structuredClone(row.entry)),
      nextCursor:
        rows.length > limit && last ? encodeStorageCursor([last.updatedAt, last.key]) : null,
    };
  }

  async listRevisions(options: ListRevisionsOptions): Promise<Page<Revision>> {
    await this.enter(options);
    const limit = clampStoragePageSize(options.limit);
    const after = decodeStorageCursor(options.cursor, isVersionCursor);
    const descending = options.order === "desc";
    const all =
      this.workspaces.get(options.workspaceId)?.revisionsByKey.get(options.entryKey) ?? [];
    const ordered = descending ? [...all].reverse() : all;
    const rest =
      after === null
        ? ordered
        : ordered.filter((revision) =>
            descending ? revision.harnessVersion < after : revision.harnessVersion > after,
          );
    const page = rest.slice(0, limit);
    const last = page.at(-1);
    return {
      items: page.map((revision) => structuredClone(revision)),
      nextCursor: rest.length > limit && last ? encodeStorageCursor(last.harnessVersion) : null,
    };
  }

  async getRevision(
    options: StorageCallOptions & { workspaceId: string; revisionId: string },
  ): Promise<Revision | null> {
    await this.enter(options);
    const revision = this.workspaces
      .get(options.workspaceId)
      ?.revisionsById.get(options.revisionId);
    return revision ? structuredClone(revision) : null;
  }

  async listRevisionsInRange(options: ListRevisionsInRangeOptions): Promise<Page<Revision>> {
    await this.enter(options);
    const limit = clampStoragePageSize(options.limit);
    const after = decodeStorageCursor(options.cursor, isRangeCursor);
    const lower = options.afterHarnessVersion ?? 0;
    const upper = options.upToHarnessVersion ?? Number.POSITIVE_INFINITY;
    const all = this.workspaces.get(options.workspaceId)?.revisions ?? [];
    const rows = all
      .filter((revision) => revision.harnessVersion > lower && revision.harnessVersion <= upper)
      .filter(
        (revision) =>
          after === null ||
          revision.harnessVersion > after[0] ||
          (revision.harnessVersion === after[0] && revision.entryKey > after[1]),
      )
      .sort(
        (a, b) =>
          a.harnessVersion - b.harnessVersion ||
          (a.entryKey < b.entryKey ? -1 : a.entryKey > b.entryKey ? 1 : 0),
      );
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      items: page.map((revision) => structuredClone(revision)),
      nextCursor:
        rows.length > limit && last
          ? encodeStorageCursor([last.harnessVersion, last.entryKey])
          : null,
    };
  }

  async getHarnessVersion(options: StorageCallOptions & { workspaceId: string }): Promise<number> {
    await this.enter(options);
    return this.workspaces.get(options.workspaceId)?.harnessVersion ?? 0;
  }
}
