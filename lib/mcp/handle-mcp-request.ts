import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";

import {
  AccessTokenError,
  authenticateAccessToken,
  recordAccessTokenClient,
  type AccessTokenIdentity,
} from "@/lib/access-tokens";
import type { Db } from "@/lib/db";
import type { HarnessStoragePort } from "@/lib/harness";
import type { PersistentDirsService } from "@/lib/persistent-dirs";
import { createCairnMcpServer, type CairnMcpServerOptions } from "./create-cairn-mcp-server";

/** Largest JSON-RPC body accepted (a memory file is at most 1 MiB; JSON escaping can double it). */
export const MAX_MCP_BODY_BYTES = 4 * 1024 * 1024;

/** Options for `handleMcpRequest`. */
export interface HandleMcpRequestOptions {
  db: Db;
  dirs: PersistentDirsService;
  harnessStorage: HarnessStoragePort;
  requestRefinement?: CairnMcpServerOptions["requestRefinement"];
}

function jsonRpcError(status: number, code: number, message: string, headers?: HeadersInit) {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status, headers });
}

function unauthorized(error: AccessTokenError): Response {
  const description = error.message.replace(/"/g, "'");
  const challenge =
    error.reason === "missing"
      ? 'Bearer realm="cairn"'
      : `Bearer realm="cairn", error="invalid_token", error_description="${description}"`;
  return jsonRpcError(401, -32001, error.message, { "WWW-Authenticate": challenge });
}

function bearerOf(request: Request): string | null {
  const header = request.headers.get("authorization");
  if (!header) return null;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return match ? match[1]! : "";
}

function clientNameOf(message: unknown): string | null {
  const messages = Array.isArray(message) ? message : [message];
  for (const item of messages) {
    const candidate = item as {
      method?: unknown;
      params?: { clientInfo?: { name?: unknown; version?: unknown } };
    } | null;
    if (candidate?.method !== "initialize") continue;
    const name = candidate.params?.clientInfo?.name;
    if (typeof name === "string" && name.trim() !== "") return name;
  }
  return null;
}

/**
 * The MCP endpoint (Streamable HTTP, stateless): authenticates the bearer token (401 with
 * `WWW-Authenticate` when it is missing, unknown, expired or revoked, or its owner left the
 * workspace), reads the role from the membership, then answers the JSON-RPC request(s) with a
 * fresh server. An `initialize` records the client's self-reported name on the token, for
 * provenance. GET (a server-to-client stream) and DELETE (session end) are not offered: there
 * are no sessions.
 */
export async function handleMcpRequest(
  request: Request,
  options: HandleMcpRequestOptions,
): Promise<Response> {
  let identity: AccessTokenIdentity;
  try {
    identity = await authenticateAccessToken(options.db, { token: bearerOf(request) });
  } catch (error) {
    if (error instanceof AccessTokenError) return unauthorized(error);
    throw error;
  }
  if (request.method !== "POST") {
    return jsonRpcError(
      405,
      -32000,
      "Method not allowed: this MCP server is stateless; POST only.",
      {
        Allow: "POST",
      },
    );
  }
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > MAX_MCP_BODY_BYTES) {
    return jsonRpcError(413, -32600, `Request body over ${MAX_MCP_BODY_BYTES} bytes.`);
  }
  const raw = await request.text();
  if (Buffer.byteLength(raw, "utf8") > MAX_MCP_BODY_BYTES) {
    return jsonRpcError(413, -32600, `Request body over ${MAX_MCP_BODY_BYTES} bytes.`);
  }
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    return jsonRpcError(400, -32700, "Parse error: the body is not JSON.");
  }
  const clientName = clientNameOf(body);
  if (clientName !== null && clientName !== identity.token.clientName) {
    await recordAccessTokenClient(options.db, { id: identity.token.id, clientName });
    identity = { ...identity, token: { ...identity.token, clientName } };
  }

  const server = createCairnMcpServer({
    db: options.db,
    identity,
    dirs: options.dirs,
    harnessStorage: options.harnessStorage,
    requestRefinement: options.requestRefinement,
  });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, {
      parsedBody: body,
      authInfo: {
        token: identity.token.id,
        clientId: identity.token.clientName ?? identity.token.name,
        scopes: [identity.actor.role],
      },
    });
  } finally {
    // JSON responses are complete when handleRequest returns: nothing is left to stream.
    await server.close();
  }
}
