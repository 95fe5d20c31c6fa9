import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { unclonedFetch } from "./uncloned-fetch";

let server: Server;
let origin: string;
const seen: string[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    request.on("end", () => {
      seen.push(`${request.method} ${request.url} ${body}`);
      if (request.url === "/moved") {
        response.writeHead(307, { location: "/v1/chat" }).end();
        return;
      }
      response.writeHead(200, { "content-type": "application/json" }).end(`{"echo":${body}}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("unclonedFetch", () => {
  it("sends a string body without a window and with redirect 'error'", async () => {
    const base = vi.fn(fetch);
    const response = await unclonedFetch(base)(`${origin}/v1/chat`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"a":1}',
    });
    expect(await response.json()).toEqual({ echo: { a: 1 } });
    expect(base).toHaveBeenCalledTimes(1);
    expect(base.mock.calls[0]![1]).toMatchObject({ window: null, redirect: "error" });
  });

  it("repeats a redirected call as given, so a model API behind a redirect still answers", async () => {
    seen.length = 0;
    const base = vi.fn(fetch);
    const response = await unclonedFetch(base)(`${origin}/moved`, {
      method: "POST",
      body: '{"b":2}',
    });
    expect(await response.json()).toEqual({ echo: { b: 2 } });
    expect(base).toHaveBeenCalledTimes(2);
    expect(base.mock.calls[1]![1]).not.toHaveProperty("redirect");
    // Refused at the redirect, then followed (307 keeps the method and body).
    expect(seen).toEqual(['POST /moved {"b":2}', 'POST /moved {"b":2}', 'POST /v1/chat {"b":2}']);
  });

  it("passes a stream body through unchanged (it cannot be sent twice)", async () => {
    const base = vi.fn(fetch);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"c":3}'));
        controller.close();
      },
    });
    const init = { method: "POST", body, duplex: "half" } as RequestInit;
    const response = await unclonedFetch(base)(`${origin}/v1/chat`, init);
    expect(await response.json()).toEqual({ echo: { c: 3 } });
    expect(base.mock.calls[0]![1]).toBe(init);
  });

  it("does not repeat a call that failed for another reason", async () => {
    const base = vi.fn(fetch);
    await expect(
      unclonedFetch(base)("http://127.0.0.1:1/v1/chat", { method: "POST", body: "{}" }),
    ).rejects.toThrow();
    expect(base).toHaveBeenCalledTimes(1);
  });
});
