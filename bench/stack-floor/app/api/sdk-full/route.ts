import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import {
  convertToModelMessages,
  experimental_streamTextLowMemory as streamTextOnce,
  stepCountIs,
  tool,
  type UIMessage,
} from "ai";
import { z } from "zod";
import type { UIMessageChunk } from "ai";
import { unclonedFetch } from "../../../../../lib/ai/uncloned-fetch";
import { drainTurnStream } from "../../../../../lib/harness/turn/turn-stream";

export const dynamic = "force-dynamic";

const nodeFetch = (globalThis.fetch as typeof fetch & { _nextOriginalFetch?: typeof fetch })
  ._nextOriginalFetch;

/** `lean` without the SDK's UI stream: `fullStream` read here and mapped to UI chunks by hand. */
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
  let controller!: ReadableStreamDefaultController<UIMessageChunk>;
  const chunks = new ReadableStream<UIMessageChunk>({ start: (c) => void (controller = c) });
  void (async () => {
    controller.enqueue({ type: "start", messageId: crypto.randomUUID() });
    const reader = result.fullStream.getReader();
    for (;;) {
      const { done, value: part } = await reader.read();
      if (done) break;
      if (part.type === "start-step") controller.enqueue({ type: "start-step" });
      else if (part.type === "finish-step") controller.enqueue({ type: "finish-step" });
      else if (part.type === "text-start") controller.enqueue({ type: "text-start", id: part.id });
      else if (part.type === "text-delta")
        controller.enqueue({ type: "text-delta", id: part.id, delta: part.text });
      else if (part.type === "text-end") controller.enqueue({ type: "text-end", id: part.id });
      else if (part.type === "tool-call")
        controller.enqueue({
          type: "tool-input-available",
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          input: part.input,
        });
      else if (part.type === "tool-result")
        controller.enqueue({
          type: "tool-output-available",
          toolCallId: part.toolCallId,
          output: part.output,
        });
    }
    controller.enqueue({ type: "finish" });
    controller.close();
  })();
  return drainTurnStream(chunks).toUIMessageStreamResponse({
    headers: { "cache-control": "no-cache, no-transform" },
  });
}
