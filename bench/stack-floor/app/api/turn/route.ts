import { convertToModelMessages, stepCountIs, streamText, type UIMessage } from "ai";
import { floorModel, memoryTools, SYSTEM } from "../../floor";

export const dynamic = "force-dynamic";

/**
 * A chat turn as the AI SDK documents it, of the same shape as the chat-route bench's: the
 * model calls a memory tool, then streams its answer; the UI message stream goes back as SSE.
 * No database, no auth, no harness.
 */
export async function POST(request: Request) {
  const body = (await request.json()) as { messages: UIMessage[] };
  const result = streamText({
    model: floorModel(),
    system: SYSTEM,
    messages: await convertToModelMessages(body.messages),
    tools: memoryTools,
    stopWhen: stepCountIs(5),
  });
  return result.toUIMessageStreamResponse({ originalMessages: body.messages });
}
