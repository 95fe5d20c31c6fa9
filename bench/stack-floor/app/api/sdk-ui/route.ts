import {
  convertToModelMessages,
  experimental_streamTextLowMemory as streamTextOnce,
  stepCountIs,
  type UIMessage,
} from "ai";
import { floorModel, memoryTools, nodeFetch, sseResponse, SYSTEM } from "../../floor";

export const dynamic = "force-dynamic";

/** `lean` without `createUIMessageStream`: the result's UI stream goes to the response as it is. */
export async function POST(request: Request) {
  const body = (await request.json()) as { messages: UIMessage[] };
  const result = streamTextOnce({
    model: floorModel({ fetch: nodeFetch }),
    system: SYSTEM,
    messages: await convertToModelMessages(body.messages),
    tools: memoryTools,
    stopWhen: stepCountIs(5),
  });
  return sseResponse(result.toUIMessageStream());
}
