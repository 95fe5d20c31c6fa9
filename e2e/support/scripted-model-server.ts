/**
 * A scripted OpenAI-compatible model server on loopback, so end-to-end tests run the real provider
 * path (`@ai-sdk/openai-compatible` → `POST {baseURL}/chat/completions`, streamed as SSE).
 *
 * In-process: `const server = await startScriptedModelServer(); server.setScript([...])`.
 * From another process (Playwright tests drive a Next server that calls this one):
 *
 *     node --import tsx e2e/support/scripted-model-server.ts --port 3199
 *     AI_PROVIDER=openai-compatible AI_BASE_URL=http://127.0.0.1:3199/v1 AI_MODEL=scripted-model
 *
 * and control it over HTTP: `POST /__script` (declarative rules), `GET /__requests`,
 * `POST /__reset`, `GET /__health`. Only the standard library is used.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";

/** One message of a Chat Completions request, loosely typed: assert on what arrived. */
export interface ChatMessage {
  role: "system" | "developer" | "user" | "assistant" | "tool" | (string & {});
  content?: string | Array<{ type: string; text?: string }> | null;
  tool_calls?: Array<{
    id: string;
    type: "function";
    function: { name: string; arguments: string };
  }>;
  tool_call_id?: string;
  [key: string]: unknown;
}

/** A `POST /chat/completions` body as received (parsed JSON), recorded in arrival order. */
export interface RecordedRequest {
  model: string;
  messages: ChatMessage[];
  stream?: boolean;
  tools?: Array<{
    type: "function";
    function: { name: string; description?: string; parameters?: unknown };
  }>;
  [key: string]: unknown;
}

/** One tool call the scripted model makes. */
export interface ScriptedToolCall {
  name: string;
  arguments: Record<string, unknown>;
  /** Defaults to `call_<n>`, unique per server. */
  id?: string;
}

/**
 * What the scripted model answers:
 * - `{ text }`: an answer, streamed word by word;
 * - `{ toolCalls }`: a tool-call turn (finish reason `tool_calls`); the client runs the tools and
 *   its next request carries the results as `tool` messages;
 * - `{ error: { status, body } }`: an HTTP error instead of an answer (`body` defaults to an
 *   OpenAI-style `{ error: { message, type } }`; objects are sent as JSON);
 * - `{ streamError }`: starts streaming (`text` first, if any), then sends an error event
 *   (without streaming: a 500 with that error).
 *
 * `delayMs` pauses before each streamed chunk, so `{ text, delayMs }` streams slowly; without
 * streaming (structured-output calls such as the refinement planner) it pauses once before the
 * answer.
 */
export type ScriptedReply =
  | { text: string; delayMs?: number }
  | { toolCalls: ScriptedToolCall[]; text?: string; delayMs?: number }
  | { error: { status: number; body?: unknown; headers?: Record<string, string> } }
  | {
      streamError: { message: string; type?: string; code?: string };
      text?: string;
      delayMs?: number;
    };

/**
 * A declarative rule: every condition given must hold. Serializable, so `POST /__script` takes it.
 * `whenLastIsToolResult` defaults to `false`: a rule answers a fresh user message unless it asks
 * for tool results. Without that default, a rule that calls a tool when the user said "teal" would
 * match again on the follow-up request (the last user message still says "teal") and loop.
 */
export interface DeclarativeRule {
  /** The most recent user message contains this substring. */
  whenLastUserIncludes?: string;
  /** A system (or developer) message contains this substring. */
  whenSystemIncludes?: string;
  /** `true`: only when the last message is a tool result; `false` (default): only when not. */
  whenLastIsToolResult?: boolean;
  /** Use the rule at most this many times (then it is skipped); unlimited by default. */
  times?: number;
  reply: ScriptedReply;
}

/** A rule for in-process use: declarative conditions plus an optional predicate and reply function. */
export interface ScriptRule extends Omit<DeclarativeRule, "reply"> {
  match?: (request: RecordedRequest) => boolean;
  reply: ScriptedReply | ((request: RecordedRequest) => ScriptedReply);
}

