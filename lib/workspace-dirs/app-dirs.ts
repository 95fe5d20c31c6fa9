import path from "node:path";

import { currentActor } from "@/lib/accounts";
import {
  canWriteGlobal,
  definePersistentDirs,
  HarnessForbiddenError,
  isRole,
  localDir,
  memory,
  resolveDirLimits,
  type Actor,
  type DirLimits,
  type PersistentDir,
} from "@/lib/harness";
import {
  createDirBacking,
  DEFAULT_DIR_HISTORY_SETTINGS,
  type DirCommitSource,
  type DirHistorySettings,
} from "@/lib/sql-storage";
import { indexDirCommit } from "@/lib/search/index-store";
import type { Sql } from "@/lib/sql-storage/sql";
import { createSuggestion, dirProposalOf } from "@/lib/review/suggestion-store";
import { auditViaOfDirCommit, recordAuditEvent } from "@/lib/audit";
import { withFaultInjection, type FaultInjectionSetting } from "./fault-injection";
import type { WorkspaceDirLimitsCache } from "./workspace-dir-limits";
import { workspaceDirLimits, type WorkspaceDirLimitKind } from "@/lib/workspace-settings";

/**
 * The per-turn host data the app hands the runtime: the Actor, built on the server from the
 * auth session (never from request bodies or model output), and what kind of commit this is.
 */
export interface AppExtraBody {
  actor: Actor;
  /** Recorded in the dir's history. Default `"turn"`. */
  source?: DirCommitSource;
  /** Where the commit came from outside the app (`mcp:<token> (<client>)`), for the history. */
  via?: string;
}

/** The chat a turn belongs to, or `null` outside a chat (editor saves, retries). */
export type AppSession = { chatId: string } | null;

/** The app's kinds of dir. */
export type AppDirKind = "user" | "company" | "docs";

export const USER_DIR = "/persistent/user";
export const COMPANY_DIR = "/persistent/company";
export const DOCS_DIR = "/persistent/docs";

/** One of the app's dirs: the core definition plus what the UI and the server checks need. */
export interface AppDir {
  kind: AppDirKind;
  harnessDir: string;
  label: string;
  description: string;
  definition: PersistentDir<AppExtraBody, AppSession>;
  /** Row key of a database-backed dir for this actor; `null` for the local docs folder. */
  dirKey(actor: Actor): string | null;
  /** Owner key recorded on failed commits. */
  owner(actor: Actor): string;
  /** Whether this actor may write (the same rule the turn's `canWrite` applies). */
  canWrite(actor: Actor): boolean;
}

/** The Actor in `extraBody`, or `null` when it is missing or malformed (callers fail closed). */
export function actorOf(extraBody: unknown): Actor | null {
  const actor = (extraBody as { actor?: Partial<Actor> } | null | undefined)?.actor;
  if (
    !actor ||
    typeof actor.userId !== "string" ||
    actor.userId === "" ||
    typeof actor.workspaceId !== "string" ||
    actor.workspaceId === "" ||
    !isRole(actor.role)
  ) {
    return null;
  }
  return { userId: actor.userId, workspaceId: actor.workspaceId, role: actor.role };
}

function actorOrThrow(extraBody: unknown): Actor {
  const actor = actorOf(extraBody);
  if (!actor)
    throw new Error("extraBody carries no Actor: persistent dirs need the signed-in user.");
  return actor;
}

export const userDirKey = (actor: Pick<Actor, "userId">) => `user:${actor.userId}`;
export const companyDirKey = (actor: Pick<Actor, "workspaceId">) => `company:${actor.workspaceId}`;
export const userOwner = (actor: Pick<Actor, "userId">) => `user:${actor.userId}`;
export const workspaceOwner = (actor: Pick<Actor, "workspaceId">) =>
  `workspace:${actor.workspaceId}`;
/** The shared history quota a commit by `actor` counts against: their workspace's. */
export const historyQuotaKey = (actor: Pick<Actor, "workspaceId">) =>
  `workspace:${actor.workspaceId}`;

const COMPANY_PREFIX = "company:";

/** A company-knowledge commit as an audit event (`company.committed`), in the commit's transaction. */
async function auditCompanyCommit({
  tx,
  commit,
}: Parameters<NonNullable<Parameters<typeof createDirBacking>[0]["onDirCommitted"]>>[0]) {
  if (!commit.dirKey.startsWith(COMPANY_PREFIX)) return;
  const paths = (list: readonly { path: string }[]) => list.map((file) => file.path).slice(0, 50);
  await recordAuditEvent(tx, {
    workspaceId: commit.dirKey.slice(COMPANY_PREFIX.length),
    actorId: commit.actorId,
    kind: "company.committed",
    target: { type: "dir", id: commit.dirKey },
    details: {
      version: commit.version,
      source: commit.source,
      created: paths(commit.created),
      updated: paths(commit.updated),
      deleted: commit.deleted.slice(0, 50),
      files: commit.created.length + commit.updated.length + commit.deleted.length,
    },
    via: auditViaOfDirCommit(commit),
    at: commit.at,
  });
}

