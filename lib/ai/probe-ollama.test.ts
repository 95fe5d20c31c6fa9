import { describe, expect, it } from "vitest";
import { clearOllamaProbeCache, isOllamaChatModel, probeOllama } from "./probe-ollama";
import { closedPortURL, registerTestServers } from "./internal/test-http";

describe("probeOllama", () => {
  const { serve, fakeOllama } = registerTestServers();

  it("lists the models of a server that answers like Ollama", async () => {
    const server = await fakeOllama(["nomic-embed-text:latest", "llama3.2:latest"]);
    const result = await probeOllama({ baseURL: `${server.url}/` });
    expect(result).toEqual({
      reachable: true,
      baseURL: server.url,
      models: [
        { name: "nomic-embed-text:latest", family: "nomic-bert" },
        { name: "llama3.2:latest", family: "llama" },
      ],
    });
    if (result.reachable) expect(result.models.filter(isOllamaChatModel)).toHaveLength(1);
  });

  it("reports a closed port as unreachable, quickly", async () => {
    const started = Date.now();
    const result = await probeOllama({ baseURL: await closedPortURL() });
    expect(result).toMatchObject({ reachable: false, reason: "connection refused" });
    expect(Date.now() - started).toBeLessThan(800);
  });

  it("gives up on a server that does not answer in time", async () => {
    const server = await serve(() => undefined); // accepts, never answers
    const result = await probeOllama({ baseURL: server.url, timeoutMs: 100 });
    expect(result).toMatchObject({ reachable: false, reason: "no answer within 100 ms" });
  });

  it("does not mistake another HTTP server for Ollama", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" }).end('{"hello":"world"}');
    });
    expect(await probeOllama({ baseURL: server.url })).toMatchObject({
      reachable: false,
      reason: "GET /api/tags did not answer like Ollama",
    });
    clearOllamaProbeCache();
    const missing = await serve((_req, res) => res.writeHead(404).end());
    expect(await probeOllama({ baseURL: missing.url })).toMatchObject({
      reachable: false,
      reason: "GET /api/tags answered 404",
    });
  });

  it("caches answers per base URL for 30 s and shares a probe in flight", async () => {
    const server = await fakeOllama(["llama3.2:latest"]);
    let time = 1_000;
    const now = () => time;
    await Promise.all([
      probeOllama({ baseURL: server.url, now }),
      probeOllama({ baseURL: server.url, now }),
    ]);
    time += 29_000;
    await probeOllama({ baseURL: server.url, now });
    expect(server.hits.get("/api/tags")).toBe(1);
    time += 2_000;
    await probeOllama({ baseURL: server.url, now });
    expect(server.hits.get("/api/tags")).toBe(2);
    clearOllamaProbeCache();
    await probeOllama({ baseURL: server.url, now });
    expect(server.hits.get("/api/tags")).toBe(3);
  });
});
