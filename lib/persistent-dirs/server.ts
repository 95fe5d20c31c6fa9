import { defaultDataDirectory, getDb } from "@/lib/db";
import { spoolKeyFromSecret } from "@/lib/harness";
import { getJobQueue } from "@/lib/jobs";
import { dirHistorySettingsFromEnv, failedCommitsMaxBytesFromEnv } from "@/lib/storage";
import { createDurability, durabilitySettingsFromEnv, type Durability } from "./durability";
import { parseFaultInjection } from "./fault-injection";
import { createPersistentDirsService, type PersistentDirsService } from "./service";

const globalForDirs = globalThis as unknown as {
  cairnPersistentDirs?: { service: PersistentDirsService; key: string; db: unknown };
};

/**
 * The app's persistent-dirs service for this process, on the process-wide database client and
 * the environment: `CAIRN_COMPANY_DOCS_DIR` (optional read-only folder at `/persistent/docs`)
 * `CAIRN_DIR_HISTORY_MAX_BYTES`, `CAIRN_WORKSPACE_HISTORY_MAX_BYTES` and
 * `CAIRN_DIR_HISTORY_RETENTION_DAYS` and `CAIRN_FAILED_COMMITS_MAX_BYTES` (decision 0030), and
 * `CAIRN_FAULT_INJECTION` (testing only; see docs/persistent-dirs.md).
 */
export function getPersistentDirs(): PersistentDirsService {
  const db = getDb();
  const companyDocsDir = process.env.CAIRN_COMPANY_DOCS_DIR?.trim() || null;
  const faultInjection = process.env.CAIRN_FAULT_INJECTION ?? "";
  const history = dirHistorySettingsFromEnv();
  const failedCommitsMaxBytes = failedCommitsMaxBytesFromEnv();
  const key = JSON.stringify([companyDocsDir, faultInjection, history, failedCommitsMaxBytes]);
  const cached = globalForDirs.cairnPersistentDirs;
  if (cached && cached.key === key && cached.db === db) return cached.service;
  const service = createPersistentDirsService({
    db,
    companyDocsDir,
    faultInjection: parseFaultInjection(faultInjection),
    history,
    failedCommitsMaxBytes,
  });
  globalForDirs.cairnPersistentDirs = { service, key, db };
  return service;
}

const globalForDurability = globalThis as unknown as {
  cairnDurability?: { durability: Durability; service: PersistentDirsService };
};

/**
 * The process's durability (journal, spool under `$CAIRN_DATA_DIR/spool`, recovery loop), on the
 * persistent-dirs service of `getPersistentDirs()`, with automatic commit retries on the job queue
 * of `getJobQueue()` (their workers start in `startJobWorkers`). The first call starts the loop;
 * `instrumentation.ts` calls it at server start so spooled changes and dead turns are handled
 * before the first request. Settings: `CAIRN_TURN_LEASE_MS`, `CAIRN_DURABILITY_INTERVAL_MS`,
 * `CAIRN_COMMIT_RETRY_ATTEMPTS`, `CAIRN_COMMIT_RETRY_DELAY_MS`.
 */
export function getDurability(): Durability {
  const service = getPersistentDirs();
  const cached = globalForDurability.cairnDurability;
  if (cached && cached.service === service) return cached.durability;
  cached?.durability.stop();
  const durability = createDurability({
    db: getDb(),
    dirs: service.dirs,
    commitLog: service.commitLog,
    jobQueue: getJobQueue(),
    dataDir: defaultDataDirectory(),
    spoolKey: spoolKeyFromEnv(),
    ...durabilitySettingsFromEnv(),
  });
  globalForDurability.cairnDurability = { durability, service };
  durability.start();
  return durability;
}

/** The spool's signing key, from `AUTH_SECRET` (the server cannot run without it anyway). */
function spoolKeyFromEnv(): Uint8Array {
  const secret = process.env.AUTH_SECRET?.trim();
  if (!secret) {
    throw new Error(
      "AUTH_SECRET is not set: Cairn needs it to sign sessions and the records of its spool (`npm start` generates one in .env.local).",
    );
  }
  return spoolKeyFromSecret(secret);
}