/** Options for `createAppDirs`. */
export interface AppDirsOptions {
  /** The database the dirs' rows live in. */
  sql: Sql;
  /** A folder mounted read-only at `/persistent/docs` (`CAIRN_COMPANY_DOCS_DIR`); absent: no docs dir. */
  companyDocsDir?: string | null;
  /**
   * Bounds on the dirs' history (decision 0030): per dir, per workspace, and the retention
   * window compacted before a commit is refused. Default `DEFAULT_DIR_HISTORY_SETTINGS`; the
   * server's come from its configuration (lib/config).
   */
  history?: DirHistorySettings;
  /**
   * Limits of each database-backed dir (memory and company knowledge): files, bytes, bytes per
   * file. Default `DEFAULT_DIR_LIMITS`; the server's come from `CAIRN_DIR_MAX_FILES`,
   * `CAIRN_DIR_MAX_BYTES` and `CAIRN_DIR_MAX_FILE_BYTES`.
   */
  limits?: Partial<DirLimits>;
  /**
   * Each workspace's own limits (Admin → Settings, decision 0062), read per turn for the Actor's
   * workspace: company knowledge's for the company dir, the memory ones for the person's memory
   * while they work there. Each is held to `limits` (the server's), the ceiling; an unset one is
   * the server's. Absent: `limits` for every workspace.
   */
  workspaceLimits?: WorkspaceDirLimitsCache;
  /** Testing only (`CAIRN_FAULT_INJECTION`): make first store attempts fail. */
  faultInjection?: FaultInjectionSetting | null;
  /** Where fault injection remembers failed change sets. Default: one set per process. */
  faultInjectionSeen?: Set<string>;
}

/**
 * The app's persistent dirs:
 * - `/persistent/user` — each user's own memory (`memory()`), rows keyed `user:<userId>`,
 *   writable by that user (the key comes from the Actor, so nobody reaches another's dir);
 * - `/persistent/company` — the workspace's company knowledge, rows keyed
 *   `company:<workspaceId>`, writable only when the Actor's role is editor or admin;
 * - `/persistent/docs` — optional, a local folder (`CAIRN_COMPANY_DOCS_DIR`), read-only.
 */
