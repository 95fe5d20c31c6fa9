import path from "node:path";
import { pathToFileURL } from "node:url";
import { resolveModelConfig, type ModelConfigResult } from "@/lib/ai/resolve-model-config";
import { SessionClaimsCache } from "@/lib/auth/session-claims";
import { createTurnRate, type TurnRate } from "@/lib/chat/turn-rate";
import { createTurnSlots, type TurnSlots } from "@/lib/chat/turn-slots";
import type { CairnConfig } from "@/lib/config";
import { createDb, type Db } from "@/lib/db/client";
import {
  spoolKeyFromSecret,
  type Logger,
  type RefinementLock,
  type ShellLimits,
} from "@/lib/harness";
import type { JobQueue } from "@/lib/jobs/job-queue";
import {
  createWorkspaceModels,
  modelKeyFromSecret,
  type WorkspaceModels,
} from "@/lib/model-settings";
import { createSavedOidc, oidcKeyFromSecret, type SavedOidc } from "@/lib/oidc-settings";
import { createPgBossJobQueue } from "@/lib/jobs/pg-boss-job-queue";
import { createTableJobQueue } from "@/lib/jobs/table-job-queue";
import { createDurability, type Durability } from "@/lib/workspace-dirs/durability-setup";
import {
  createWorkspaceDirLimitsCache,
  type WorkspaceDirLimitsCache,
} from "@/lib/workspace-dirs/workspace-dir-limits";
import {
  createPersistentDirsService,
  type PersistentDirsService,
} from "@/lib/workspace-dirs/dirs-service";
import { createSearchService, type SearchService } from "@/lib/search/search-service";
import { createLogger } from "@/lib/observability/pino-logger";
import { createMetrics, type Metrics } from "@/lib/observability/metrics";
import { queueDepth } from "@/lib/observability/queue-depth";
import { createDatabaseLock } from "@/lib/sql-storage/database-lock";
import { harnessStorageFor, type SqlHarnessStorage } from "@/lib/sql-storage/harness-storage";
import { sqlFor, type Sql } from "@/lib/sql-storage/sql";

/**
 * One Cairn: everything the app's routes, actions, workers and the CLI need, built from one
 * configuration (decision 0033). Collaborators that open connections or start work (the
 * database client, the job queue, the durability loop) are made on first use and then kept;
 * the rest are made at once.
 */
export interface Cairn {
  readonly config: CairnConfig;
  /** The Prisma client on `config.database`. */
  readonly db: Db;
  /** The SQL layer on `config.database` (the process's client for that database). */
  readonly sql: Sql;
  /** The harness storage on `sql` (its snapshot cache is shared by every request). */
  readonly harnessStorage: SqlHarnessStorage;
  /** The app's persistent dirs: `/persistent/user`, `/company`, and `/docs` when configured. */
  readonly persistentDirs: PersistentDirsService;
  /**
   * Journal, spool (under `config.dataDir/spool`) and the recovery loop, with automatic commit
   * retries on `jobQueue`. The first access starts the loop; `close()` stops it.
   */
  readonly durability: Durability;
  /** Search over memory, company knowledge, docs, harness entries and chats (lib/search). */
  readonly search: SearchService;
  /** The durable job queue: pg-boss on PostgreSQL, the `Job` table on SQLite. */
  readonly jobQueue: JobQueue;
  /** The lock every refinement path holds (an advisory lock, or a lease row on SQLite). */
  readonly refinementLock: RefinementLock;
  /** Running turns per person (`CAIRN_MAX_TURNS_PER_USER`), per process. */
  readonly turnSlots: TurnSlots;
  /** Turns started per person per minute (`CAIRN_TURNS_PER_MINUTE`), per process. */
  readonly turnRate: TurnRate;
  /** Session tokens already decrypted, by a hash of the cookie (decision 0025). */
  readonly sessionClaims: SessionClaimsCache;
  /** The agent's `bash` limits and its worker's entry. */
  readonly shellLimits: ShellLimits;
  /** Which provider and models the configuration names (lib/ai), resolved once. */
  readonly modelSettings: ModelConfigResult;
  /** The workspaces' models saved on Admin → Settings → Model, cached per version (decision 0043). */
  readonly workspaceModels: WorkspaceModels;
  /** The key that seals saved API keys, derived from `AUTH_SECRET`. */
  modelKey(): Uint8Array;
  /**
   * The workspaces' dir limits saved on Admin → Settings (decision 0062): a chat turn hands over
   * what it read with its chat, other callers read them at most every few seconds.
   */
  readonly workspaceDirLimits: WorkspaceDirLimitsCache;
  /** Single sign-on saved on Admin → Settings, read at most every few seconds (decision 0053). */
  readonly savedOidc: SavedOidc;
  /** The key that seals the saved single sign-on client secret, derived from `AUTH_SECRET`. */
  oidcKey(): Uint8Array;
  /**
   * The instance's logger (`CAIRN_LOG_LEVEL`, `CAIRN_LOG_FORMAT`): JSON lines in production,
   * readable lines in development; `child({ requestId, turnId, workspaceId })` carries ids.
   */
  readonly logger: Logger;
  /** The instance's Prometheus metrics, scraped at `/api/metrics` (docs/observability.md). */
  readonly metrics: Metrics;
  /** Stops the durability loop and the job queue's workers and closes the database client. */
  close(): Promise<void>;
}

/** A value made by `make` on first read, then kept. */
function lazy<T>(make: () => T): { get(): T; made(): T | undefined } {
  let value: { current: T } | undefined;
  return {
    get: () => (value ??= { current: make() }).current,
    made: () => value?.current,
  };
}

