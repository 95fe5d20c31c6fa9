import type { LanguageModelV4Prompt, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import type { UIMessage, UIMessageChunk } from "ai";
import { floorModel, MEMORY_TOOL_PARAMETERS, nodeFetch, sseResponse, SYSTEM } from "../../floor";

export const dynamic = "force-dynamic";

const model = floorModel({ fetch: nodeFetch });
const MEMORY_TOOL = {
  type: "function" as const,
  name: "memory",
  description: "Create a memory file.",
  inputSchema: MEMORY_TOOL_PARAMETERS,
};

/**
 * The same turn on the AI SDK's provider, below `streamText`: the provider's `doStream` (its
 * fetch, SSE parsing and chunk mapping) driven by a step loop of a few lines that runs the tool
 * and writes the UI message chunks directly.
 */
export async function POST(request: Request) {
  const body = (await request.json()) as { messages: UIMessage[] };
  const prompt: LanguageModelV4Prompt = [
    { role: "system", content: SYSTEM },
    ...body.messages.map((message) => ({
      role: "user" as const,
      content: message.parts.flatMap((part) =>
        part.type === "text" ? [{ type: "text" as const, text: part.text }] : [],
      ),
    })),
  ];
  let controller!: ReadableStreamDefaultController<UIMessageChunk>;
  const chunks = new ReadableStream<UIMessageChunk>({ start: (c) => void (controller = c) });
  const run = async () => {
    controller.enqueue({ type: "start", messageId: crypto.randomUUID() });
    for (let step = 0; step < 5; step++) {
      controller.enqueue({ type: "start-step" });
      const { stream } = await model.doStream({ prompt, tools: [MEMORY_TOOL] });
      const calls: Extract<LanguageModelV4StreamPart, { type: "tool-call" }>[] = [];
      const reader = stream.getReader();
      for (;;) {
        const { done, value: part } = await reader.read();
        if (done) break;
        if (part.type === "text-start") controller.enqueue({ type: "text-start", id: part.id });
        else if (part.type === "text-delta")
          controller.enqueue({ type: "text-delta", id: part.id, delta: part.delta });
        else if (part.type === "text-end") controller.enqueue({ type: "text-end", id: part.id });
        else if (part.type === "tool-input-start")
          controller.enqueue({
            type: "tool-input-start",
            toolCallId: part.id,
            toolName: part.toolName,
          });
        else if (part.type === "tool-call") calls.push(part);
      }
      if (calls.length === 0) {
        controller.enqueue({ type: "finish-step" });
        break;
      }
      prompt.push({
        role: "assistant",
        content: calls.map((call) => ({
          type: "tool-call" as const,
          toolCallId: call.toolCallId,
          toolName: call.toolName,
          input: JSON.parse(call.input) as unknown,
        })),
      });
      for (const call of calls) {
        const input = JSON.parse(call.input) as { path: string };
        controller.enqueue({
          type: "tool-input-available",
          toolCallId: call.toolCallId,
          toolName: call.toolName,
          input,
        });
        const output = `Created ${input.path}.`;
        controller.enqueue({ type: "tool-output-available", toolCallId: call.toolCallId, output });
        prompt.push({
          role: "tool",
          content: [
            {
              type: "tool-result",
              toolCallId: call.toolCallId,
              toolName: call.toolName,
              output: { type: "text", value: output },
            },
          ],
        });
      }
      controller.enqueue({ type: "finish-step" });
    }
    controller.enqueue({ type: "finish" });
    controller.close();
  };
  void run().catch((error: unknown) => {
    controller.enqueue({ type: "error", errorText: String(error) });
    controller.close();
  });
  return sseResponse(chunks);
}
