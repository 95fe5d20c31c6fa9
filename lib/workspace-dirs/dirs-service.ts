// Over 500 lines, knowingly: the Files page's service (list, read, save, history, failures, retry,
// resolve, and a chat turn's save status and inline retry) is mostly views over the core's
// results; saving uses the core's commitChangeSet, retries the core's retryCommit.
import { FORMER_MEMBER } from "@/lib/audit";
import {
  describeError,
  FailedCommitsQuotaError,
  HarnessConflictError,
  HarnessValidationError,
  HarnessForbiddenError,
  HarnessNotFoundError,
  awaitsConfirmation,
  canWriteGlobal,
  commitChangeSet,
  resolveConflict,
  resolveDirLimitsFor,
  retryCommit,
  validateRelativePath,
  type Actor,
  type ChangeSet,
  type CommitRecord,
  type CommitRecordStatus,
  type DirCursor,
  type DirLimits,
  type FileConflict,
  type FileContent,
  type PersistentDir,
  type RetryCommitResult,
} from "@/lib/harness";
import {
  createCommitLog,
  DEFAULT_FAILED_COMMITS_MAX_BYTES,
  listDirCommits,
  listDirFiles,
  listDirPage,
  pageFiles,
  readDirCommitDetail,
  readDirFile,
  type DatabaseCommitLog,
  type DirCommitFileChange,
  type DirListingOptions,
  type DirListingPage,
} from "@/lib/sql-storage";
import { placeholders } from "@/lib/sql-storage/sql";
import {
  createAppDirs,
  type AppDir,
  type AppDirKind,
  type AppDirsOptions,
  type AppExtraBody,
  type AppSession,
} from "./app-dirs";

/** One dir as the Files page shows it to an actor. */
export interface VisibleDir {
  harnessDir: string;
  kind: AppDirKind;
  label: string;
  description: string;
  mode: "after-turn" | "manual" | "read-only";
  /** Whether this actor may write it (editor UI, server actions and agent turns agree). */
  writable: boolean;
  /** Whether commits are recorded in a history (database-backed dirs). */
  hasHistory: boolean;
}

/** One file in a dir listing. */
export interface DirFileView {
  /** Relative to the dir. */
  path: string;
  size: number;
  isText: boolean;
  updatedAt: string | null;
}

/** One page of a dir's files as the Files page browses them (see `listDirPage`). */
export type DirBrowsePage = DirListingPage<DirFileView> & {
  /** The dir's cursor the page was read at: the new-file editor sends it back on save. */
  cursor: DirCursor;
};

/** One file opened in the viewer. `text` is `null` for binary content. */
export interface OpenedFile {
  path: string;
  text: string | null;
  size: number;
  updatedAt: string | null;
  /** The dir's cursor when the file was read: the editor sends it back on save. */
  cursor: DirCursor;
}

/** One successful commit in a dir's history, with the author's name. */
export interface HistoryEntry {
  id: string;
  version: number;
  source: string;
  /** Where the commit came from outside the app (`mcp:<token> (<client>)`), or `null`. */
  via: string | null;
  actorName: string | null;
  created: string[];
  updated: string[];
  deleted: string[];
  createdAt: string;
}

/** One commit of a dir with each changed file's content before and after it. */
export interface CommitDetail {
  id: string;
  version: number;
  files: DirCommitFileChange[];
}

/** What restoring the files of an earlier commit came to. */
export type RestoreResult =
  | { status: "restored"; cursor: DirCursor; changed: boolean }
  | { status: "refused"; message: string };

/** What a save from the editor came to. */
export type SaveFileResult =
  | { status: "saved"; cursor: DirCursor; changed: boolean }
  | { status: "conflict"; commitId: string; message: string }
  | { status: "failed"; commitId: string | null; message: string };

/** A text-or-binary content as the UI shows it. */
export interface ContentView {
  text: string | null;
  bytes: number;
}

/** One failed or conflicting commit as the failures page shows it. */
export interface FailureView {
  id: string;
  harnessDir: string;
  dirLabel: string;
  status: CommitRecordStatus;
  resolution: string | null;
  error: { code: string; message: string } | null;
  attempts: number;
  createdAt: string;
  updatedAt: string;
  files: Array<{
    path: string;
    change: "created" | "updated" | "deleted";
    content: ContentView | null;
  }>;
  conflicts: Array<{
    path: string;
    reason: FileConflict["reason"];
    base: ContentView | null;
    ours: ContentView | null;
    theirs: ContentView | null;
    /** Text to start a hand merge from: diff3 markers, or ours. */
    mergeText: string | null;
  }>;
  /** Whether this actor may retry or resolve it. */
  canAct: boolean;
  /** An automatic retry is scheduled (a `failed` record nobody needs to act on yet). */
  retrying: boolean;
  /** When the next automatic attempt is due, if one is. */
  nextAttemptAt: string | null;
  /** The chat turn the change came from, when it came from one. */
  turnId: string | null;
}

