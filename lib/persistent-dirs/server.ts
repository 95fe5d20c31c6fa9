import { getDb } from "@/lib/db";
import { parseFaultInjection } from "./fault-injection";
import { createPersistentDirsService, type PersistentDirsService } from "./service";

const globalForDirs = globalThis as unknown as {
  cairnPersistentDirs?: { service: PersistentDirsService; key: string; db: unknown };
};

/**
 * The app's persistent-dirs service for this process, on the process-wide database client and
 * the environment: `CAIRN_COMPANY_DOCS_DIR` (optional read-only folder at `/persistent/docs`)
 * and `CAIRN_FAULT_INJECTION` (testing only; see docs/persistent-dirs.md).
 */
export function getPersistentDirs(): PersistentDirsService {
  const db = getDb();
  const companyDocsDir = process.env.CAIRN_COMPANY_DOCS_DIR?.trim() || null;
  const faultInjection = process.env.CAIRN_FAULT_INJECTION ?? "";
  const key = JSON.stringify([companyDocsDir, faultInjection]);
  const cached = globalForDirs.cairnPersistentDirs;
  if (cached && cached.key === key && cached.db === db) return cached.service;
  const service = createPersistentDirsService({
    db,
    companyDocsDir,
    faultInjection: parseFaultInjection(faultInjection),
  });
  globalForDirs.cairnPersistentDirs = { service, key, db };
  return service;
}
