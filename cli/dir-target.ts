import type { CairnConfig } from "@/lib/config";
import type { Sql } from "@/lib/sql-storage/sql";
import { companyDirKey, userDirKey } from "@/lib/workspace-dirs";
import { openMigratedDatabase, type CommandIo } from "./command";
import { UsageError } from "./usage-error";

/** The dir a `cairn dir …` command works on: its database, row key and path in a turn. */
export interface DirTarget {
  sql: Sql;
  workspace: { id: string; name: string };
  dirKey: string;
  harnessDir: "/persistent/company" | "/persistent/user";
}

/** Checks `--workspace`, `--dir company|user` and `--email` (usage errors, exit 2). */
export function checkDirTargetArgs<T extends { workspace?: string; dir?: string; email?: string }>(
  values: T,
): asserts values is T & { workspace: string; dir: "company" | "user" } {
  if (!values.workspace) throw new UsageError("--workspace is required");
  if (values.dir !== "company" && values.dir !== "user") {
    throw new UsageError("--dir must be company or user");
  }
  if (values.dir === "user" && !values.email) throw new UsageError("--dir user needs --email");
}

/**
 * Opens the configured database (migrating it) and finds workspace W's company knowledge, or
 * person E's memory (E a member of W); `null` after printing why when the workspace or the
 * member does not exist.
 */
export async function openDirTarget(
  config: CairnConfig,
  values: { workspace: string; dir: "company" | "user"; email?: string },
  io: CommandIo,
): Promise<DirTarget | null> {
  const sql = await openMigratedDatabase(config);
  const workspace = await sql.get<{ id: string; name: string }>(
    `SELECT "id", "name" FROM "Workspace" WHERE "name" = ?`,
    [values.workspace],
  );
  if (!workspace) {
    io.err(`cairn: no workspace named "${values.workspace}"`);
    return null;
  }
  if (values.dir === "company") {
    return {
      sql,
      workspace,
      dirKey: companyDirKey({ workspaceId: workspace.id }),
      harnessDir: "/persistent/company",
    };
  }
  const user = await sql.get<{ id: string }>(`SELECT "id" FROM "User" WHERE "email" = ?`, [
    values.email!.toLowerCase(),
  ]);
  const member =
    user &&
    (await sql.get<{ id: string }>(
      `SELECT "id" FROM "Membership" WHERE "userId" = ? AND "workspaceId" = ?`,
      [user.id, workspace.id],
    ));
  if (!user || !member) {
    io.err(`cairn: no member ${values.email} in workspace "${workspace.name}"`);
    return null;
  }
  return {
    sql,
    workspace,
    dirKey: userDirKey({ userId: user.id }),
    harnessDir: "/persistent/user",
  };
}
