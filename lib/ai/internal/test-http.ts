// Test helpers: tiny loopback HTTP servers. Not exported from index.ts.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach } from "vitest";
import { clearOllamaProbeCache } from "../probe-ollama";

/** A loopback server answering with `handler`; `hits` counts requests per path. */
export async function startTestServer(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ url: string; hits: Map<string, number>; close: () => Promise<void> }> {
  const hits = new Map<string, number>();
  const server = createServer((req, res) => {
    const path = req.url ?? "/";
    hits.set(path, (hits.get(path) ?? 0) + 1);
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A loopback URL on which nothing listens (a port just released). */
export async function closedPortURL(): Promise<string> {
  const server = await startTestServer(() => undefined);
  await server.close();
  return server.url;
}

/** Ollama's `GET /api/tags` answer listing `names`, the first as an embedding model if asked. */
export function ollamaTags(names: string[]) {
  return {
    models: names.map((name) => ({
      name,
      model: name,
      details: { family: name.includes("embed") ? "nomic-bert" : "llama" },
    })),
  };
}

/**
 * For the `describe` block this is called in: each test starts with an empty Ollama probe cache,
 * and every server made through `serve` or `fakeOllama` is closed after it. `fakeOllama` answers
 * `GET /api/tags` with `names` like Ollama, anything else with 404.
 */
export function registerTestServers() {
  const cleanups: Array<() => Promise<void>> = [];
  beforeEach(() => clearOllamaProbeCache());
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });
  const serve = async (handler: Parameters<typeof startTestServer>[0]) => {
    const server = await startTestServer(handler);
    cleanups.push(server.close);
    return server;
  };
  const fakeOllama = (names: string[]) =>
    serve((req, res) => {
      if (req.url === "/api/tags") {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(ollamaTags(names)));
      } else {
        res.writeHead(404).end();
      }
    });
  return { serve, fakeOllama };
}
