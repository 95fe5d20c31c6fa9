import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import {
  convertToModelMessages,
  experimental_streamTextLowMemory as streamTextOnce,
  stepCountIs,
  tool,
  type UIMessage,
} from "ai";
import { z } from "zod";
import { unclonedFetch } from "../../../../../lib/ai/uncloned-fetch";
import { drainTurnStream } from "../../../../../lib/harness/turn/turn-stream";

export const dynamic = "force-dynamic";

const nodeFetch = (globalThis.fetch as typeof fetch & { _nextOriginalFetch?: typeof fetch })
  ._nextOriginalFetch;

/** `lean` without `createUIMessageStream`: the result's UI stream goes to the response as it is. */
export async function POST(request: Request) {
  const body = (await request.json()) as { messages: UIMessage[] };
  const provider = createOpenAICompatible({
    name: "floor",
    baseURL: process.env.FLOOR_MODEL_URL ?? "http://127.0.0.1:1/v1",
    apiKey: "x",
    fetch: unclonedFetch(nodeFetch ?? fetch),
  });
  const result = streamTextOnce({
    model: provider.chatModel("scripted-model"),
    system: "You are the floor of a chat turn.",
    messages: await convertToModelMessages(body.messages),
    tools: {
      memory: tool({
        description: "Create a memory file.",
        inputSchema: z.object({ command: z.string(), path: z.string(), file_text: z.string() }),
        execute: async ({ path }) => `Created ${path}.`,
      }),
    },
    stopWhen: stepCountIs(5),
  });
  return drainTurnStream(result.toUIMessageStream()).toUIMessageStreamResponse({
    headers: { "cache-control": "no-cache, no-transform" },
  });
}
