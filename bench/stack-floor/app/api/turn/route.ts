import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { convertToModelMessages, stepCountIs, streamText, tool, type UIMessage } from "ai";
import { z } from "zod";

export const dynamic = "force-dynamic";

const provider = createOpenAICompatible({
  name: "floor",
  baseURL: process.env.FLOOR_MODEL_URL ?? "http://127.0.0.1:1/v1",
  apiKey: "x",
});

/**
 * A chat turn as the AI SDK documents it, of the same shape as the chat-route bench's: the
 * model calls a memory tool (its result is a short string, nothing is stored), then streams its
 * answer; the UI message stream goes back as SSE. No database, no auth, no harness.
 */
export async function POST(request: Request) {
  const body = (await request.json()) as { messages: UIMessage[] };
  const result = streamText({
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
  return result.toUIMessageStreamResponse({ originalMessages: body.messages });
}
