import type { LanguageModel, UIMessage } from "ai";
import {
  createHarness,
  definePersistentDirs,
  fileMapFromEntries,
  memory,
  retryCommit,
  streamHarness,
  type Actor,
  type ChangeSet,
  type CommitLog,
  type Harness,
  type HarnessDefinition,
  type HarnessStoragePort,
  type HostFileContent,
  type LoadResult,
  type PersistentDir,
  type RetryCommitResult,
  type StoreResult,
  type TurnResult,
} from "@/lib/harness";

/** The host's own storage: folders of files, each with a version for compare-and-swap. */
export interface FolderStorage {
  load(folder: string): Promise<LoadResult>;
  /** Applies `changes` only if `folder` is still at `version`; all or nothing. */
  apply(options: { folder: string; version: number; changes: ChangeSet }): Promise<StoreResult>;
}

/** A storage in memory; a real host would put a database or an object store behind it. */
export function createFolderStorage(): FolderStorage & {
  files(folder: string): Record<string, string | Uint8Array>;
} {
  const folders = new Map<string, { version: number; files: Map<string, string | Uint8Array> }>();
  const folderOf = (name: string) => {
    const folder = folders.get(name) ?? { version: 0, files: new Map() };
    folders.set(name, folder);
    return folder;
  };
  return {
    async load(name) {
      const folder = folderOf(name);
      return { files: fileMapFromEntries(folder.files), cursor: folder.version };
    },
    async apply({ folder: name, version, changes }) {
      const folder = folderOf(name);
      if (folder.version !== version) {
        return { status: "conflict", currentCursor: folder.version, message: "folder moved" };
      }
      for (const file of [...changes.created, ...changes.updated])
        folder.files.set(file.path, file.content);
      for (const path of changes.deleted) folder.files.delete(path);
      folder.version += 1;
      return { status: "stored", cursor: folder.version };
    },
    files: (name) => Object.fromEntries(folderOf(name).files),
  };
}

/** Who is signed in, from the host's own session — never from what the request body says. */
export interface HostUser {
  id: string;
  teamId: string;
  isTeamEditor: boolean;
}

export interface Extra {
  user: HostUser;
}
export interface Chat {
  chatId: string;
}

/** The core's actor for a host user: the team is the workspace; its editors may write global entries. */
export function actorOf(user: HostUser): Actor {
  return {
    userId: user.id,
    workspaceId: user.teamId,
    role: user.isTeamEditor ? "editor" : "member",
  };
}

/** The harness store as `user` sees it from `chat`: the team's global entries and the chat's own. */
export function hostStore(options: {
  storage: HarnessStoragePort;
  user: HostUser;
  chat: Chat;
}): Harness {
  return createHarness({
    storage: options.storage,
    actor: actorOf(options.user),
    chatId: options.chat.chatId,
  });
}

/**
 * Host code keeping a lesson with the store's typed calls (the continual-harness design's
 * `create_memory` / `update_memory`): a memory of this chat, then a correction whose reason its
 * revision records. Returns the compact overview.
 */
export async function recordBuildLesson(store: Harness): Promise<string> {
  const lesson = await store.createMemory({
    title: "Project-X build steps",
    content: "Use `make` after installing dependencies.",
    path: "project-x/build",
  });
  await store.updateMemory({
    id: lesson.id,
    expectedVersion: lesson.version,
    content: "Run `make clean` before `make` to avoid stale artifacts.",
    reason: "Observed repeated build failures",
  });
  return store.overview({ limit: 5 });
}

/** One dir backed by one folder of the host's storage. */
function folderDir(
  storage: FolderStorage,
  harnessDir: string,
  folder: (extra: Extra) => string,
  options: Partial<PersistentDir<Extra, Chat>> = {},
): PersistentDir<Extra, Chat> {
  return {
    harnessDir,
    load: ({ extraBody }) => storage.load(folder(extraBody)),
    store: ({ extraBody, changes, cursor }) =>
      storage.apply({ folder: folder(extraBody), version: Number(cursor), changes }),
    ...options,
  };
}

/**
 * The host's harness: the user's memory (saved after each turn), the team's handbook (only
 * editors may write, decided per turn from the host's auth), an uploads dir the host
 * stages files into and commits itself, and the harness store (its entries are in the prompt).
 */
export function createHostHarness(options: {
  model: LanguageModel;
  storage: FolderStorage;
  /** Where harness entries live; a real host implements the port on its database. */
  harnessStorage: HarnessStoragePort;
  commitLog: CommitLog;
  /** Where the host's alerting goes; here, a list. */
  alerts: string[];
}): HarnessDefinition<Extra, Chat> {
  const { storage } = options;
  return {
    model: () => options.model,
    instructions: "You are the assistant of a small team. Keep what you learn in memory.",
    persistentDirs: definePersistentDirs<Extra, Chat>({
      dirs: [
        memory<Extra, Chat>(
          folderDir(storage, "/persistent/user", ({ user }) => `users/${user.id}`),
        ),
        folderDir(storage, "/persistent/handbook", ({ user }) => `teams/${user.teamId}`, {
          canWrite: ({ extraBody }) => extraBody.user.isTeamEditor,
        }),
        folderDir(storage, "/persistent/uploads", ({ user }) => `uploads/${user.id}`, {
          commit: "manual",
        }),
      ],
    }),
    store: ({ extraBody, session }) =>
      hostStore({ storage: options.harnessStorage, user: extraBody.user, chat: session }),
    commitLog: options.commitLog,
    // Host-facing only: the model never sees a failed commit.
    onPersistenceError: ({ commit, record, extraBody }) => {
      options.alerts.push(
        `${commit.status} commit of ${commit.harnessDir} for ${extraBody.user.id}: ${commit.error?.message} (record ${record?.id})`,
      );
    },
  };
}

/**
 * One chat turn with an upload: stages the file in the manual uploads dir before the model
 * starts (so the model sees it), streams the answer, then commits the upload. A route handler
 * would return `turn.toUIMessageStreamResponse()` instead of reading the stream itself.
 */
export async function chatWithUpload(options: {
  harness: HarnessDefinition<Extra, Chat>;
  user: HostUser;
  chat: Chat;
  messages: UIMessage[];
  upload: { name: string; content: HostFileContent };
}): Promise<{ result: TurnResult; uploadSaved: boolean }> {
  const turn = streamHarness({
    harness: options.harness,
    messages: options.messages,
    session: options.chat,
    extraBody: { user: options.user },
  });
  await turn.files.write(`/persistent/uploads/${options.upload.name}`, options.upload.content);
  const reader = turn.toUIMessageStream().getReader();
  while (!(await reader.read()).done);
  const result = await turn.finished;
  if (result.status !== "completed") return { result, uploadSaved: false };
  const manual = await result.commitManual();
  return { result, uploadSaved: manual.status === "succeeded" };
}

/** What a host's retry job does with the commits that failed: apply them again. */
export async function retryFailedCommits(options: {
  harness: HarnessDefinition<Extra, Chat>;
  commitLog: CommitLog;
}): Promise<RetryCommitResult[]> {
  const { commits } = await options.commitLog.listCommits({ status: "open" });
  const results: RetryCommitResult[] = [];
  for (const record of commits) {
    results.push(
      await retryCommit({
        id: record.id,
        dirs: options.harness.persistentDirs ?? [],
        commitLog: options.commitLog,
      }),
    );
  }
  return results;
}
