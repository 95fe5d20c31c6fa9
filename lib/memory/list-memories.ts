import "server-only";
import { canWriteGlobal, type Actor, type Entry, type Revision } from "@/lib/harness";
import { hasChats } from "@/lib/chat/queries";
import { harnessFor } from "@/lib/harness-for-actor";
import { getPersistentDirs, USER_DIR, type HistoryEntry } from "@/lib/workspace-dirs";
import {
  memberNames,
  ownChatTitles,
  ownLocalMemoryKeys,
  ownTurnAt,
  refinementsByHarnessVersion,
  type RefinementRef,
} from "./queries";

/**
 * "What Cairn remembers about me": the person's memory files and the memory entries of the
 * harness they can see (their own chats' local ones and the workspace's global ones), each
 * with where it came from. Every read goes through the same services the Files and Harness
 * pages use, so visibility is decided there, not here.
 */

/** Where a memory (or one change of it) came from, in words, with a link when there is one. */
export interface MemoryOrigin {
  /** Who or what wrote it: "A chat turn", "A refinement", "You", a member's name, … */
  label: string;
  /** The chat's title or the refinement's summary. */
  detail: string | null;
  /** The chat, or the refinement's page. */
  href: string | null;
  /** Where the change came from outside the app (an access token), in words. */
  via: string | null;
  /** ISO 8601 UTC. */
  at: string;
}

/** One memory entry of the harness. */
export interface MemoryEntryItem {
  kind: "entry";
  /** Stable key for lists. */
  key: string;
  id: string;
  scope: "local" | "global";
  chatId: string | null;
  chatTitle: string | null;
  title: string;
  content: string;
  version: number;
  updatedAt: string;
  /** Whether this actor may edit and delete it (local: own chat; global: editor or admin). */
  editable: boolean;
  /** Who wrote the first version. */
  origin: MemoryOrigin | null;
  /** Who made the latest change, when that is not the first version. */
  lastChange: MemoryOrigin | null;
}

/** One file of the person's memory dir. */
export interface MemoryFileItem {
  kind: "file";
  key: string;
  path: string;
  /** `null` for binary files (shown, not editable here). */
  text: string | null;
  size: number;
  updatedAt: string | null;
  /** The dir's cursor when the file was read: sent back on save. */
  cursor: string | number;
  /** The latest change that touched the file. */
  lastChange: MemoryOrigin | null;
}

export interface Memories {
  /** `/persistent/user`, as the agent sees it. */
  harnessDir: string;
  files: MemoryFileItem[];
  entries: MemoryEntryItem[];
  /** Whether this actor may edit global memory entries. */
  canWriteGlobal: boolean;
  /** Whether the actor has any chat (local memories live in chats). */
  hasChats: boolean;
}

/**
 * Upper bounds that keep the page fast whatever the number of chats: the workspace's latest
 * global memories, the latest local memories across all of the person's chats, files. The Files
 * and Harness pages show everything.
 */
const MAX_GLOBAL_ENTRIES = 200;
const MAX_LOCAL_ENTRIES = 200;
const MAX_FILES = 100;
const HISTORY_COMMITS = 100;

function viaInWords(via: string | null | undefined): string | null {
  if (!via) return null;
  return via.startsWith("mcp:") ? `an access token (${via.slice(4)})` : via;
}

/** Everything the Memory page lists for `actor`. */
export async function listMemories(actor: Actor): Promise<Memories> {
  const [files, entries, anyChat] = await Promise.all([
    listMemoryFiles(actor),
    listMemoryEntries(actor),
    hasChats(actor),
  ]);
  return {
    harnessDir: USER_DIR,
    files,
    entries,
    canWriteGlobal: canWriteGlobal(actor),
    hasChats: anyChat,
  };
}

async function listMemoryFiles(actor: Actor): Promise<MemoryFileItem[]> {
  const service = getPersistentDirs();
  const [listing, history] = await Promise.all([
    service.listFiles({ actor, harnessDir: USER_DIR }),
    service.listHistory({ actor, harnessDir: USER_DIR, limit: HISTORY_COMMITS }),
  ]);
  const files = listing.files.slice(0, MAX_FILES);
  const opened = await Promise.all(
    files.map((file) => service.readFile({ actor, harnessDir: USER_DIR, path: file.path })),
  );
  const lastCommitOf = (path: string): HistoryEntry | undefined =>
    history.commits.find(
      (commit) => commit.created.includes(path) || commit.updated.includes(path),
    );
  const origins = new Map<string, Promise<MemoryOrigin>>();
  const originOf = (commit: HistoryEntry) => {
    let origin = origins.get(commit.id);
    if (!origin) {
      origin = commitOrigin(actor, commit);
      origins.set(commit.id, origin);
    }
    return origin;
  };
  return Promise.all(
    files.map(async (file, index): Promise<MemoryFileItem> => {
      const commit = lastCommitOf(file.path);
      const text = opened[index]?.text ?? null;
      return {
        kind: "file",
        key: `file:${file.path}`,
        path: file.path,
        text: file.isText ? text : null,
        size: file.size,
        updatedAt: file.updatedAt,
        cursor: opened[index]?.cursor ?? listing.cursor,
        lastChange: commit ? await originOf(commit) : null,
      };
    }),
  );
}

