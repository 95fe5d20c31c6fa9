import { compactHistory, workspaceDirKeys } from "@/lib/workspace-dirs";
import { formatBytes } from "@/lib/harness/format-bytes";
import { openMigratedDatabase, parseOptions, type Command } from "./command";
import { UsageError } from "./usage-error";

export const DIRS_COMPACT_USAGE = "cairn dirs compact [--workspace W] [--retention-days N]";

/**
 * `cairn dirs compact [--workspace W] [--retention-days N]`: compacts the history of every
 * database-backed dir (or of workspace W's: its company knowledge and its members' memory) past
 * the retention window — `CAIRN_DIR_HISTORY_RETENTION_DAYS` (default 30) or N days — as the
 * background job does (decision 0030). Returns 0, or 1 when the workspace does not exist.
 */
export const dirsCompactCommand: Command = async (args, io, config) => {
  const values = parseOptions(args, {
    workspace: { type: "string" },
    "retention-days": { type: "string" },
  });
  let retentionDays = config.dirHistory.retentionDays;
  if (values["retention-days"] !== undefined) {
    const days = Number(values["retention-days"]);
    if (!Number.isSafeInteger(days) || days < 0) {
      throw new UsageError("--retention-days must be a whole number of days (0 or more)");
    }
    retentionDays = days;
  }
  if (retentionDays === null) {
    io.out(
      "Compaction is off (CAIRN_DIR_HISTORY_RETENTION_DAYS=off); give --retention-days N to compact anyway.",
    );
    return 0;
  }
  const sql = await openMigratedDatabase(config);
  let dirKeys: string[] | undefined;
  let scope = "every dir";
  if (values.workspace !== undefined) {
    const workspace = await sql.get<{ id: string; name: string }>(
      `SELECT "id", "name" FROM "Workspace" WHERE "name" = ?`,
      [values.workspace],
    );
    if (!workspace) {
      io.err(`cairn: no workspace named "${values.workspace}"`);
      return 1;
    }
    dirKeys = await workspaceDirKeys({ sql, workspaceId: workspace.id });
    scope = `workspace "${workspace.name}" (${dirKeys.length} dir${dirKeys.length === 1 ? "" : "s"})`;
  }
  const report = await compactHistory({
    sql,
    settings: { retentionDays },
    dirKeys,
  });
  io.out(
    `compacted ${scope}: versions older than ${retentionDays} day${retentionDays === 1 ? "" : "s"} ` +
      `(before ${report.before!.toISOString()}); ${report.rowsCompacted} version(s) in ` +
      `${report.dirs.filter((dir) => dir.rowsCompacted > 0).length} dir(s) cut down, ` +
      `${formatBytes(report.bytesFreed)} freed`,
  );
  return 0;
};