export function createAppDirs(options: AppDirsOptions): AppDir[] {
  const { sql } = options;
  const serverLimits = resolveDirLimits({ limits: options.limits });
  const { workspaceLimits } = options;
  // The dir's limits for a turn: its workspace's, within the server's. The memory dir, which
  // belongs to no workspace, takes those of the workspace the Actor works in (as its history
  // quota does, `historyQuotaKey`).
  const limitsOf = (
    kind: WorkspaceDirLimitKind,
  ): PersistentDir<AppExtraBody, AppSession>["limits"] =>
    workspaceLimits
      ? async ({ extraBody }) =>
          workspaceDirLimits({
            saved: await workspaceLimits.get(actorOrThrow(extraBody).workspaceId),
            kind,
            server: serverLimits,
          })
      : serverLimits;
  const source = (extraBody: AppExtraBody): DirCommitSource => extraBody.source ?? "turn";
  const actorId = (extraBody: AppExtraBody) => actorOf(extraBody)?.userId ?? null;
  const databaseDir = (dirKey: (actor: Actor) => string) => {
    const keyOf = (extraBody: AppExtraBody) => dirKey(actorOrThrow(extraBody));
    const backing = createDirBacking<AppExtraBody, AppSession>({
      sql,
      dirKey: ({ extraBody }) => keyOf(extraBody),
      actorId,
      source,
      via: (extraBody) => extraBody.via ?? null,
      // Memory and company knowledge are searchable from the moment they commit (lib/search):
      // the index is written in the commit's own transaction.
      // Company knowledge's commits go into the audit log, in the same transaction too (one
      // statement; a turn that commits only memory writes none).
      onDirCommitted: async (committed) => {
        await indexDirCommit(committed);
        await auditCompanyCommit(committed);
      },
      // Both dirs' history counts against the workspace the Actor commits in: a person's own
      // memory, which belongs to no workspace, against the one they were working in.
      history: {
        ...(options.history ?? DEFAULT_DIR_HISTORY_SETTINGS),
        quotaKey: (extraBody) => historyQuotaKey(actorOrThrow(extraBody)),
      },
    });
    return {
      load: backing.load,
      // Lazy: a turn reads the dir's index and only the bodies it opens (decision 0054).
      loadIndex: backing.loadIndex,
      readBodies: backing.readBodies,
      store: withFaultInjection({
        store: backing.store,
        dirKey: keyOf,
        setting: options.faultInjection ?? null,
        seen: options.faultInjectionSeen,
      }),
    };
  };

  const userDir: AppDir = {
    kind: "user",
    harnessDir: USER_DIR,
    label: "My memory",
    description: "Your own memory: what the agent keeps about you across chats. Only you see it.",
    definition: memory<AppExtraBody, AppSession>({
      harnessDir: USER_DIR,
      commit: "after-turn",
      ...databaseDir(userDirKey),
      limits: limitsOf("memory"),
      canWrite: ({ extraBody }) => actorOf(extraBody) !== null,
      owner: ({ extraBody }) => userOwner(actorOrThrow(extraBody)),
      // Its text does not reach company knowledge without the person's confirmation (0031).
      audience: "private",
    }),
    dirKey: userDirKey,
    owner: userOwner,
    canWrite: () => true,
  };

  // The company dir's store checks the role again, read from the database at commit time: a
  // turn that started as an editor but whose editor was demoted (or removed) meanwhile is
  // refused, and the commit is kept as a failed commit like any other refused one.
  const company = databaseDir(companyDirKey);
  const companyStore: typeof company.store = async (storeOptions) => {
    const actor = actorOrThrow(storeOptions.extraBody);
    const now = await currentActor(sql, actor);
    if (!now || !canWriteGlobal(now)) {
      throw new HarnessForbiddenError({
        surface: "dir",
        message: now
          ? `Company knowledge was not changed: your role is now ${now.role}, and only editors and admins may change it.`
          : "Company knowledge was not changed: you are no longer a member of this workspace.",
        details: { harnessDir: COMPANY_DIR, role: now?.role ?? null },
      });
    }
    return company.store(storeOptions);
  };

  const companyDir: AppDir = {
    kind: "company",
    harnessDir: COMPANY_DIR,
    label: "Company knowledge",
    description:
      "The workspace's shared knowledge. Everyone reads it; editors and admins may change it.",
    definition: {
      harnessDir: COMPANY_DIR,
      commit: "after-turn",
      load: company.load,
      loadIndex: company.loadIndex,
      readBodies: company.readBodies,
      store: companyStore,
      limits: limitsOf("company"),
      // From the server-side Actor only; a missing or odd Actor fails closed.
      canWrite: ({ extraBody }) => {
        const actor = actorOf(extraBody);
        return actor !== null && canWriteGlobal(actor);
      },
      owner: ({ extraBody }) => workspaceOwner(actorOrThrow(extraBody)),
      audience: "shared",
      // A member's change is not lost and not applied: it becomes a suggestion an editor or
      // admin reviews (docs/review.md). A throw keeps the change set in the commit log.
      suggest: async ({
        extraBody,
        session,
        harnessDir,
        changes,
        base,
        baseCursor,
        turnId,
        note,
      }) => {
        const actor = actorOrThrow(extraBody);
        if (!(await currentActor(sql, actor))) {
          throw new HarnessForbiddenError({
            surface: "dir",
            message: "Not suggested: you are no longer a member of this workspace.",
          });
        }
        return createSuggestion(sql, {
          actor,
          source: extraBody.source === "mcp" ? "mcp" : "turn",
          note,
          chatId: session?.chatId ?? null,
          turnId: turnId ?? null,
          via: extraBody.via ?? null,
          // One suggestion per turn and dir, however often the commit runs.
          ...(turnId ? { id: `turn:${turnId}:${harnessDir}` } : {}),
          proposal: {
            target: "dir",
            harnessDir,
            dir: dirProposalOf({ changes, base, baseCursor }),
          },
        });
      },
    },
    dirKey: companyDirKey,
    owner: workspaceOwner,
    canWrite: (actor) => canWriteGlobal(actor),
  };

  const dirs: AppDir[] = [userDir, companyDir];
  if (options.companyDocsDir) {
    const folder = path.resolve(options.companyDocsDir);
    dirs.push({
      kind: "docs",
      harnessDir: DOCS_DIR,
      label: "Company docs",
      description: `A read-only folder on the server (${path.basename(folder)}).`,
      definition: localDir<AppExtraBody, AppSession>({
        harnessDir: DOCS_DIR,
        sourceDir: folder,
        commit: "read-only",
        owner: ({ extraBody }) => workspaceOwner(actorOrThrow(extraBody)),
      }),
      dirKey: () => null,
      owner: workspaceOwner,
      canWrite: () => false,
    });
  }
  // Checks the invariants (under /persistent, no overlap, stores present) once, up front.
  definePersistentDirs({ dirs: dirs.map((dir) => dir.definition) });
  return dirs;
}
