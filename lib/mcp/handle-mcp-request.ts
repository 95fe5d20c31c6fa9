import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";

import {
  AccessTokenError,
  authenticateAccessToken,
  recordAccessTokenClient,
  type AccessTokenIdentity,
} from "@/lib/access-tokens";
// The turn limits only, not lib/chat's index: that loads the chat turn (server-only, the model).
import { turnRateMessage, userTurnRate, type TurnRate } from "@/lib/chat/turn-rate";
import { userTurnSlots, type TurnSlots } from "@/lib/chat/turn-slots";
import type { Sql } from "@/lib/sql-storage/sql";
import { formatBytes } from "@/lib/harness/format-bytes";
import type { HarnessStoragePort } from "@/lib/harness";
import type { PersistentDirsService } from "@/lib/workspace-dirs";
import {
  mcpAllowedOriginsFromEnv,
  readJsonWithLimit,
  refuseBody,
  refuseRebindingRequest,
} from "@/lib/security";
import { createCairnMcpServer, type CairnMcpServerOptions } from "./create-cairn-mcp-server";
import { countTurnCalls, MAX_MCP_BATCH_MESSAGES } from "./turn-calls";

/** Largest JSON-RPC body accepted (a memory file is at most 1 MiB; JSON escaping can double it). */
export const MAX_MCP_BODY_BYTES = 4 * 1024 * 1024;

/** Options for `handleMcpRequest`. */
export interface HandleMcpRequestOptions {
  sql: Sql;
  dirs: PersistentDirsService;
  harnessStorage: HarnessStoragePort;
  requestRefinement?: CairnMcpServerOptions["requestRefinement"];
  requestFeedbackRefinement?: CairnMcpServerOptions["requestFeedbackRefinement"];
  /** The per-person concurrent-turn slots shared with chat turns; default `userTurnSlots()`. */
  slots?: TurnSlots;
  /** The per-person turn rate shared with chat turns; default `userTurnRate()`. */
  rate?: TurnRate;
  /**
   * Origins (and, through them, hosts) accepted besides loopback; default
   * `mcpAllowedOriginsFromEnv()` (`CAIRN_MCP_ALLOWED_ORIGINS`, `AUTH_URL`, `NEXTAUTH_URL`).
   */
  allowedOrigins?: readonly string[];
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
 * The MCP endpoint (Streamable HTTP, stateless): first refuses a request whose `Host` is not a
 * name of this server or whose `Origin` is present and not allowed (403, `refuseRebindingRequest`:
 * DNS rebinding, a page on another origin), then authenticates the bearer token (401 with
 * `WWW-Authenticate` when it is missing, unknown, expired or revoked, or its owner left the
 * workspace) before reading the body, reads the body with a limit (413 past
 * `MAX_MCP_BODY_BYTES`, counted while streaming), refuses a batch of more than
 * `MAX_MCP_BATCH_MESSAGES`, and holds the person's turn limits for calls that are turns
 * (`countTurnCalls`: one concurrent slot for the request, one token of the rate per call; 429
 * with `Retry-After` otherwise). Then it answers the JSON-RPC request(s) with a fresh server. An
 * `initialize` records the client's self-reported name on the token, for provenance. GET (a
 * server-to-client stream) and DELETE (session end) are not offered: there are no sessions.
 */