/** A turn whose changes all landed (or that made none): nothing pending, refused or settled. */
export const EMPTY_TURN_SAVE_STATUS: Readonly<TurnSaveStatus> = {
  pending: 0,
  needsPerson: 0,
  awaitingConfirmation: 0,
  conflicts: 0,
  resolved: 0,
  keptTheirs: 0,
  discarded: 0,
  refusal: null,
  canRetry: true,
};

/** What became of a chat turn's changes, read live from the commit log. */
export interface TurnSaveStatus {
  /** Change sets kept and retried automatically (including ones still on the local spool). */
  pending: number;
  /** Change sets waiting for a person: conflicts, exhausted retries, interrupted turns. */
  needsPerson: number;
  /**
   * Change sets held because they copy text of the person's private memory into company
   * knowledge: they wait for the person to confirm or discard them (not in `needsPerson`).
   */
  awaitingConfirmation: number;
  /** Of `needsPerson`, the ones that clash with a newer change of the same file. */
  conflicts: number;
  /** Change sets applied by a retry or a person (keeping ours, or a merge edited by hand). */
  resolved: number;
  /** Conflicts a person settled by keeping the newer version of the clashing files instead. */
  keptTheirs: number;
  /** Change sets a person closed without applying them (Discard on the failures page). */
  discarded: number;
  /**
   * Why a change set waiting for a person was refused, in the words the dir gave (a full
   * history, a role changed since the turn began), or `null` when none was refused (conflicts say
   * so through `conflicts`).
   */
  refusal: string | null;
  /**
   * Whether this actor may retry the ones waiting for a person: the failures page's role rules
   * (their own memory; company knowledge only for editors and admins).
   */
  canRetry: boolean;
}

/**
 * What retrying a turn's failed saves from the chat came to, with the turn's status after it:
 * `settled` when nothing waits for a person any more (`saveStatus` says whether its changes were
 * applied or discarded), `conflict` when a file clashes again, `failed` when a store failed again.
 */
export type TurnRetryResult =
  | { status: "settled"; saveStatus: TurnSaveStatus }
  | { status: "conflict" | "failed"; message: string; saveStatus: TurnSaveStatus };

/**
 * A turn's change set held for confirmation, as the chat shows it: every file with its text before
 * and after (`null`: absent, or not text).
 */
export interface PendingChange {
  id: string;
  harnessDir: string;
  dirLabel: string;
  /** Why it was held, in plain words (which file holds text of which private file). */
  reason: string;
  files: Array<{
    path: string;
    change: "created" | "updated" | "deleted";
    before: string | null;
    after: string | null;
  }>;
}

/** What confirming or discarding a held change came to, with the turn's status after it. */
export type PendingChangeResult =
  | { status: "saved" | "discarded"; saveStatus: TurnSaveStatus }
  | { status: "conflict" | "failed"; message: string; saveStatus: TurnSaveStatus };

/** A person's settlement of a conflict: a side, or final text per conflicted path (`null` deletes). */
export type FailureResolution = "ours" | "theirs" | Record<string, string | null>;

/** What a retry or a resolution came to. */
export type RetryResult =
  | { status: "succeeded"; cursor: DirCursor; merged: boolean }
  | { status: "conflict"; message: string }
  | { status: "failed"; message: string };

const MAX_SAVE_ATTEMPTS = 3;

function contentView(content: FileContent | null): ContentView | null {
  if (content === null) return null;
  return typeof content === "string"
    ? { text: content, bytes: Buffer.byteLength(content, "utf8") }
    : { text: null, bytes: content.byteLength };
}

/** The commit log owners whose records `actor` sees: their own and their workspace's. */
function ownersOf(actor: Actor): string[] {
  return [`user:${actor.userId}`, `workspace:${actor.workspaceId}`];
}

/**
 * Stores a person's whole-file change to `dir` through the core's compare-and-swap loop: other
 * files moving is fine; a changed file moving is a conflict (never merged behind their back).
 */
function commitWholeFiles(
  dir: AppDir,
  change: {
    extraBody: AppExtraBody;
    changes: ChangeSet;
    base: Record<string, FileContent | null>;
    baseCursor: DirCursor;
  },
) {
  return commitChangeSet({
    dir: dir.definition,
    session: null,
    ...change,
    mergeText: false,
    maxAttempts: MAX_SAVE_ATTEMPTS,
  });
}

function retryResult(result: RetryCommitResult): RetryResult {
  if (result.status === "succeeded")
    return { status: "succeeded", cursor: result.cursor, merged: result.merged };
  if (result.status === "conflict") return { status: "conflict", message: result.message };
  return { status: "failed", message: result.error.message };
}

/** Options for `createPersistentDirsService`. */
export interface PersistentDirsServiceOptions extends AppDirsOptions {
  /** Default: the database commit log on `sql`'s database, bounded by `failedCommitsMaxBytes`. */
  commitLog?: DatabaseCommitLog;
  /**
   * What one owner's open commit records may hold before a refusal that would repeat (a dir
   * limit, a history quota) is no longer kept (decision 0030). `null`: no bound. Default
   * `DEFAULT_FAILED_COMMITS_MAX_BYTES` (256 MiB); the server reads `CAIRN_FAILED_COMMITS_MAX_BYTES`.
   * Ignored when `commitLog` is given.
   */
  failedCommitsMaxBytes?: number | null;
}

