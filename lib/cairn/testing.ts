import type { DatabaseTarget } from "@/lib/db/database-url";
import { loadConfig, type CairnConfig } from "@/lib/config";
import type { Logger } from "@/lib/harness";
import { createCairn, type Cairn } from "./create-cairn";
import { installCairn } from "./index";

/**
 * A configuration for a test: the process's environment (the suite's `AUTH_SECRET`, a test
 * file's `CAIRN_BCRYPT_COST`) with `database` as `DATABASE_URL` and `env` on top, parsed by the
 * same schema as the server's.
 */
export function testConfig(
  options: { database?: DatabaseTarget; env?: Record<string, string> } = {},
): CairnConfig {
  return loadConfig({
    ...process.env,
    ...(options.database && { DATABASE_URL: options.database.url }),
    ...options.env,
  });
}

/**
 * Builds a Cairn from `testConfig(options)` and makes it the process's (`cairn()`, and through
 * it `getDb()`, `getPersistentDirs()`, … in the code under test) until `cleanup`, which closes it
 * and puts the previous one back. Instead of pointing `process.env` at a test database and
 * resetting globals.
 */
export function installTestCairn(
  options: { database?: DatabaseTarget; env?: Record<string, string>; logger?: Logger } = {},
): { cairn: Cairn; cleanup(): Promise<void> } {
  const instance = createCairn(testConfig(options), { logger: options.logger });
  const restore = installCairn(instance);
  return {
    cairn: instance,
    async cleanup() {
      restore();
      await instance.close();
    },
  };
}

/** A line a `recordingLogger` took: its level, message and fields (bindings included). */
export interface RecordedLogLine {
  level: "error" | "warn" | "info" | "debug";
  message: string;
  fields: Record<string, unknown>;
}

/** A logger that keeps its lines in `lines`, for tests that assert on what was logged. */
export function recordingLogger(
  lines: RecordedLogLine[] = [],
  bindings: Record<string, unknown> = {},
): Logger & { lines: RecordedLogLine[] } {
  const at =
    (level: RecordedLogLine["level"]) => (fields: Record<string, unknown>, message: string) =>
      void lines.push({ level, message, fields: { ...bindings, ...fields } });
  return {
    lines,
    error: at("error"),
    warn: at("warn"),
    info: at("info"),
    debug: at("debug"),
    child: (more) => recordingLogger(lines, { ...bindings, ...more }),
  };
}
