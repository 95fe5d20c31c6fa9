import {
  convertToModelMessages,
  createUIMessageStream,
  experimental_streamTextLowMemory as streamTextOnce,
  stepCountIs,
  type UIMessage,
} from "ai";
import { floorModel, memoryTools, nodeFetch, sseResponse, SYSTEM } from "../../floor";

export const dynamic = "force-dynamic";

/**
 * The same turn with the stream plumbing Cairn's route uses (decisions 0018, 0025, 0026): Node's
 * own fetch without undici's request copy, the single-consumer `streamText`, the UI stream built
 * in `createUIMessageStream` and written as coalesced SSE.
 */
export async function POST(request: Request) {
  const body = (await request.json()) as { messages: UIMessage[] };
  const messages = await convertToModelMessages(body.messages);
  const stream = createUIMessageStream({
    originalMessages: body.messages,
    execute: ({ writer }) => {
      const result = streamTextOnce({
        model: floorModel({ fetch: nodeFetch }),
        system: SYSTEM,
        messages,
        tools: memoryTools,
        stopWhen: stepCountIs(5),
      });
      writer.merge(result.toUIMessageStream());
    },
  });
  return sseResponse(stream);
}
