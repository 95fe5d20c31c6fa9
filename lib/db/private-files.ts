import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from "node:fs";
import path from "node:path";
import { defaultDataDirectory } from "./database-url";
import { createStderrLogger } from "@/lib/harness";

/** Owner-only: the database holds every workspace's memory, chats and password hashes. */
export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIRECTORY_MODE = 0o700;

/** The files SQLite keeps beside a database (write-ahead log, shared memory, rollback journal). */
const SQLITE_COMPANIONS = ["", "-wal", "-shm", "-journal"];

/**
 * Makes a SQLite database owner-only before it is opened, and tightens one made before:
 *
 * - its folder is created 0700 when missing, and tightened to 0700 when it is Cairn's data dir
 *   (`CAIRN_DATA_DIR`, default `./data`) — a folder named in `DATABASE_URL` may be shared with
 *   other things and keeps its mode;
 * - the file is created empty with 0600 when missing (SQLite then creates `-wal`, `-shm` and
 *   `-journal` with the database file's mode), and the file and those companions that exist are
 *   tightened to 0600.
 *
 * A file that belongs to someone else (`EPERM`) is left as it is, with a warning.
 */
export function securePrivateSqliteFile(
  filePath: string,
  options: { dataDirectory?: string; warn?: (message: string) => void } = {},
): void {
  const warn = options.warn ?? ((message: string) => createStderrLogger().warn({}, message));
  const folder = path.dirname(path.resolve(/*turbopackIgnore: true*/ filePath));
  mkdirSync(folder, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
  if (
    folder ===
    path.resolve(/*turbopackIgnore: true*/ options.dataDirectory ?? defaultDataDirectory())
  ) {
    tighten(folder, PRIVATE_DIRECTORY_MODE, warn);
  }
  // `a`: creates the file when missing (0600, before any content exists), never truncates.
  closeSync(openSync(filePath, "a", PRIVATE_FILE_MODE));
  for (const suffix of SQLITE_COMPANIONS) {
    const file = `${filePath}${suffix}`;
    if (existsSync(file)) tighten(file, PRIVATE_FILE_MODE, warn);
  }
}

function tighten(target: string, mode: number, warn: (message: string) => void): void {
  try {
    chmodSync(target, mode);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return;
    warn(`could not make ${target} owner-only (${code ?? String(error)})`);
  }
}
