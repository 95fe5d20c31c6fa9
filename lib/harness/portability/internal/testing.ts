import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach } from "vitest";
import { type Role } from "../../actor";
import { createHarness, type Harness } from "../../store/create-harness";
import { InMemoryHarnessStorage } from "../../store/in-memory-storage";
import { type Entry, type EntryKind } from "../../store/types";

let harnessCount = 0;

/** A workspace harness (in memory unless given a storage) with a deterministic clock and ids. */
export function testHarness(options: {
  storage?: InMemoryHarnessStorage;
  role?: Role;
  chatId?: string | null;
  workspaceId?: string;
}): Harness {
  let tick = 0;
  let id = 0;
  const instance = ++harnessCount;
  return createHarness({
    storage: options.storage ?? new InMemoryHarnessStorage(),
    actor: {
      userId: "user-1",
      workspaceId: options.workspaceId ?? "ws-1",
      role: options.role ?? "admin",
    },
    chatId: options.chatId ?? null,
    clock: () => new Date(Date.UTC(2026, 0, 1, 0, 0, tick++)),
    generateId: () => `rev-${instance}-${++id}`,
  });
}

/**
 * For the test file this is called in: a function that makes a temporary directory, and an
 * `afterEach` that removes every one made during the test.
 */
export function registerTemporaryDirectories(prefix = "cairn-portability-"): () => string {
  const made: string[] = [];
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = mkdtempSync(path.join(tmpdir(), prefix));
    made.push(dir);
    return dir;
  };
}

/** Every file below `dir` as relative path → bytes (as a latin1 string for exact comparison). */
export function readTree(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (relative: string) => {
    for (const name of readdirSync(path.join(dir, relative)).sort()) {
      const child = relative ? `${relative}/${name}` : name;
      if (statSync(path.join(dir, child)).isDirectory()) walk(child);
      else files[child] = readFileSync(path.join(dir, child)).toString("latin1");
    }
  };
  walk("");
  return files;
}

/** What an entry *is*, without bookkeeping (versions, times, actors) and import provenance. */
export function entryContent(entry: Entry) {
  const { importedFields: _imported, ...metadata } = entry.metadata;
  return {
    kind: entry.kind,
    scope: entry.scope,
    id: entry.id,
    title: entry.title,
    content: entry.content,
    path: entry.path,
    pinned: entry.pinned,
    metadata,
  };
}

/** All global entries of a harness, in canonical order. */
export async function globalEntries(harness: Harness): Promise<Entry[]> {
  const snapshot = await harness.snapshot();
  return snapshot.entries.filter((entry) => entry.scope === "global");
}

/** The global entry `id` of `kind` (an import writes global entries); throws when it is missing. */
export function globalEntry(harness: Harness, kind: EntryKind, id: string): Promise<Entry> {
  return harness.getEntryOrThrow({ kind, id, scope: "global" });
}

/** The revisions of the global entry `id` of `kind`, oldest first. */
export function globalHistory(harness: Harness, kind: EntryKind, id: string) {
  return harness.history({ entryId: id, kind, scope: "global" });
}
