import type { Readable, Writable } from "node:stream";

import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

import { createAccessToken } from "@/lib/access-tokens";
import type { CairnConfig } from "@/lib/config";
import { openMigratedDatabase, parseOptions, type Command } from "./command";
import { UsageError } from "./usage-error";

/**
 * `cairn token create --email E --workspace W [--name N] [--expires-in-days D]`: prints a new
 * personal access token (once; only its hash is stored) for E in workspace W.
 */
export const tokenCreateCommand: Command = async (args, io, config) => {
  const values = parseOptions(args, {
    email: { type: "string" },
    workspace: { type: "string" },
    name: { type: "string", default: "cli" },
    "expires-in-days": { type: "string" },
  });
  if (!values.email) throw new UsageError("--email is required");
  if (!values.workspace) throw new UsageError("--workspace is required");
  let expiresAt: Date | null = null;
  if (values["expires-in-days"] !== undefined) {
    const days = Number(values["expires-in-days"]);
    if (!Number.isInteger(days) || days < 1 || days > 3650) {
      throw new UsageError("--expires-in-days must be a whole number from 1 to 3650");
    }
    expiresAt = new Date(Date.now() + days * 24 * 60 * 60 * 1000);
  }
  const sql = await openMigratedDatabase(config);
  const user = await sql.get<{ id: string }>(`SELECT "id" FROM "User" WHERE "email" = ?`, [
    values.email.trim().toLowerCase(),
  ]);
  const workspace = await sql.get<{ id: string }>(`SELECT "id" FROM "Workspace" WHERE "name" = ?`, [
    values.workspace.trim(),
  ]);
  if (!user) {
    io.err(`cairn: no user with email ${values.email}`);
    return 1;
  }
  if (!workspace) {
    io.err(`cairn: no workspace named "${values.workspace}"`);
    return 1;
  }
  const { token } = await createAccessToken(sql, {
    userId: user.id,
    workspaceId: workspace.id,
    name: values.name,
    expiresAt,
    via: "cli",
  });
  io.out(token);
  return 0;
};

/** Options for `runMcpBridge`. */
export interface McpBridgeOptions {
  url: string;
  token: string;
  stdin?: Readable;
  stdout?: Writable;
  /** Where bridge errors are logged (never stdout: that is the protocol's). */
  log?: (line: string) => void;
}

/**
 * A stdio MCP server that forwards every JSON-RPC message to a running Cairn's `/api/mcp`
 * (Streamable HTTP, the token as bearer) and every answer back. Resolves when stdin ends.
 * A request the server cannot be reached for is answered with a JSON-RPC error, so the client
 * is never left waiting.
 */
export async function runMcpBridge(options: McpBridgeOptions): Promise<void> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const stdin = options.stdin ?? process.stdin;
  const local = new StdioServerTransport(stdin, options.stdout ?? process.stdout);
  const remote = new StreamableHTTPClientTransport(new URL(options.url), {
    requestInit: { headers: { Authorization: `Bearer ${options.token}` } },
  });
  remote.onmessage = (message) => {
    local.send(message).catch((error: unknown) => log(`cairn mcp: ${String(error)}`));
  };
  remote.onerror = (error) => log(`cairn mcp: ${error.message}`);
  local.onmessage = (message: JSONRPCMessage) => {
    remote.send(message).catch((error: unknown) => {
      const text = error instanceof Error ? error.message : String(error);
      log(`cairn mcp: ${text}`);
      if ("id" in message && "method" in message) {
        void local.send({
          jsonrpc: "2.0",
          id: message.id,
          error: { code: -32603, message: `Cairn at ${options.url} did not answer: ${text}` },
        });
      }
    });
  };
  local.onerror = (error) => log(`cairn mcp: ${error.message}`);
  await remote.start();
  const ended = new Promise<void>((resolve) => {
    stdin.once("end", resolve);
    stdin.once("close", resolve);
  });
  await local.start();
  await ended;
  await Promise.allSettled([local.close(), remote.close()]);
}

/** `cairn mcp --url U [--token T]` (or `CAIRN_TOKEN`): the stdio bridge. */
export async function mcpCommand(args: string[], config: CairnConfig): Promise<number> {
  const values = parseOptions(args, { url: { type: "string" }, token: { type: "string" } });
  const url = values.url ?? config.mcpBridge.url;
  const token = values.token ?? config.mcpBridge.token;
  if (!url) throw new UsageError("--url is required (e.g. http://localhost:3000/api/mcp)");
  if (!token) throw new UsageError("--token (or CAIRN_TOKEN) is required");
  try {
    new URL(url);
  } catch {
    throw new UsageError(`--url ${JSON.stringify(url)} is not a URL`);
  }
  await runMcpBridge({ url, token });
  return 0;
}
