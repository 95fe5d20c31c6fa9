import { createUserInWorkspace } from "@/lib/accounts";
import { cliFailure } from "@/lib/app-error";
import { ConfigError, loadConfig } from "@/lib/config";
import { migrateDatabase } from "@/lib/db";
import { isRole } from "@/lib/harness";
import { openMigratedDatabase, parseOptions, type Command, type CommandIo } from "./command";
import { dirExportCommand } from "./dir-export-command";
import { dirImportCommand } from "./dir-import-command";
import { dirsCompactCommand } from "./dirs-commands";
import { exportCommand, importCommand } from "./harness-commands";
import { mcpCommand, tokenCreateCommand } from "./mcp-commands";
import { searchReindexCommand } from "./search-commands";
import { UsageError } from "./usage-error";

const usage = `Usage: cairn <command>

Commands:
  user create --email E --password P --role admin|editor|member [--workspace W] [--name N]
      Create a user in workspace W (by name; created if missing; default "Default").
  db migrate
      Create the database if needed and apply pending migrations.
  export --workspace W --out DIR
      Write workspace W's global harness to DIR (new or empty) in Prime Agent's format.
  import --workspace W DIR
      Import DIR (a Cairn or Prime Agent export) into workspace W; importing twice changes nothing.
  dirs compact [--workspace W] [--retention-days N]
      Compact the history of every persistent dir (or workspace W's) past the retention
      window (CAIRN_DIR_HISTORY_RETENTION_DAYS, default 30 days; or N): older versions keep
      who, when and which files, and only the content a later version needs.
  search reindex
      Rebuild the search index (memory, company knowledge, docs folder, harness entries, chat
      messages) in one transaction; see docs/search.md.
  dir import FOLDER --workspace W --dir company|user [--email E] [--prefix PATH]
      Import a folder tree of text files into W's company knowledge (or E's memory), streaming,
      one commit per 2,000 files or 32 MiB; files already there with the same content are skipped
      (run it again to resume);
      binary files and files over the limit are listed as skipped with the reason.
  dir export FOLDER --workspace W --dir company|user [--email E] [--prefix PATH]
      Write W's company knowledge (or E's memory), or its folder PATH, into FOLDER (new or
      empty) byte for byte, as it is at one version: what dir import reads back.
  token create --email E --workspace W [--name N] [--expires-in-days D]
      Print a new personal access token for the MCP endpoint (shown once; only its hash is kept).
  mcp --url URL [--token T]
      A stdio MCP server bridged to a running Cairn's /api/mcp (token also from CAIRN_TOKEN).
      See docs/mcp.md.

DATABASE_URL picks the database as for the server: unset → ./data/cairn.db (SQLite),
file:/path.db → that SQLite file, postgres://… → PostgreSQL.`;

/** Runs the CLI and returns the exit code: 0 ok, 1 failure, 2 bad arguments. */
export async function main(
  argv: string[],
  io: CommandIo = { out: console.log, err: console.error },
): Promise<number> {
  try {
    const [group, command] = argv;
    if (!group || group === "help" || group === "--help" || group === "-h") {
      io.out(usage);
      return group ? 0 : 2;
    }
    // Two-word commands first ("dir import"); one-word ones ("export") take the rest as options.
    const twoWords = COMMANDS.get(`${group} ${command}`);
    const run = twoWords ?? COMMANDS.get(group);
    if (!run) {
      throw new UsageError(`Unknown command "${[group, command].filter(Boolean).join(" ")}".`);
    }
    // The environment, parsed as the server parses it: a bad value stops here, named.
    const config = loadConfig(process.env);
    return await run(argv.slice(twoWords ? 2 : 1), io, config);
  } catch (error) {
    if (
      UsageError.isInstance(error) ||
      (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")
    ) {
      io.err(`cairn: ${(error as Error).message}\n\n${usage}`);
      return 2;
    }
    if (ConfigError.isInstance(error)) {
      io.err(`cairn: ${error.message}`);
      return 2;
    }
    const failure = cliFailure(error);
    io.err(`cairn: ${failure.message}`);
    return failure.exitCode;
  }
}

const dbMigrate: Command = async (args, io, config) => {
  parseOptions(args, {});
  const target = config.database;
  const result = await migrateDatabase({ target, log: (line) => io.out(line) });
  io.out(
    `${target.provider}: ${result.applied.length} migration(s) applied, ${result.alreadyApplied} already up to date`,
  );
  return 0;
};

const userCreate: Command = async (args, io, config) => {
  const values = parseOptions(args, {
    email: { type: "string" },
    password: { type: "string" },
    role: { type: "string" },
    workspace: { type: "string", default: "Default" },
    name: { type: "string" },
  });
  if (!values.email) throw new UsageError("--email is required");
  if (!values.password) throw new UsageError("--password is required");
  if (!values.role || !isRole(values.role))
    throw new UsageError("--role must be admin, editor or member");
  const sql = await openMigratedDatabase(config);
  const { user, workspace, added } = await createUserInWorkspace(sql, {
    email: values.email,
    password: values.password,
    name: values.name,
    role: values.role,
    workspaceName: values.workspace,
  });
  io.out(
    `${added ? "added" : "created"} ${user.email} as ${values.role} of workspace "${workspace.name}"`,
  );
  return 0;
};

/** Every command by its words, as the usage lists them. */
const COMMANDS = new Map<string, Command>([
  ["user create", userCreate],
  ["db migrate", dbMigrate],
  ["export", exportCommand],
  ["import", importCommand],
  ["dirs compact", dirsCompactCommand],
  ["search reindex", searchReindexCommand],
  ["dir import", dirImportCommand],
  ["dir export", dirExportCommand],
  ["token create", tokenCreateCommand],
  ["mcp", (args, _io, config) => mcpCommand(args, config)],
]);
