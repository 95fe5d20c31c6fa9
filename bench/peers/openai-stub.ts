// A local OpenAI-compatible stub for mem0's LLM and embedder, so only mem0's own overhead counts:
// - `POST /v1/embeddings`: deterministic hashed bag-of-words vectors (DIMENSIONS, unit length);
// - `POST /v1/chat/completions` (not streamed): mem0's fact extraction gets
//   `{"facts": [<the user's message>]}`, its memory-update step gets one ADD of the new fact.
// Runs in the orchestrator's process, so its CPU is not charged to the system under test.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export const DIMENSIONS = 256;

export function embed(text: string): number[] {
  const vector = new Array<number>(DIMENSIONS).fill(0);
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    let hash = 2166136261;
    for (let index = 0; index < word.length; index++) {
      hash ^= word.charCodeAt(index);
      hash = Math.imul(hash, 16777619);
    }
    vector[(hash >>> 0) % DIMENSIONS]! += 1;
  }
  const norm = Math.hypot(...vector) || 1;
  return vector.map((value) => value / norm);
}

interface ChatBody {
  messages: Array<{ role: string; content: string | Array<{ text?: string }> }>;
}

const textOf = (content: ChatBody["messages"][number]["content"]) =>
  typeof content === "string" ? content : content.map((part) => part.text ?? "").join("");

/**
 * mem0 3.x makes one extraction call per `add` and expects `{"memory": [{id, text}]}`; older
 * versions asked for `{"facts": [...]}` and then an update step (`{"memory": [{…, event}]}`).
 * One answer serves all three: the new fact is the turn's user message.
 */
function answer(body: ChatBody): string {
  const all = body.messages.map((message) => textOf(message.content)).join("\n");
  const turns = [...all.matchAll(/user: (Turn \d+:[^\n"]*)/g)];
  const fact = (turns.at(-1)?.[1] ?? "a new fact").slice(0, 200);
  return JSON.stringify({
    facts: [fact],
    memory: [{ id: "0", text: fact, attributed_to: "user", event: "ADD" }],
  });
}

export interface Stub {
  baseURL: string;
  requests: { chat: number; embeddings: number };
  close(): Promise<void>;
}

export async function startOpenAIStub(): Promise<Stub> {
  const requests = { chat: 0, embeddings: 0 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as Record<
          string,
          unknown
        >;
      } catch {
        res.writeHead(400).end("bad json");
        return;
      }
      res.setHeader("content-type", "application/json");
      if (req.url?.endsWith("/embeddings")) {
        requests.embeddings++;
        const input = body.input as string | string[];
        const inputs = Array.isArray(input) ? input : [input];
        res.end(
          JSON.stringify({
            object: "list",
            model: body.model ?? "stub-embed",
            data: inputs.map((text, index) => ({
              object: "embedding",
              index,
              embedding: embed(text),
            })),
            usage: { prompt_tokens: 1, total_tokens: 1 },
          }),
        );
        return;
      }
      if (req.url?.endsWith("/chat/completions")) {
        requests.chat++;
        res.end(
          JSON.stringify({
            id: `chatcmpl-${requests.chat}`,
            object: "chat.completion",
            created: Math.floor(Date.now() / 1000),
            model: body.model ?? "stub",
            choices: [
              {
                index: 0,
                message: { role: "assistant", content: answer(body as unknown as ChatBody) },
                finish_reason: "stop",
              },
            ],
            usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
          }),
        );
        return;
      }
      res.writeHead(404).end(JSON.stringify({ error: { message: `no route ${req.url}` } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