/** A running scripted server. */
export interface ScriptedModelServer {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** `http://127.0.0.1:<port>/v1`: the `baseURL` / `AI_BASE_URL` to give the provider. */
  baseURL: string;
  port: number;
  /** The model id `/v1/models` lists and answers carry. */
  modelId: string;
  /** Every chat completion request body, in order. Cleared in place by `reset()`. */
  requests: RecordedRequest[];
  /** Replaces the script; the first rule that matches a request answers it. */
  setScript(rules: ScriptRule[]): void;
  /** Forgets the script and the recorded requests. */
  reset(): void;
  close(): Promise<void>;
}

/** Options of {@link startScriptedModelServer}. */
export interface ScriptedModelServerOptions {
  /** Defaults to 0: a free port. */
  port?: number;
  /** Defaults to `scripted-model`. */
  modelId?: string;
}

/**
 * Starts the server on 127.0.0.1. With no rule matching, it answers a tool result with a short
 * acknowledgement that quotes it, and anything else with `You said: <last user message>`.
 * Streams always end with a usage chunk, whether or not `stream_options.include_usage` was sent.
 */
export async function startScriptedModelServer(
  options: ScriptedModelServerOptions = {},
): Promise<ScriptedModelServer> {
  const modelId = options.modelId ?? "scripted-model";
  const requests: RecordedRequest[] = [];
  let rules: Array<{ rule: ScriptRule; used: number }> = [];
  let nextId = 1;

  const reset = () => {
    requests.length = 0;
    rules = [];
  };
  const setScript = (script: ScriptRule[]) => {
    rules = script.map((rule) => ({ rule, used: 0 }));
  };

  const chooseReply = (request: RecordedRequest): ScriptedReply => {
    for (const entry of rules) {
      const { rule } = entry;
      if (rule.times !== undefined && entry.used >= rule.times) continue;
      if (!matches(rule, request)) continue;
      entry.used += 1;
      return typeof rule.reply === "function" ? rule.reply(request) : rule.reply;
    }
    return defaultReply(request);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname.replace(/\/+$/, "") || "/";
    if (req.method === "GET" && (path === "/__health" || path === "/"))
      return sendJson(res, 200, { ok: true });
    if (req.method === "GET" && path === "/__requests") return sendJson(res, 200, requests);
    if (req.method === "POST" && path === "/__reset") {
      reset();
      return sendJson(res, 200, { ok: true });
    }
    if (req.method === "POST" && path === "/__script") {
      const parsed = parseDeclarativeScript(await readJson(req));
      if (typeof parsed === "string") return sendJson(res, 400, { error: parsed });
      setScript(parsed);
      return sendJson(res, 200, { ok: true, rules: parsed.length });
    }
    if (req.method === "GET" && (path === "/v1/models" || path === "/models"))
      return sendJson(res, 200, {
        object: "list",
        data: [{ id: modelId, object: "model", created: 0, owned_by: "cairn-e2e" }],
      });
    if (
      req.method === "POST" &&
      (path === "/v1/chat/completions" || path === "/chat/completions")
    ) {
      const body = await readJson(req);
      if (!isChatRequest(body))
        return sendJson(res, 400, {
          error: { message: "Expected a chat completion request.", type: "invalid_request_error" },
        });
      requests.push(body);
      const reply = chooseReply(body);
      const id = () => `call_${nextId++}`;
      if (body.stream) return streamReply({ res, reply, request: body, modelId, id });
      // Without streaming, `delayMs` is one pause before the whole answer (a slow planner).
      if ("delayMs" in reply && reply.delayMs) await sleep(reply.delayMs);
      return answerReply({ res, reply, request: body, modelId, id });
    }
    sendJson(res, 404, { error: { message: `No route ${req.method} ${path}`, type: "not_found" } });
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent)
        sendJson(res, 500, { error: { message: String(error), type: "server_error" } });
      else res.destroy();
    });
  });
  // Idle sockets stay open longer than a loaded test worker may take between two calls.
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;

  return {
    url,
    baseURL: `${url}/v1`,
    port,
    modelId,
    requests,
    setScript,
    reset,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** The text of the most recent user message ("" when there is none). */
export function lastUserText(request: RecordedRequest): string {
  const message = request.messages.findLast((item) => item.role === "user");
  return message ? messageText(message) : "";
}

/** The system and developer messages' text, joined by blank lines. */
export function systemText(request: RecordedRequest): string {
  return request.messages
    .filter((item) => item.role === "system" || item.role === "developer")
    .map(messageText)
    .join("\n\n");
}

/** Whether the request ends with tool results (the model is to continue after its tool calls). */
export function lastIsToolResult(request: RecordedRequest): boolean {
  return request.messages.at(-1)?.role === "tool";
}

function matches(rule: ScriptRule, request: RecordedRequest): boolean {
  if (lastIsToolResult(request) !== (rule.whenLastIsToolResult ?? false)) return false;
  if (
    rule.whenLastUserIncludes !== undefined &&
    !lastUserText(request).includes(rule.whenLastUserIncludes)
  )
    return false;
  if (
    rule.whenSystemIncludes !== undefined &&
    !systemText(request).includes(rule.whenSystemIncludes)
  )
    return false;
  return rule.match ? rule.match(request) : true;
}

function defaultReply(request: RecordedRequest): ScriptedReply {
  if (lastIsToolResult(request)) {
    const results = request.messages
      .slice(request.messages.findLastIndex((item) => item.role !== "tool") + 1)
      .map((item) => messageText(item).slice(0, 200));
    return { text: `Done. Tool result: ${results.join(" | ")}` };
  }
  return { text: `You said: ${lastUserText(request)}` };
}

function messageText(message: ChatMessage): string {
  const { content } = message;
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content.map((part) => (typeof part.text === "string" ? part.text : "")).join("");
  return "";
}

interface ReplyContext {
  res: ServerResponse;
  reply: ScriptedReply;
  request: RecordedRequest;
  modelId: string;
  id: () => string;
}

function sendError(
  res: ServerResponse,
  error: Extract<ScriptedReply, { error: unknown }>["error"],
) {
  const body = error.body ?? {
    error: { message: `Scripted error ${error.status}`, type: "scripted_error" },
  };
  const text = typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(error.status, {
    "content-type": typeof body === "string" ? "text/plain" : "application/json",
    ...error.headers,
  });
  res.end(text);
}

function answerReply({ res, reply, request, modelId, id }: ReplyContext): void {
  if ("error" in reply) return sendError(res, reply.error);
  // Without streaming there is no "midway": the error is the whole answer.
  if ("streamError" in reply) return sendJson(res, 500, { error: reply.streamError });
  const toolCalls = "toolCalls" in reply ? reply.toolCalls : [];
  const text = reply.text;
  const calls = toolCalls.map((call) => ({
    id: call.id ?? id(),
    type: "function" as const,
    function: { name: call.name, arguments: JSON.stringify(call.arguments) },
  }));
  sendJson(res, 200, {
    id: `chatcmpl-${Date.now()}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: modelId,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: text ?? null,
          ...(calls.length > 0 && { tool_calls: calls }),
        },
        finish_reason: calls.length > 0 ? "tool_calls" : "stop",
      },
    ],
    usage: usageFor(request, `${text ?? ""}${JSON.stringify(calls)}`),
  });
}

async function streamReply({ res, reply, request, modelId, id }: ReplyContext): Promise<void> {
  if ("error" in reply) return sendError(res, reply.error);
  res.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
  });
  const completionId = `chatcmpl-${Date.now()}`;
  const created = Math.floor(Date.now() / 1000);
  const delayMs = reply.delayMs ?? 0;
  let closed = false;
  res.on("close", () => {
    closed = true;
  });
  const send = async (data: unknown, pause = true) => {
    if (pause && delayMs > 0) await sleep(delayMs);
    if (!closed) res.write(`data: ${JSON.stringify(data)}\n\n`);
  };
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => ({
    id: completionId,
    object: "chat.completion.chunk",
    created,
    model: modelId,
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  });

  await send(chunk({ role: "assistant", content: "" }), false);
  const text = reply.text ?? "";
  for (const piece of text.match(/\S+\s*|\s+/g) ?? []) await send(chunk({ content: piece }));

  if ("streamError" in reply) {
    await send({ error: reply.streamError });
    res.end();
    return;
  }

  const toolCalls = "toolCalls" in reply ? reply.toolCalls : [];
  let output = text;
  for (const [index, call] of toolCalls.entries()) {
    const args = JSON.stringify(call.arguments);
    output += args;
    // Like OpenAI: the first delta names the call, later deltas carry the arguments in pieces.
    await send(
      chunk({
        tool_calls: [
          {
            index,
            id: call.id ?? id(),
            type: "function",
            function: { name: call.name, arguments: "" },
          },
        ],
      }),
    );
    for (const piece of splitEvery(args, 16))
      await send(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }), false);
  }
  await send(chunk({}, toolCalls.length > 0 ? "tool_calls" : "stop"), false);
  await send(
    {
      id: completionId,
      object: "chat.completion.chunk",
      created,
      model: modelId,
      choices: [],
      usage: usageFor(request, output),
    },
    false,
  );
  if (!closed) res.write("data: [DONE]\n\n");
  res.end();
}

// Rough token counts (4 characters a token): enough for traces and context accounting in tests.
function usageFor(request: RecordedRequest, output: string) {
  const promptTokens = Math.ceil(JSON.stringify(request.messages).length / 4);
  const completionTokens = Math.ceil(output.length / 4);
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
  };
}

function splitEvery(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let start = 0; start < text.length; start += size)
    pieces.push(text.slice(start, start + size));
  return pieces;
}

function sleep(ms: number) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const piece of req) chunks.push(piece as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isChatRequest(body: unknown): body is RecordedRequest {
  return (
    typeof body === "object" && body !== null && "messages" in body && Array.isArray(body.messages)
  );
}

const ruleKeys = new Set([
  "whenLastUserIncludes",
  "whenSystemIncludes",
  "whenLastIsToolResult",
  "times",
  "reply",
]);

/** Validates a `POST /__script` body: an array of rules or `{ rules }`. A string is the error. */
function parseDeclarativeScript(body: unknown): DeclarativeRule[] | string {
  const list =
    typeof body === "object" && body !== null && !Array.isArray(body) && "rules" in body
      ? body.rules
      : body;
  if (!Array.isArray(list)) return "Expected an array of rules, or { rules: [...] }.";
  for (const [index, rule] of (list as unknown[]).entries()) {
    if (typeof rule !== "object" || rule === null) return `Rule ${index} is not an object.`;
    const unknownKey = Object.keys(rule).find((key) => !ruleKeys.has(key));
    if (unknownKey) return `Rule ${index} has an unknown key "${unknownKey}".`;
    const reply = (rule as { reply?: unknown }).reply;
    if (
      typeof reply !== "object" ||
      reply === null ||
      !["text", "toolCalls", "error", "streamError"].some((key) => key in reply)
    )
      return `Rule ${index} needs a reply with text, toolCalls, error or streamError.`;
  }
  return list as DeclarativeRule[];
}

/** Client for a server in another process (Playwright tests): same script API over HTTP. */
export function scriptedModelServerClient(url: string) {
  const origin = url.replace(/\/v1\/?$/, "").replace(/\/+$/, "");
  // Every control call is idempotent (replace the script, read the log, reset), so a call that
  // met a kept-alive socket the server had just closed ("other side closed") is sent once more.
  const send = (method: "GET" | "POST", path: string, body?: unknown) =>
    fetch(`${origin}${path}`, {
      method,
      headers: { "content-type": "application/json" },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
  const call = async (method: "GET" | "POST", path: string, body?: unknown) => {
    const response = await send(method, path, body).catch((error: unknown) => {
      if (!(error instanceof TypeError)) throw error;
      return send(method, path, body);
    });
    if (!response.ok)
      throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as unknown;
  };
  return {
    /** Replaces the script (declarative rules only: functions cannot cross processes). */
    setScript: async (rules: DeclarativeRule[]) => {
      await call("POST", "/__script", { rules });
    },
    /** The recorded chat completion requests, in order. */
    requests: async () => (await call("GET", "/__requests")) as RecordedRequest[],
    reset: async () => {
      await call("POST", "/__reset");
    },
  };
}

/** CLI: `node --import tsx e2e/support/scripted-model-server.ts [--port 3199] [--model id]`. */
async function main(argv: string[]): Promise<void> {
  const option = (name: string) => {
    const index = argv.indexOf(`--${name}`);
    return index >= 0 ? argv[index + 1] : undefined;
  };
  const port = Number(option("port") ?? process.env.SCRIPTED_MODEL_PORT ?? 3199);
  const server = await startScriptedModelServer({ port, modelId: option("model") });
  console.log(`scripted model server listening on ${server.baseURL} (model ${server.modelId})`);
  const stop = () => {
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
