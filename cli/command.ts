import { parseArgs, type ParseArgsConfig } from "node:util";
import type { CairnConfig } from "@/lib/config";
import { migrateDatabase } from "@/lib/db";
import { sqlFor, type Sql } from "@/lib/sql-storage/sql";

/** Where a command writes: `out` for results, `err` for problems. */
export interface CommandIo {
  out: (line: string) => void;
  err: (line: string) => void;
}

/**
 * One `cairn …` command, given the arguments after its words. Returns the exit code: 0 ok,
 * 1 failure, 2 bad arguments (or it throws a `UsageError`, which `main` prints with the usage).
 */
export type Command = (args: string[], io: CommandIo, config: CairnConfig) => Promise<number>;

/** The options of `args`, strictly: an unknown option or a stray word is a usage error. */
export function parseOptions<O extends NonNullable<ParseArgsConfig["options"]>>(
  args: string[],
  options: O,
) {
  return parseArgs({ args, options, strict: true }).values;
}

/** Creates the configured database if needed, applies pending migrations, returns its SQL client. */
export async function openMigratedDatabase(config: CairnConfig): Promise<Sql> {
  await migrateDatabase({ target: config.database });
  return sqlFor(config.database);
}
