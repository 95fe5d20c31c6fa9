import type { UIMessage, UIMessageChunk } from "ai";
import { MEMORY_TOOL_PARAMETERS, MODEL_URL, nodeFetch, sseResponse, SYSTEM } from "../../floor";

export const dynamic = "force-dynamic";

type ChatMessage = Record<string, unknown>;
interface Delta {
  content?: string;
  tool_calls?: { index: number; id?: string; function?: { name?: string; arguments?: string } }[];
}

const TOOLS = [
  {
    type: "function",
    function: {
      name: "memory",
      description: "Create a memory file.",
      parameters: MEMORY_TOOL_PARAMETERS,
    },
  },
];

/** One streamed chat completion: its SSE events parsed by hand. */
async function* complete(
  messages: ChatMessage[],
): AsyncGenerator<{ delta: Delta; finish: string | null }> {
  const response = await nodeFetch(`${MODEL_URL}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer x" },
    body: JSON.stringify({ model: "scripted-model", messages, tools: TOOLS, stream: true }),
  });
  if (!response.ok || !response.body) throw new Error(`model: HTTP ${response.status}`);
  const decoder = new TextDecoder();
  let buffer = "";
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      if (!event.startsWith("data: ") || event === "data: [DONE]") continue;
      const parsed = JSON.parse(event.slice(6)) as {
        choices?: { delta?: Delta; finish_reason?: string | null }[];
      };
      const choice = parsed.choices?.[0];
      if (choice) yield { delta: choice.delta ?? {}, finish: choice.finish_reason ?? null };
    }
  }
}

/**
 * The same turn without the AI SDK: the provider's HTTP and SSE by hand, the tool run inline,
 * the UI message chunks written directly — what the stack costs below the AI SDK (Next's
 * request path, undici, the SSE response).
 */
export async function POST(request: Request) {
  const body = (await request.json()) as { messages: UIMessage[] };
  const messages: ChatMessage[] = [
    { role: "system", content: SYSTEM },
    ...body.messages.map((message) => ({
      role: message.role,
      content: message.parts.map((part) => (part.type === "text" ? part.text : "")).join(""),
    })),
  ];
  let controller!: ReadableStreamDefaultController<UIMessageChunk>;
  const chunks = new ReadableStream<UIMessageChunk>({ start: (c) => void (controller = c) });
  const run = async () => {
    controller.enqueue({ type: "start", messageId: crypto.randomUUID() });
    for (let step = 0; step < 5; step++) {
      controller.enqueue({ type: "start-step" });
      const calls: { id: string; name: string; arguments: string }[] = [];
      let textId: string | null = null;
      for await (const { delta } of complete(messages)) {
        if (delta.content) {
          if (!textId) controller.enqueue({ type: "text-start", id: (textId = "t" + step) });
          controller.enqueue({ type: "text-delta", id: textId, delta: delta.content });
        }
        for (const call of delta.tool_calls ?? []) {
          const known = (calls[call.index] ??= { id: call.id ?? "", name: "", arguments: "" });
          if (call.function?.name) {
            known.name = call.function.name;
            controller.enqueue({
              type: "tool-input-start",
              toolCallId: known.id,
              toolName: known.name,
            });
          }
          if (call.function?.arguments) known.arguments += call.function.arguments;
        }
      }
      if (textId) controller.enqueue({ type: "text-end", id: textId });
      if (calls.length === 0) {
        controller.enqueue({ type: "finish-step" });
        break;
      }
      messages.push({
        role: "assistant",
        content: null,
        tool_calls: calls.map((call) => ({
          id: call.id,
          type: "function",
          function: { name: call.name, arguments: call.arguments },
        })),
      });
      for (const call of calls) {
        const input = JSON.parse(call.arguments) as { path: string };
        controller.enqueue({
          type: "tool-input-available",
          toolCallId: call.id,
          toolName: call.name,
          input,
        });
        const output = `Created ${input.path}.`;
        controller.enqueue({ type: "tool-output-available", toolCallId: call.id, output });
        messages.push({ role: "tool", tool_call_id: call.id, content: output });
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