/**
 * Builds a Cairn from a configuration (`loadConfig(env)`, lib/config). The app's own instance
 * is `cairn()` (lib/cairn); tests and commands build theirs with this and `close()` it.
 */
export function createCairn(config: CairnConfig, options: { logger?: Logger } = {}): Cairn {
  const target = config.database;
  const logger = options.logger ?? createLogger(config.log);
  const db = lazy(() => createDb(target));
  const sql = lazy(() => sqlFor(target));
  const harnessStorage = lazy(() => harnessStorageFor({ sql: sql.get() }));
  const jobQueue = lazy<JobQueue>(() =>
    target.provider === "postgresql"
      ? createPgBossJobQueue({
          url: target.url,
          maintenanceIntervalSeconds: Math.min(30, Math.max(1, config.jobExpireSeconds / 3)),
          logger,
        })
      : createTableJobQueue(sql.get(), { logger }),
  );
  const workspaceDirLimits = createWorkspaceDirLimitsCache({ sql: () => sql.get() });
  const persistentDirs = lazy(() =>
    createPersistentDirsService({
      sql: sql.get(),
      companyDocsDir: config.companyDocsDir,
      faultInjection: config.faultInjection,
      history: config.dirHistory,
      limits: config.dirLimits,
      workspaceLimits: workspaceDirLimits,
      failedCommitsMaxBytes: config.failedCommitsMaxBytes,
    }),
  );
  const durability = lazy(() => {
    const service = persistentDirs.get();
    const started = createDurability({
      sql: sql.get(),
      dirs: service.dirs,
      commitLog: service.commitLog,
      jobQueue: jobQueue.get(),
      dataDir: config.dataDir,
      spoolKey: spoolKeyOf(config),
      retryPolicy: { ...config.commitRetry },
      turnLeaseMs: config.turns.leaseMs,
      intervalMs: config.durabilityIntervalMs,
      log: (message, detail) => logger.error({ err: detail }, message),
      onPass: (result) => {
        if (result.closedTurns.length > 0) {
          metrics.turnsFinished.inc({ status: "interrupted" }, result.closedTurns.length);
        }
      },
    });
    started.start();
    return started;
  });
  const search = lazy(() =>
    createSearchService({
      sql: sql.get(),
      docsFolder: config.companyDocsDir,
      log: (message) => logger.warn({}, message),
      // lib/ai reads this instance (cairn()), so it is imported when first used.
      embeddings: async (workspaceId) => {
        const { getEmbeddingModel } = await import("@/lib/ai");
        const resolved = await getEmbeddingModel({ workspaceId });
        return resolved.status === "ready"
          ? { model: resolved.model, label: `${resolved.provider}:${resolved.modelId}` }
          : { off: resolved.reason };
      },
    }),
  );
  const refinementLock = lazy(() => createDatabaseLock({ sql: sql.get(), target, logger }));
  const turnSlots = createTurnSlots({ maxPerUser: config.turns.maxPerUser });
  const turnRate = createTurnRate({ perMinute: config.turns.perMinute });
  const sessionClaims = new SessionClaimsCache();
  const shellLimits: ShellLimits = {
    ...config.shell,
    // Named by its place in the project: the server bundle moves modules, but `next start` runs
    // in the project folder and the .mjs file is loaded by Node as it is.
    workerUrl: pathToFileURL(path.join(process.cwd(), "lib/harness/turn/shell-worker.mjs")),
  };
  const modelSettings = resolveModelConfig(config.models);
  const modelKey = lazy(() => {
    if (!config.authSecret)
      throw new Error(
        "AUTH_SECRET is not set: Cairn needs it to seal the API keys saved on Admin → Settings → Model.",
      );
    return modelKeyFromSecret(config.authSecret);
  });
  const workspaceModels = createWorkspaceModels({
    sql: () => sql.get(),
    key: () => modelKey.get(),
  });
  const oidcKey = lazy(() => {
    if (!config.authSecret)
      throw new Error(
        "AUTH_SECRET is not set: Cairn needs it to seal the single sign-on secret saved on Admin → Settings.",
      );
    return oidcKeyFromSecret(config.authSecret);
  });
  const savedOidc = createSavedOidc({ sql: () => sql.get(), key: () => oidcKey.get(), logger });
  const metrics = createMetrics({
    spoolDir: path.join(config.dataDir, "spool"),
    queueDepth: () => queueDepth(sql.get(), target),
  });

  return {
    config,
    get db() {
      return db.get();
    },
    get sql() {
      return sql.get();
    },
    get harnessStorage() {
      return harnessStorage.get();
    },
    get persistentDirs() {
      return persistentDirs.get();
    },
    get durability() {
      return durability.get();
    },
    get jobQueue() {
      return jobQueue.get();
    },
    get refinementLock() {
      return refinementLock.get();
    },
    get search() {
      return search.get();
    },
    turnSlots,
    turnRate,
    sessionClaims,
    shellLimits,
    modelSettings,
    workspaceModels,
    workspaceDirLimits,
    modelKey: () => modelKey.get(),
    savedOidc,
    oidcKey: () => oidcKey.get(),
    logger,
    metrics,
    async close() {
      durability.made()?.stop();
      await jobQueue.made()?.stop();
      await db.made()?.$disconnect();
    },
  };
}

/** The spool's signing key, from `AUTH_SECRET` (the server cannot run without it anyway). */
function spoolKeyOf(config: CairnConfig): Uint8Array {
  if (!config.authSecret) {
    throw new Error(
      "AUTH_SECRET is not set: Cairn needs it to sign sessions and the records of its spool (`npm start` generates one in .env.local).",
    );
  }
  return spoolKeyFromSecret(config.authSecret);
}