export async function handleMcpRequest(
  request: Request,
  options: HandleMcpRequestOptions,
): Promise<Response> {
  const foreign = refuseRebindingRequest(
    request,
    options.allowedOrigins ?? mcpAllowedOriginsFromEnv(),
  );
  if (foreign) return refuseBody(request, jsonRpcError(foreign.status, -32000, foreign.error));
  let identity: AccessTokenIdentity;
  try {
    identity = await authenticateAccessToken(options.sql, { token: bearerOf(request) });
  } catch (error) {
    if (AccessTokenError.isInstance(error)) return refuseBody(request, unauthorized(error));
    throw error;
  }
  if (request.method !== "POST") {
    return refuseBody(
      request,
      jsonRpcError(405, -32000, "Method not allowed: this MCP server is stateless; POST only.", {
        Allow: "POST",
      }),
    );
  }
  const read = await readJsonWithLimit(request, { maxBytes: MAX_MCP_BODY_BYTES });
  if (read.status === "too_large") {
    return refuseBody(
      request,
      jsonRpcError(
        413,
        -32600,
        `Request body over ${MAX_MCP_BODY_BYTES} bytes (${formatBytes(MAX_MCP_BODY_BYTES)}).`,
      ),
    );
  }
  if (read.status === "invalid") {
    return jsonRpcError(400, -32700, "Parse error: the body is not JSON.");
  }
  const body = read.value;
  if (Array.isArray(body) && body.length > MAX_MCP_BATCH_MESSAGES) {
    return jsonRpcError(
      400,
      -32600,
      `A batch may hold at most ${MAX_MCP_BATCH_MESSAGES} messages; this one has ${body.length}.`,
    );
  }

  const turnCalls = countTurnCalls(body);
  let releaseSlot = () => {};
  if (turnCalls > 0) {
    const limits = holdTurnLimits({
      userId: identity.actor.userId,
      turnCalls,
      slots: options.slots ?? userTurnSlots(),
      rate: options.rate ?? userTurnRate(),
    });
    if (!limits.ok) return limits.response;
    releaseSlot = limits.release;
  }
  try {
    return await answer(request, body, identity, options);
  } finally {
    releaseSlot();
  }
}

/**
 * One concurrent-turn slot for a request with turn calls (they run one after another inside it,
 * see `createCairnMcpServer`) and one token of the rate per call, or the 4xx to answer. Nothing is
 * taken when the request is refused.
 */
function holdTurnLimits(options: {
  userId: string;
  turnCalls: number;
  slots: TurnSlots;
  rate: TurnRate;
}): { ok: true; release: () => void } | { ok: false; response: Response } {
  const { userId, turnCalls, slots, rate } = options;
  if (turnCalls > rate.burst) {
    return {
      ok: false,
      response: jsonRpcError(
        400,
        -32600,
        `This request has ${turnCalls} memory or write calls; at most ${rate.burst} may be sent at once. Send fewer per batch.`,
      ),
    };
  }
  const slot = slots.tryAcquire(userId);
  if (!slot) {
    const limit = slots.maxPerUser;
    return {
      ok: false,
      response: jsonRpcError(
        429,
        -32000,
        `You already have ${limit} turn${limit === 1 ? "" : "s"} running (chat turns and MCP memory or write calls together). Wait for one to finish, then send again.`,
        { "Retry-After": "5" },
      ),
    };
  }
  const taken = rate.tryTake(userId, turnCalls);
  if (!taken.ok) {
    slot.release();
    return {
      ok: false,
      response: jsonRpcError(429, -32000, turnRateMessage(rate, taken.retryAfterSeconds), {
        "Retry-After": String(taken.retryAfterSeconds),
      }),
    };
  }
  return { ok: true, release: () => slot.release() };
}

async function answer(
  request: Request,
  body: unknown,
  authenticated: AccessTokenIdentity,
  options: HandleMcpRequestOptions,
): Promise<Response> {
  let identity = authenticated;
  const clientName = clientNameOf(body);
  if (clientName !== null && clientName !== identity.token.clientName) {
    await recordAccessTokenClient(options.sql, { id: identity.token.id, clientName });
    identity = { ...identity, token: { ...identity.token, clientName } };
  }

  const server = createCairnMcpServer({
    sql: options.sql,
    identity,
    dirs: options.dirs,
    harnessStorage: options.harnessStorage,
    requestRefinement: options.requestRefinement,
    requestFeedbackRefinement: options.requestFeedbackRefinement,
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
