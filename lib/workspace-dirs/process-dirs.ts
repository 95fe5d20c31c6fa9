import { cairn } from "@/lib/cairn";
import type { Durability } from "./durability-setup";
import type { PersistentDirsService } from "./dirs-service";

/**
 * The app's persistent-dirs service for this process (`cairn().persistentDirs`): the process's
 * database, `CAIRN_COMPANY_DOCS_DIR`, the dir history bounds (decision 0030) and
 * `CAIRN_FAULT_INJECTION` (testing only), as lib/cairn builds it.
 */
export function getPersistentDirs(): PersistentDirsService {
  return cairn().persistentDirs;
}

/**
 * The process's durability (`cairn().durability`: journal, spool under `$CAIRN_DATA_DIR/spool`,
 * recovery loop, automatic commit retries on the job queue). The first call starts the loop;
 * `instrumentation.ts` calls it at server start so spooled changes and dead turns are handled
 * before the first request.
 */
export function getDurability(): Durability {
  return cairn().durability;
}