/** The app's persistent dirs, their commit log, and what the Files pages do with them. */
export interface PersistentDirsService {
  /** The app's dirs with UI metadata. */
  readonly appDirs: readonly AppDir[];
  /** The dir definitions to hand the runtime for a turn (`extraBody: { actor }`). */
  readonly dirs: PersistentDir<AppExtraBody, AppSession>[];
  /** Where failed and conflicting commits are kept. */
  readonly commitLog: DatabaseCommitLog;
  /** Every dir the actor can see, with whether they may write it. */
  listVisibleDirs(options: { actor: Actor }): VisibleDir[];
  /**
   * The limits a write of `actor`'s into the dir meets: its workspace's (Admin → Settings) within
   * the server's `CAIRN_DIR_MAX_*`, as a turn's commit checks them. The editor and the upload
   * panel show and check the same.
   */
  limitsFor(options: { actor: Actor; harnessDir: string }): Promise<DirLimits>;
  /** Throws `not_found:dir` for an unknown dir and `forbidden:dir` when the actor may not write it. */
  assertCanWrite(options: { actor: Actor; harnessDir: string }): AppDir;
  /** The files of a dir (no content) and the cursor they were read at. */
  listFiles(options: {
    actor: Actor;
    harnessDir: string;
  }): Promise<{ files: DirFileView[]; cursor: DirCursor }>;
  /**
   * One page of a dir's files: a folder's subfolders (with file counts) and its files, or the
   * files whose path contains every word of `filter`. A database-backed dir is listed in the
   * database, a page at a time; another is loaded and paged in memory. Visibility as
   * `listFiles`. Throws `validation:path` for a folder that is not a relative path.
   */
  browseFiles(
    options: { actor: Actor; harnessDir: string } & DirListingOptions,
  ): Promise<DirBrowsePage>;
  /** One file for the viewer, or `null` when it does not exist. */
  readFile(options: { actor: Actor; harnessDir: string; path: string }): Promise<OpenedFile | null>;
  /**
   * Saves one file edit (`content: null` deletes) through the dir's own store with
   * compare-and-swap. `baseCursor` and `baseContent` are what the editor loaded. When the dir
   * moved but this file did not, the edit is applied on top; when the file itself changed, nothing
   * is written and the edit is kept in the commit log as a conflict. A failing store keeps the
   * edit as a failed commit. Either way nothing is lost. `content` is text, or bytes for a
   * binary file (an uploaded original).
   */
  saveFile(options: {
    actor: Actor;
    harnessDir: string;
    path: string;
    content: FileContent | null;
    baseCursor: DirCursor;
    baseContent: string | null;
  }): Promise<SaveFileResult>;
  /** Successful commits of a dir, newest first. */
  listHistory(options: {
    actor: Actor;
    harnessDir: string;
    cursor?: string | null;
    limit?: number;
  }): Promise<{ commits: HistoryEntry[]; nextCursor: string | null }>;
  /** One commit of a dir with the files' content before and after, or `null` when not found. */
  readCommit(options: {
    actor: Actor;
    harnessDir: string;
    id: string;
  }): Promise<CommitDetail | null>;
  /**
   * Puts every file an earlier commit changed back to how that commit left it, as a new commit
   * (history is never rewritten). Needs write permission on the dir. Refused when a file's
   * content was not recorded (commits older than the content history) or is bytes.
   */
  restoreCommit(options: { actor: Actor; harnessDir: string; id: string }): Promise<RestoreResult>;
  /** Failed and conflicting commits the actor may see: their own memory's and their workspace's. */
  listFailures(options: {
    actor: Actor;
    status?: CommitRecordStatus | "open";
    cursor?: string;
    limit?: number;
  }): Promise<{ failures: FailureView[]; nextCursor: string | null }>;
  /** Applies a failed or conflicting commit again (three-way merging onto the current state). */
  retryFailure(options: { actor: Actor; id: string }): Promise<RetryResult>;
  /** Settles a conflict: keep ours, keep theirs, or give the merged text. */
  resolveFailure(options: {
    actor: Actor;
    id: string;
    resolution: FailureResolution;
  }): Promise<RetryResult>;
  /** Closes an open record without applying it (`discarded`); its changes stay in the history. */
  discardFailure(options: { actor: Actor; id: string }): Promise<void>;
  /** Failed records of the actor's being retried automatically (not listed as needing a person). */
  countRetrying(options: { actor: Actor }): Promise<number>;
  /**
   * The live save status of one of the actor's turns (`spooled` from the turn's own result:
   * changes the database has not seen yet).
   */
  turnSaveStatus(options: {
    actor: Actor;
    turnId: string;
    spooled: number;
  }): Promise<TurnSaveStatus>;
  /**
   * Retries, as `retryFailure` does, every change set of one of the actor's turns that waits for a
   * person (the chat's inline Retry). Someone else's turn reads as missing (`not_found:turn`); a
   * record the actor may not act on refuses the whole retry before anything is applied
   * (`forbidden:commit`). A record settled elsewhere meanwhile is skipped. A clash keeps the
   * record open as a conflict — nothing is lost — and says which files in plain words.
   */
  retryTurnSave(options: { actor: Actor; turnId: string }): Promise<TurnRetryResult>;
  /**
   * The change sets of one of the actor's turns held because they copy the actor's private memory
   * into company knowledge, with each file's text before and after. Only the person whose memory
   * it is sees them (they are owned by their memory); someone else's turn reads as missing.
   */
  turnPendingChanges(options: { actor: Actor; turnId: string }): Promise<PendingChange[]>;
  /**
   * Confirms a held change set of one of the actor's turns: commits it as a retry does (the role
   * is checked again now — company knowledge needs an editor or admin). A clash keeps it open as
   * a conflict, nothing lost. `not_found:commit` when it is not a held change of that turn.
   */
  confirmPendingChange(options: {
    actor: Actor;
    turnId: string;
    id: string;
  }): Promise<PendingChangeResult>;
  /** Discards a held change set of one of the actor's turns: nothing of it is written. */
  discardPendingChange(options: {
    actor: Actor;
    turnId: string;
    id: string;
  }): Promise<PendingChangeResult>;
}