async function commitOrigin(actor: Actor, commit: HistoryEntry): Promise<MemoryOrigin> {
  const base = { via: viaInWords(commit.via), at: commit.createdAt };
  switch (commit.source) {
    case "turn": {
      const turn = await ownTurnAt(actor, new Date(commit.createdAt));
      return {
        ...base,
        label: "A chat turn",
        detail: turn?.chatTitle ?? null,
        href: turn ? `/chat/${turn.chatId}` : null,
      };
    }
    case "editor":
      return { ...base, label: "You, by hand", detail: null, href: null };
    case "mcp":
      return { ...base, label: "A tool outside Cairn", detail: null, href: null };
    case "retry":
      return { ...base, label: "A retried save", detail: null, href: "/files/failures" };
    case "resolve":
      return { ...base, label: "A resolved conflict", detail: null, href: "/files/failures" };
    default:
      return { ...base, label: commit.actorName ?? "Someone", detail: null, href: null };
  }
}

/**
 * The workspace's latest global memories and the latest local memories of the person's own
 * chats. The local ones are found in one query joined on the chat's owner (not one query per
 * chat, nor an `IN` list of every chat id: issue 31), then read through the harness of their
 * chat, like every other read.
 */
async function listMemoryEntries(actor: Actor): Promise<MemoryEntryItem[]> {
  const [globalHarness, localKeys] = await Promise.all([
    harnessFor(actor, null),
    ownLocalMemoryKeys(actor, MAX_LOCAL_ENTRIES),
  ]);
  const idsByChat = new Map<string, string[]>();
  for (const key of localKeys)
    idsByChat.set(key.chatId, [...(idsByChat.get(key.chatId) ?? []), key.id]);
  const globalListed = globalHarness
    .listEntries({ kind: "memory", scope: "global", limit: MAX_GLOBAL_ENTRIES })
    .then((page) =>
      Promise.all(
        page.items.map(async (entry) => ({
          entry,
          history: await globalHarness.history({
            entryId: entry.id,
            kind: "memory",
            scope: "global",
          }),
        })),
      ),
    );
  const localListed = [...idsByChat].map(async ([chatId, ids]) => {
    const harness = await harnessFor(actor, chatId);
    const read = await Promise.all(
      ids.map(async (id) => {
        const [entry, history] = await Promise.all([
          harness.getEntry({ kind: "memory", id, scope: "local" }),
          harness.history({ entryId: id, kind: "memory", scope: "local" }),
        ]);
        return entry ? [{ entry, history }] : [];
      }),
    );
    return read.flat();
  });
  const listed = await Promise.all([globalListed, ...localListed]);
  const items = listed.flat();

  // One round of lookups for every revision named below.
  const named: Revision[] = [];
  for (const { history } of items) {
    if (history[0]) named.push(history[0]);
    if (history.length > 1) named.push(history.at(-1)!);
  }
  const [chatTitles, refinements, names] = await Promise.all([
    ownChatTitles(actor, [
      ...idsByChat.keys(),
      ...named.flatMap((revision) => (revision.chatId ? [revision.chatId] : [])),
    ]),
    refinementsByHarnessVersion(
      actor,
      named
        .filter((revision) => revision.cause === "refinement" || revision.cause === "rollback")
        .map((revision) => revision.harnessVersion),
    ),
    memberNames(
      actor,
      named.map((revision) => revision.actorId),
    ),
  ]);
  const context: OriginContext = { actor, chatTitles, refinements, names };

  const result = await Promise.all(
    items.map(async ({ entry, history }): Promise<MemoryEntryItem> => {
      const first = history[0];
      const last = history.length > 1 ? history.at(-1) : undefined;
      return {
        kind: "entry",
        key: `entry:${entry.scope}:${entry.chatId ?? ""}:${entry.id}`,
        id: entry.id,
        scope: entry.scope,
        chatId: entry.chatId,
        chatTitle: entry.chatId ? (chatTitles.get(entry.chatId) ?? null) : null,
        title: entry.title,
        content: entry.content,
        version: entry.version,
        updatedAt: entry.updatedAt,
        editable: entryEditable(actor, entry),
        origin: first ? await revisionOrigin(context, first) : null,
        lastChange: last ? await revisionOrigin(context, last) : null,
      };
    }),
  );
  return result.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
}

function entryEditable(actor: Actor, entry: Entry): boolean {
  return entry.scope === "local" || canWriteGlobal(actor);
}

interface OriginContext {
  actor: Actor;
  chatTitles: Map<string, string>;
  refinements: Map<number, RefinementRef>;
  names: Map<string, string>;
}

async function revisionOrigin(context: OriginContext, revision: Revision): Promise<MemoryOrigin> {
  const { actor } = context;
  const base = { via: viaInWords(revision.via), at: revision.createdAt };
  const who =
    revision.actorId === actor.userId
      ? "You"
      : (context.names.get(revision.actorId) ?? "A former member");
  switch (revision.cause) {
    case "refinement":
    case "rollback": {
      const refinement = context.refinements.get(revision.harnessVersion);
      return {
        ...base,
        label: revision.cause === "rollback" ? "A rollback" : "A refinement",
        detail: refinement?.summary || null,
        href: refinement ? `/refinements/${refinement.id}` : null,
      };
    }
    case "agent": {
      if (revision.chatId) {
        const title = context.chatTitles.get(revision.chatId);
        return {
          ...base,
          label: "A chat turn",
          detail: title ?? null,
          href: title === undefined ? null : `/chat/${revision.chatId}`,
        };
      }
      // A global entry written by a turn: the chat is the actor's turn running at the time.
      const turn =
        revision.actorId === actor.userId
          ? await ownTurnAt(actor, new Date(revision.createdAt))
          : null;
      return {
        ...base,
        label: revision.actorId === actor.userId ? "A chat turn" : `A chat turn of ${who}`,
        detail: turn?.chatTitle ?? null,
        href: turn ? `/chat/${turn.chatId}` : null,
      };
    }
    case "import":
      return { ...base, label: "An import", detail: null, href: null };
    default:
      return { ...base, label: who, detail: null, href: null };
  }
}
