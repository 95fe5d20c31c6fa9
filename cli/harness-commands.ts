import { parseArgs } from "node:util";
import { createCairn } from "@/lib/cairn";
import type { CairnConfig } from "@/lib/config";
import { migrateDatabase } from "@/lib/db";
import {
  HarnessError,
  createHarness,
  exportHarness,
  importHarness,
  type Harness,
} from "@/lib/harness";
import { SqlRefinementHistory } from "@/lib/sql-storage";
import type { Command, CommandIo } from "./command";

export const EXPORT_USAGE = "cairn export --workspace W --out DIR";
export const IMPORT_USAGE = "cairn import --workspace W DIR";

/** The CLI acts as an admin of the named workspace: whoever runs it already holds the database. */
const CLI_USER_ID = "cli";

function usageError(io: CommandIo, message: string, usage: string): number {
  io.err(`cairn: ${message}\n\nUsage: ${usage}`);
  return 2;
}

function isParseArgsError(error: unknown): error is Error {
  return (
    (error as { code?: unknown } | null)?.code?.toString().startsWith("ERR_PARSE_ARGS") === true
  );
}

/**
 * Opens the database, finds the workspace by name and runs `action` with an admin harness
 * outside any chat (global entries only). Returns 1 with a clear message when the workspace
 * does not exist or the core refuses the operation.
 */
async function withWorkspaceHarness(
  workspaceName: string,
  io: CommandIo,
  config: CairnConfig,
  action: (
    harness: Harness,
    workspace: { id: string; name: string },
    history: SqlRefinementHistory,
  ) => Promise<number>,
): Promise<number> {
  await migrateDatabase({ target: config.database });
  const root = createCairn(config);
  try {
    const workspace = await root.sql.get<{ id: string; name: string }>(
      `SELECT "id", "name" FROM "Workspace" WHERE "name" = ?`,
      [workspaceName],
    );
    if (!workspace) {
      io.err(`cairn: no workspace named "${workspaceName}"`);
      return 1;
    }
    const harness = createHarness({
      storage: root.harnessStorage,
      actor: { userId: CLI_USER_ID, workspaceId: workspace.id, role: "admin" },
      chatId: null,
    });
    return await action(harness, workspace, new SqlRefinementHistory(root.sql, workspace.id));
  } catch (error) {
    if (HarnessError.isInstance(error)) {
      io.err(`cairn: ${error.message}`);
      return 1;
    }
    throw error;
  } finally {
    await root.close();
  }
}

/**
 * `cairn export --workspace W --out DIR`: writes workspace W's global harness to DIR (new or
 * empty) in Prime Agent's layout. Returns 0 ok, 1 failure, 2 bad arguments.
 */
export const exportCommand: Command = async (args, io, config) => {
  let values: { workspace?: string; out?: string };
  try {
    ({ values } = parseArgs({
      args,
      strict: true,
      options: { workspace: { type: "string" }, out: { type: "string" } },
    }));
  } catch (error) {
    if (isParseArgsError(error)) return usageError(io, error.message, EXPORT_USAGE);
    throw error;
  }
  if (!values.workspace) return usageError(io, "--workspace is required", EXPORT_USAGE);
  if (!values.out) return usageError(io, "--out is required", EXPORT_USAGE);
  const outDir = values.out;

  return withWorkspaceHarness(values.workspace, io, config, async (harness, workspace, history) => {
    // Imported refinement history is written back; Cairn's own refinements join it with the
    // refinement pipeline.
    const report = await exportHarness({
      harness,
      outDir,
      refinements: await history.listImported(),
    });
    const counts = Object.entries(report.entries)
      .map(([kind, count]) => `${count} ${kind}`)
      .join(", ");
    io.out(
      `exported ${counts} from workspace "${workspace.name}" (harness v${report.harnessVersion}) to ${outDir}`,
    );
    return 0;
  });
};

/**
 * `cairn import --workspace W DIR`: imports DIR (a Cairn or Prime Agent export) into workspace
 * W's global harness. Importing the same directory twice changes nothing. Returns 0 ok,
 * 1 failure, 2 bad arguments.
 */
export const importCommand: Command = async (args, io, config) => {
  let values: { workspace?: string };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args,
      strict: true,
      allowPositionals: true,
      options: { workspace: { type: "string" } },
    }));
  } catch (error) {
    if (isParseArgsError(error)) return usageError(io, error.message, IMPORT_USAGE);
    throw error;
  }
  if (!values.workspace) return usageError(io, "--workspace is required", IMPORT_USAGE);
  if (positionals.length !== 1) {
    return usageError(io, "give exactly one directory to import", IMPORT_USAGE);
  }
  const dir = positionals[0]!;

  return withWorkspaceHarness(values.workspace, io, config, async (harness, workspace, history) => {
    const report = await importHarness({
      harness,
      dir,
      refinementHistory: history,
      reason: "Imported with cairn import",
    });
    io.out(
      `imported into workspace "${workspace.name}" (harness v${report.harnessVersion}): ` +
        `${report.created} created, ${report.updated} updated, ${report.unchanged} unchanged, ` +
        `${report.skipped.length} skipped`,
    );
    const { refinements } = report;
    io.out(
      `refinements: ${refinements.records.length} read, ${refinements.duplicates} duplicate(s), ` +
        `${refinements.malformed} malformed line(s) skipped; stored as read-only history`,
    );
    for (const skip of report.skipped) {
      const what = skip.kind ? ` [${skip.kind}${skip.id ? `:${skip.id}` : ""}]` : "";
      io.out(`  skipped ${skip.file}${what}: ${skip.reason}`);
    }
    return 0;
  });
};