/**
 * The server-side operations behind `/files` and `/files/failures`. Every method takes the
 * Actor (derived by the caller from the session) and checks visibility and write permission
 * itself, so an endpoint that forgets a check still cannot write; endpoints check too.
 */
export function createPersistentDirsService(
  options: PersistentDirsServiceOptions,
): PersistentDirsService {
  const { sql } = options;
  const appDirs = createAppDirs(options);
  const dirs = appDirs.map((dir) => dir.definition);
  const commitLog =
    options.commitLog ??
    createCommitLog({
      sql,
      maxOwnerBytes:
        options.failedCommitsMaxBytes === undefined
          ? DEFAULT_FAILED_COMMITS_MAX_BYTES
          : options.failedCommitsMaxBytes,
    });

  /** A dir's name for people ("My memory"), or its path when it is not one of the app's. */
  const dirLabelOf = (harnessDir: string): string =>
    appDirs.find((candidate) => candidate.harnessDir === harnessDir)?.label ?? harnessDir;

  const findDir = (harnessDir: string): AppDir => {
    const dir = appDirs.find((candidate) => candidate.harnessDir === harnessDir);
    if (!dir) {
      throw new HarnessNotFoundError({
        surface: "dir",
        message: `No persistent dir ${JSON.stringify(harnessDir)}.`,
        details: { harnessDir },
      });
    }
    return dir;
  };

  const assertCanWrite = ({ actor, harnessDir }: { actor: Actor; harnessDir: string }) => {
    const dir = findDir(harnessDir);
    if (dir.definition.commit === "read-only" || !dir.canWrite(actor)) {
      throw new HarnessForbiddenError({
        surface: "dir",
        message: `${dir.label} (${dir.harnessDir}) is read-only for your role.`,
        details: { harnessDir },
      });
    }
    return dir;
  };

  const isVisible = (actor: Actor, record: CommitRecord): boolean =>
    record.owner !== null && ownersOf(actor).includes(record.owner);
  const mayAct = (actor: Actor, record: CommitRecord): boolean =>
    record.owner === `user:${actor.userId}` ||
    (record.owner === `workspace:${actor.workspaceId}` && canWriteGlobal(actor));

  /** How `actor` retries or resolves `record`: a new commit of theirs with the record's session. */
  const commitRetry = (record: CommitRecord, actor: Actor, source: "retry" | "resolve") => ({
    id: record.id,
    dirs,
    commitLog,
    extraBody: { actor, source },
    session: (record.session ?? null) as AppSession,
  });

  /** Throws unless `actor` sees `record` and may retry or resolve it. */
  const assertMayAct = (actor: Actor, id: string, record: CommitRecord | null): CommitRecord => {
    // Someone else's record reads as missing: its existence is not the caller's business.
    if (!record || !isVisible(actor, record)) {
      throw new HarnessNotFoundError({
        surface: "commit",
        message: "That commit does not exist or is not yours to see.",
        details: { id },
      });
    }
    if (!mayAct(actor, record)) {
      throw new HarnessForbiddenError({
        surface: "commit",
        message: "Only editors and admins may retry or resolve commits to company knowledge.",
        details: { id },
      });
    }
    return record;
  };

  const visibleRecord = async (actor: Actor, id: string): Promise<CommitRecord> =>
    assertMayAct(actor, id, await commitLog.getCommit({ id }));

  /** Throws `not_found:turn` unless the turn is in one of the actor's chats. */
  const assertOwnTurn = async (actor: Actor, turnId: string): Promise<void> => {
    const turn = await sql.get(
      `SELECT t."id" FROM "Turn" t JOIN "Chat" c ON c."id" = t."chatId"
       WHERE t."id" = ? AND c."userId" = ? AND c."workspaceId" = ?`,
      [turnId, actor.userId, actor.workspaceId],
    );
    if (!turn) {
      throw new HarnessNotFoundError({
        surface: "turn",
        message: "That turn does not exist or is not yours.",
        details: { turnId },
      });
    }
  };

  /** A record waiting for a person: open, and not scheduled for an automatic retry. */
  const needsPerson = (record: CommitRecord): boolean =>
    record.status !== "resolved" && !(record.status === "failed" && record.nextAttemptAt !== null);
  /** Of those, the ones a Retry may apply: a held copy of private memory needs a Confirm. */
  const retryable = (record: CommitRecord): boolean =>
    needsPerson(record) && !awaitsConfirmation(record);

  /** The held change `id` of the actor's turn `turnId`, checked as the failures page checks. */
  const pendingRecord = async (actor: Actor, turnId: string, id: string) => {
    await assertOwnTurn(actor, turnId);
    const record = await commitLog.getCommit({ id });
    if (!record || record.turnId !== turnId || !awaitsConfirmation(record)) {
      throw new HarnessNotFoundError({
        surface: "commit",
        message:
          "That change is not waiting for your confirmation (it may have been settled already).",
        details: { id },
      });
    }
    return assertMayAct(actor, id, record);
  };

  const saveStatusOf = async (actor: Actor, turnId: string, spooled: number) => {
    const { commits } = await commitLog.listCommits({ turnId, limit: 20 });
    const status: TurnSaveStatus = { ...EMPTY_TURN_SAVE_STATUS };
    for (const record of commits) {
      if (record.status === "resolved") {
        if (record.resolution === "discarded") status.discarded += 1;
        else if (record.resolution === "theirs") status.keptTheirs += 1;
        else status.resolved += 1;
      } else if (!needsPerson(record)) status.pending += 1;
      else if (awaitsConfirmation(record)) status.awaitingConfirmation += 1;
      else {
        status.needsPerson += 1;
        if (record.status === "conflict") status.conflicts += 1;
        else if (record.status === "failed" && record.error)
          status.refusal ??= record.error.message;
        if (!mayAct(actor, record)) status.canRetry = false;
      }
    }
    // Spooled change sets that have no record yet are still on this server's disk.
    status.pending += Math.max(0, spooled - commits.length);
    status.canRetry &&= status.needsPerson > 0;
    return { status, commits };
  };

  const failureView = (actor: Actor, record: CommitRecord): FailureView => {
    return {
      id: record.id,
      harnessDir: record.harnessDir,
      dirLabel: dirLabelOf(record.harnessDir),
      status: record.status,
      resolution: record.resolution,
      error: record.error,
      attempts: record.attempts,
      createdAt: record.createdAt.toISOString(),
      updatedAt: record.updatedAt.toISOString(),
      files: [
        ...record.changes.created.map((file) => ({
          path: file.path,
          change: "created" as const,
          content: contentView(file.content),
        })),
        ...record.changes.updated.map((file) => ({
          path: file.path,
          change: "updated" as const,
          content: contentView(file.content),
        })),
        ...record.changes.deleted.map((path) => ({
          path,
          change: "deleted" as const,
          content: null,
        })),
      ],
      conflicts: record.conflicts.map((conflict) => ({
        path: conflict.path,
        reason: conflict.reason,
        base: contentView(conflict.base),
        ours: contentView(conflict.ours),
        theirs: contentView(conflict.theirs),
        mergeText:
          conflict.markers ??
          (typeof conflict.ours === "string"
            ? conflict.ours
            : typeof conflict.theirs === "string"
              ? conflict.theirs
              : null),
      })),
      canAct: record.status !== "resolved" && mayAct(actor, record),
      retrying: record.status === "failed" && record.nextAttemptAt !== null,
      nextAttemptAt: record.nextAttemptAt?.toISOString() ?? null,
      turnId: record.turnId,
    };
  };

  const listFiles: PersistentDirsService["listFiles"] = async ({ actor, harnessDir }) => {
    const dir = findDir(harnessDir);
    const dirKey = dir.dirKey(actor);
    if (dirKey !== null) {
      const listed = await listDirFiles({ sql, dirKey });
      return {
        cursor: listed.version,
        files: listed.files.map((file) => ({
          path: file.path,
          size: file.size,
          isText: file.isText,
          updatedAt: file.updatedAt.toISOString(),
        })),
      };
    }
    const loaded = await dir.definition.load({ extraBody: { actor }, session: null });
    return {
      cursor: loaded.cursor,
      files: Object.keys(loaded.files)
        .sort()
        .map((path) => {
          const content = loaded.files[path]!;
          const updatedAt = loaded.updatedAt?.[path];
          return {
            path,
            size: contentView(content)!.bytes,
            isText: typeof content === "string",
            updatedAt: updatedAt === undefined ? null : new Date(updatedAt).toISOString(),
          };
        }),
    };
  };

  return {
    appDirs,
    dirs,
    commitLog,
    assertCanWrite,

    listVisibleDirs({ actor }) {
      return appDirs.map((dir) => ({
        harnessDir: dir.harnessDir,
        kind: dir.kind,
        label: dir.label,
        description: dir.description,
        mode: dir.definition.commit ?? "after-turn",
        writable: dir.definition.commit !== "read-only" && dir.canWrite(actor),
        hasHistory: dir.dirKey(actor) !== null,
      }));
    },

    listFiles,

    limitsFor({ actor, harnessDir }) {
      return resolveDirLimitsFor({
        dir: findDir(harnessDir).definition,
        extraBody: { actor },
        session: null,
      });
    },

    async browseFiles({ actor, harnessDir, ...listing }) {
      const dir = findDir(harnessDir);
      const dirKey = dir.dirKey(actor);
      if (dirKey !== null) {
        const { version, files, ...page } = await listDirPage({ sql, dirKey, ...listing });
        return {
          ...page,
          cursor: version,
          files: files.map((file) => ({
            path: file.path,
            size: file.size,
            isText: file.isText,
            updatedAt: file.updatedAt.toISOString(),
          })),
        };
      }
      // A dir its definition loads whole (bundled docs): small by nature, paged in memory.
      const loaded = await listFiles({ actor, harnessDir });
      return { ...pageFiles(loaded.files, listing), cursor: loaded.cursor };
    },

    async readFile({ actor, harnessDir, path: rawPath }) {
      const dir = findDir(harnessDir);
      const path = validateRelativePath({ path: rawPath });
      const dirKey = dir.dirKey(actor);
      if (dirKey !== null) {
        const file = await readDirFile({ sql, dirKey, path });
        if (!file) return null;
        return {
          path,
          text: typeof file.content === "string" ? file.content : null,
          size: file.size,
          updatedAt: file.updatedAt.toISOString(),
          cursor: file.version,
        };
      }
      const loaded = await dir.definition.load({ extraBody: { actor }, session: null });
      if (!Object.hasOwn(loaded.files, path)) return null;
      const content = loaded.files[path]!;
      const updatedAt = loaded.updatedAt?.[path];
      return {
        path,
        text: typeof content === "string" ? content : null,
        size: contentView(content)!.bytes,
        updatedAt: updatedAt === undefined ? null : new Date(updatedAt).toISOString(),
        cursor: loaded.cursor,
      };
    },

    async saveFile({ actor, harnessDir, path: rawPath, content, baseCursor, baseContent }) {
      const dir = assertCanWrite({ actor, harnessDir });
      const path = validateRelativePath({ path: rawPath });
      const extraBody: AppExtraBody = { actor, source: "editor" };
      const changes: ChangeSet = { created: [], updated: [], deleted: [] };
      if (content === null) {
        if (baseContent !== null) changes.deleted.push(path);
      } else (baseContent === null ? changes.created : changes.updated).push({ path, content });
      const base = Object.create(null) as Record<string, FileContent | null>;
      base[path] = baseContent;
      const outcome = await commitWholeFiles(dir, { extraBody, changes, base, baseCursor });
      if (outcome.status === "stored")
        return { status: "saved", cursor: outcome.cursor, changed: true };
      if (outcome.status === "already-applied")
        return { status: "saved", cursor: outcome.cursor, changed: false };
      if (outcome.status === "conflict" && outcome.conflicts.length === 0) {
        return {
          status: "failed",
          commitId: null,
          message: `${dir.label} kept changing while saving; nothing was written. Try again.`,
        };
      }
      const conflicted = outcome.status === "conflict";
      const error = conflicted
        ? {
            code: "conflict:commit",
            message: `${path} was changed by someone else since you opened it (version ${String(baseCursor)}, now ${String(outcome.cursor)}). Your edit was not applied and nothing was lost: it is kept as a conflict on the Commit failures page.`,
          }
        : outcome.error;
      try {
        const record = await commitLog.appendCommit({
          // A refusal (a limit, a quota) would refuse the same edit again: kept only within the
          // bound on what the owner's Commit failures hold.
          bounded: outcome.status === "failed" && HarnessValidationError.isInstance(outcome.cause),
          commit: {
            harnessDir: dir.harnessDir,
            mode: dir.definition.commit ?? "after-turn",
            status: conflicted ? "conflict" : "failed",
            owner: dir.owner(actor),
            changes,
            baseCursor,
            base,
            extraBody,
            session: null,
            error,
            conflicts: conflicted ? outcome.conflicts : [],
            attempts: 1,
          },
        });
        return conflicted
          ? { status: "conflict", commitId: record.id, message: error.message }
          : {
              status: "failed",
              commitId: record.id,
              message: `Saving failed: ${error.message} Your edit was kept; retry it on the Commit failures page.`,
            };
      } catch (logError) {
        if (FailedCommitsQuotaError.isInstance(logError)) {
          return {
            status: "failed",
            commitId: null,
            message: `Saving failed: ${error.message} ${logError.message} Copy your text before leaving this page.`,
          };
        }
        return {
          status: "failed",
          commitId: null,
          message: `Saving failed and could not be recorded (${describeError(logError).message}). Copy your text before leaving this page.`,
        };
      }
    },

    async listHistory({ actor, harnessDir, cursor, limit }) {
      const dir = findDir(harnessDir);
      const dirKey = dir.dirKey(actor);
      if (dirKey === null) return { commits: [], nextCursor: null };
      const page = await listDirCommits({ sql, dirKey, cursor, limit });
      const actorIds = [
        ...new Set(page.commits.map((commit) => commit.actorId).filter((id) => id !== null)),
      ];
      const [users, erased] =
        actorIds.length === 0
          ? [[], []]
          : await Promise.all([
              sql.all<{ id: string; name: string }>(
                `SELECT "id", "name" FROM "User" WHERE "id" IN (${placeholders(actorIds.length)})`,
                actorIds,
              ),
              sql.all<{ userId: string }>(
                `SELECT "userId" FROM "ErasedPerson"
                 WHERE "workspaceId" = ? AND "userId" IN (${placeholders(actorIds.length)})`,
                [actor.workspaceId, ...actorIds],
              ),
            ]);
      const names = new Map(users.map((user) => [user.id, user.name]));
      for (const { userId } of erased) names.delete(userId);
      return {
        nextCursor: page.nextCursor,
        commits: page.commits.map((commit) => ({
          id: commit.id,
          version: commit.version,
          source: commit.source,
          via: commit.via,
          // Someone erased (or whose account is gone) keeps their commits, as "a former member".
          actorName: commit.actorId === null ? null : (names.get(commit.actorId) ?? FORMER_MEMBER),
          created: commit.created,
          updated: commit.updated,
          deleted: commit.deleted,
          createdAt: commit.createdAt.toISOString(),
        })),
      };
    },

    async readCommit({ actor, harnessDir, id }) {
      const dir = findDir(harnessDir);
      const dirKey = dir.dirKey(actor);
      if (dirKey === null) return null;
      const detail = await readDirCommitDetail({ sql, dirKey, id });
      return detail && { id: detail.id, version: detail.version, files: detail.files };
    },

    async restoreCommit({ actor, harnessDir, id }) {
      const dir = assertCanWrite({ actor, harnessDir });
      const dirKey = dir.dirKey(actor);
      const detail = dirKey === null ? null : await readDirCommitDetail({ sql, dirKey, id });
      if (!detail) {
        throw new HarnessNotFoundError({
          surface: "commit",
          message: "That commit is not in this dir's history.",
          details: { id },
        });
      }
      const compacted = detail.files.filter((file) => file.after.state === "compacted");
      if (compacted.length > 0) {
        return {
          status: "refused",
          message: `Version ${detail.version} cannot be restored: its content of ${compacted.map((file) => file.path).join(", ")} is no longer kept (versions older than the history's retention window are compacted; who changed which files, and when, is kept).`,
        };
      }
      const unrestorable = detail.files.filter(
        (file) => file.after.state === "unrecorded" || file.after.state === "binary",
      );
      if (unrestorable.length > 0) {
        return {
          status: "refused",
          message: `Version ${detail.version} cannot be restored: the content of ${unrestorable.map((file) => file.path).join(", ")} was not kept (binary, or saved before Cairn kept contents in the history).`,
        };
      }
      const extraBody: AppExtraBody = { actor, source: "restore" };
      // A restore is a new commit: the commit's files set back to their content after it, made
      // against the dir as it is now through the core's compare-and-swap loop. A file moving
      // between the read and the store is read again (up to MAX_SAVE_ATTEMPTS).
      for (let attempt = 0; attempt < MAX_SAVE_ATTEMPTS; attempt += 1) {
        const current = await dir.definition.load({ extraBody, session: null });
        const changes: ChangeSet = { created: [], updated: [], deleted: [] };
        const base = Object.create(null) as Record<string, FileContent | null>;
        for (const file of detail.files) {
          const now = Object.hasOwn(current.files, file.path) ? current.files[file.path]! : null;
          if (file.after.state === "text") {
            if (now === file.after.text) continue;
            (now === null ? changes.created : changes.updated).push({
              path: file.path,
              content: file.after.text,
            });
          } else if (now !== null) changes.deleted.push(file.path);
          else continue;
          base[file.path] = now;
        }
        if (changes.created.length + changes.updated.length + changes.deleted.length === 0) {
          return { status: "restored", cursor: current.cursor, changed: false };
        }
        const outcome = await commitWholeFiles(dir, {
          extraBody,
          changes,
          base,
          baseCursor: current.cursor,
        });
        if (outcome.status === "stored")
          return { status: "restored", cursor: outcome.cursor, changed: true };
        if (outcome.status === "already-applied")
          return { status: "restored", cursor: outcome.cursor, changed: false };
        if (outcome.status === "failed") {
          return {
            status: "refused",
            message: `Version ${detail.version} was not restored: ${outcome.error.message}`,
          };
        }
      }
      return {
        status: "refused",
        message: `${dir.label} kept changing while restoring; nothing was written. Try again.`,
      };
    },

    async listFailures({ actor, status = "open", cursor, limit }) {
      const page = await commitLog.listCommitsForOwners({
        owners: ownersOf(actor),
        status,
        // Open failures that retry by themselves are counted apart: nobody needs to act yet.
        ...(status === "open" ? { automaticRetry: "exclude" as const } : {}),
        cursor,
        limit,
      });
      return {
        failures: page.commits.map((record) => failureView(actor, record)),
        nextCursor: page.nextCursor,
      };
    },

    async retryFailure({ actor, id }) {
      const record = await visibleRecord(actor, id);
      return retryResult(await retryCommit(commitRetry(record, actor, "retry")));
    },

    async discardFailure({ actor, id }) {
      const record = await visibleRecord(actor, id);
      await commitLog.markResolved({ id: record.id, resolution: "discarded" });
    },

    async countRetrying({ actor }) {
      const owners = ownersOf(actor);
      const row = await sql.get<{ count: number }>(
        `SELECT COUNT(*) AS "count" FROM "DirCommitRecord"
         WHERE "owner" IN (${placeholders(owners.length)}) AND "status" = 'failed'
           AND "nextAttemptAt" IS NOT NULL`,
        owners,
      );
      return Number(row?.count ?? 0);
    },

    async turnSaveStatus({ actor, turnId, spooled }) {
      await assertOwnTurn(actor, turnId);
      return (await saveStatusOf(actor, turnId, spooled)).status;
    },

    async retryTurnSave({ actor, turnId }) {
      await assertOwnTurn(actor, turnId);
      const { commits } = await commitLog.listCommits({ turnId, limit: 20 });
      // Every record is checked before any is applied: a refusal changes nothing.
      const waiting = commits
        .filter(retryable)
        .map((record) => assertMayAct(actor, record.id, record));
      const clashed: string[] = [];
      const failed: string[] = [];
      for (const record of waiting) {
        let result: RetryCommitResult;
        try {
          result = await retryCommit(commitRetry(record, actor, "retry"));
        } catch (error) {
          // Applied or discarded elsewhere (another tab, the failures page) since it was read.
          if (HarnessConflictError.isInstance(error)) continue;
          throw error;
        }
        const label = dirLabelOf(record.harnessDir);
        if (result.status === "conflict") {
          const paths = result.record.conflicts.map((conflict) => conflict.path);
          clashed.push(paths.length > 0 ? `${paths.join(", ")} (${label})` : label);
        } else if (result.status === "failed") failed.push(`${label}: ${result.error.message}`);
      }
      const { status: saveStatus } = await saveStatusOf(actor, turnId, 0);
      if (clashed.length > 0) {
        return {
          status: "conflict",
          saveStatus,
          message: `Not saved: ${clashed.join("; ")} changed since this turn read it, in the same place. Nothing is lost — compare both versions and keep one on Commit failures.`,
        };
      }
      if (failed.length > 0) {
        return {
          status: "failed",
          saveStatus,
          message: `Saving failed again (${failed.join("; ")}). The changes are still kept; try again later or on Commit failures.`,
        };
      }
      return { status: "settled", saveStatus };
    },

    async turnPendingChanges({ actor, turnId }) {
      await assertOwnTurn(actor, turnId);
      const { commits } = await commitLog.listCommits({ turnId, limit: 20 });
      return commits
        .filter((record) => awaitsConfirmation(record) && isVisible(actor, record))
        .map((record) => {
          const text = (content: FileContent | null | undefined) =>
            typeof content === "string" ? content : null;
          const before = (path: string) => text(record.base[path]);
          return {
            id: record.id,
            harnessDir: record.harnessDir,
            dirLabel: dirLabelOf(record.harnessDir),
            reason: record.error?.message ?? "",
            files: [
              ...record.changes.created.map((file) => ({
                path: file.path,
                change: "created" as const,
                before: null,
                after: text(file.content),
              })),
              ...record.changes.updated.map((file) => ({
                path: file.path,
                change: "updated" as const,
                before: before(file.path),
                after: text(file.content),
              })),
              ...record.changes.deleted.map((path) => ({
                path,
                change: "deleted" as const,
                before: before(path),
                after: null,
              })),
            ],
          };
        });
    },

    async confirmPendingChange({ actor, turnId, id }) {
      const record = await pendingRecord(actor, turnId, id);
      const result = await retryCommit(commitRetry(record, actor, "retry"));
      const { status: saveStatus } = await saveStatusOf(actor, turnId, 0);
      if (result.status === "succeeded") return { status: "saved", saveStatus };
      if (result.status === "conflict") {
        return {
          status: "conflict",
          saveStatus,
          message: `Not saved: ${dirLabelOf(record.harnessDir)} changed in the same place since this turn read it. Nothing is lost — compare both versions and keep one on Commit failures.`,
        };
      }
      return {
        status: "failed",
        saveStatus,
        message: `Not saved: ${result.error.message} The change is still kept on Commit failures.`,
      };
    },

    async discardPendingChange({ actor, turnId, id }) {
      const record = await pendingRecord(actor, turnId, id);
      await commitLog.markResolved({ id: record.id, resolution: "discarded" });
      return { status: "discarded", saveStatus: (await saveStatusOf(actor, turnId, 0)).status };
    },

    async resolveFailure({ actor, id, resolution }) {
      const record = await visibleRecord(actor, id);
      return retryResult(
        await resolveConflict({ ...commitRetry(record, actor, "resolve"), resolution }),
      );
    },
  };
}
