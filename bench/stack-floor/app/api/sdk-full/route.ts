import {
  convertToModelMessages,
  experimental_streamTextLowMemory as streamTextOnce,
  stepCountIs,
  type UIMessage,
  type UIMessageChunk,
} from "ai";
import { floorModel, memoryTools, nodeFetch, sseResponse, SYSTEM } from "../../floor";

export const dynamic = "force-dynamic";

/** `lean` without the SDK's UI stream: `fullStream` read here and mapped to UI chunks by hand. */
export async function POST(request: Request) {
  const body = (await request.json()) as { messages: UIMessage[] };
  const result = streamTextOnce({
    model: floorModel({ fetch: nodeFetch }),
    system: SYSTEM,
    messages: await convertToModelMessages(body.messages),
    tools: memoryTools,
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
  return sseResponse(chunks);
}
