import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { tool, type UIMessageChunk } from "ai";
import { z } from "zod";
import { unclonedFetch } from "../../../lib/ai/uncloned-fetch";
import { drainTurnStream } from "../../../lib/harness/turn/turn-stream";

// What the floor's routes share: the scripted model, the memory tool, and the SSE response.

export const MODEL_URL = process.env.FLOOR_MODEL_URL ?? "http://127.0.0.1:1/v1";
export const SYSTEM = "You are the floor of a chat turn.";

/** Node's own fetch (not Next's patched one) without undici's request copy, as Cairn's turn. */
export const nodeFetch = unclonedFetch(
  (globalThis.fetch as typeof fetch & { _nextOriginalFetch?: typeof fetch })._nextOriginalFetch ??
    fetch,
);

/** The scripted model through the OpenAI-compatible provider; `fetch` unset: the provider's own. */
export function floorModel(options: { fetch?: typeof fetch } = {}) {
  return createOpenAICompatible({
    name: "floor",
    baseURL: MODEL_URL,
    apiKey: "x",
    ...options,
  }).chatModel("scripted-model");
}

/** The memory tool the scripted model calls; its result is a short string, nothing is stored. */
export const memoryTools = {
  memory: tool({
    description: "Create a memory file.",
    inputSchema: z.object({ command: z.string(), path: z.string(), file_text: z.string() }),
    execute: async ({ path }) => `Created ${path}.`,
  }),
};

/** The same tool's input as JSON Schema, for the routes below the AI SDK's `tool()`. */
export const MEMORY_TOOL_PARAMETERS = {
  type: "object" as const,
  properties: {
    command: { type: "string" as const },
    path: { type: "string" as const },
    file_text: { type: "string" as const },
  },
  required: ["command", "path", "file_text"],
};

/** UI message chunks as Cairn writes them: one reader, coalesced SSE (`drainTurnStream`). */
export function sseResponse(chunks: ReadableStream<UIMessageChunk>): Response {
  return drainTurnStream(chunks).toUIMessageStreamResponse({
    headers: { "cache-control": "no-cache, no-transform" },
  });
}
