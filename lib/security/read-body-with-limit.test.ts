import { describe, expect, it } from "vitest";
import {
  discardRestOfBody,
  readBodyWithLimit,
  readJsonWithLimit,
  refuseBody,
} from "./read-body-with-limit";

const CHUNK = 64 * 1024;

/** A pull stream's reader in the test: the body's source is cancelled or not. */
function cancellable(totalBytes: number, delayMs = 0) {
  let produced = 0;
  let cancelled = false;
  const chunk = new Uint8Array(CHUNK);
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
      if (produced >= totalBytes) return controller.close();
      produced += CHUNK;
      controller.enqueue(chunk.slice());
    },
    cancel() {
      cancelled = true;
    },
  });
  const request = new Request("http://localhost/", {
    method: "POST",
    body,
    duplex: "half",
  } as RequestInit & { duplex: "half" });
  return { request, produced: () => produced, cancelled: () => cancelled };
}

/**
 * A request whose body is a chunked stream of `totalBytes` of JSON-ish filler, made on demand
 * (pull), with no Content-Length; `produced()` says how many bytes the reader pulled.
 */
function streamedRequest(totalBytes: number, headers: Record<string, string> = {}) {
  let produced = 0;
  const chunk = new Uint8Array(CHUNK).fill(0x20);
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (produced >= totalBytes) return controller.close();
      const size = Math.min(CHUNK, totalBytes - produced);
      produced += size;
      controller.enqueue(size === CHUNK ? chunk.slice() : chunk.slice(0, size));
    },
  });
  const request = new Request("http://localhost/api/chat", {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
    duplex: "half",
  } as RequestInit & { duplex: "half" });
  return { request, produced: () => produced };
}

describe("readBodyWithLimit", () => {
  it("stops reading a chunked body soon after the limit instead of consuming it whole", async () => {
    const { request, produced } = streamedRequest(450 * 1024 * 1024);
    const result = await readBodyWithLimit(request, { maxBytes: 256 * 1024 });
    expect(result).toEqual({ status: "too_large", maxBytes: 256 * 1024 });
    // The limit plus the chunk that passed it and what the streams had queued: far from 450 MB.
    expect(produced()).toBeLessThan(256 * 1024 + 8 * CHUNK);
  });

  it("refuses a declared Content-Length over the limit without reading a byte", async () => {
    const { request, produced } = streamedRequest(10 * 1024 * 1024, {
      "content-length": String(10 * 1024 * 1024),
    });
    expect(await readBodyWithLimit(request, { maxBytes: 1024 })).toEqual({
      status: "too_large",
      maxBytes: 1024,
    });
    // Nothing read: at most the one chunk a stream pulls ahead when it is made.
    expect(produced()).toBeLessThanOrEqual(CHUNK);
  });

  it("returns a body at the limit whole, and an absent body as empty", async () => {
    const { request } = streamedRequest(256 * 1024);
    const result = await readBodyWithLimit(request, { maxBytes: 256 * 1024 });
    expect(result.status).toBe("ok");
    expect(result.status === "ok" && result.bytes.byteLength).toBe(256 * 1024);
    const empty = await readBodyWithLimit(new Request("http://localhost/", { method: "POST" }), {
      maxBytes: 10,
    });
    expect(empty.status === "ok" && empty.bytes.byteLength).toBe(0);
  });
});

describe("readJsonWithLimit", () => {
  const post = (body: BodyInit) => new Request("http://localhost/", { method: "POST", body });

  it("parses JSON under the limit", async () => {
    expect(await readJsonWithLimit(post('{"chatId":"c1","n":[1,2]}'), { maxBytes: 100 })).toEqual({
      status: "ok",
      value: { chatId: "c1", n: [1, 2] },
    });
  });

  it("answers malformed JSON and bytes that are not UTF-8 as invalid", async () => {
    expect(await readJsonWithLimit(post('{"chatId":'), { maxBytes: 100 })).toEqual({
      status: "invalid",
      error: "The request body must be JSON.",
    });
    expect(
      await readJsonWithLimit(post(new Uint8Array([0x22, 0xff, 0xfe, 0x22])), { maxBytes: 100 }),
    ).toEqual({ status: "invalid", error: "The request body must be UTF-8 JSON." });
  });

  it("names the limit when the body is over it", async () => {
    const { request } = streamedRequest(300 * 1024);
    expect(await readJsonWithLimit(request, { maxBytes: 256 * 1024 })).toEqual({
      status: "too_large",
      maxBytes: 256 * 1024,
      error: "The request body is larger than 256 KiB.",
    });
  });
});

describe("discardRestOfBody", () => {
  const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it("drops at most maxBytes of what is left, resolves, then cancels the upload after the grace", async () => {
    const source = cancellable(450 * 1024 * 1024);
    await discardRestOfBody(source.request, { maxBytes: 1024 * 1024, maxMs: 5_000, graceMs: 100 });
    expect(source.produced()).toBeLessThan(1024 * 1024 + 4 * CHUNK);
    // Not yet: an answer held open until now ends first.
    expect(source.cancelled()).toBe(false);
    await settle(250);
    expect(source.cancelled()).toBe(true);
  });

  it("stops after maxMs for a slow or stalled client", async () => {
    const source = cancellable(450 * 1024 * 1024, 20);
    const stalled = cancellable(450 * 1024 * 1024, 60_000);
    const options = { maxMs: 100, graceMs: 0 };
    await Promise.all([
      discardRestOfBody(stalled.request, options),
      discardRestOfBody(source.request, { ...options, maxBytes: 1024 * 1024 * 1024 }),
    ]);
    await settle(50);
    expect(source.cancelled()).toBe(true);
    expect(source.produced()).toBeLessThan(20 * CHUNK);
    expect(stalled.cancelled()).toBe(true);
  });

  it("reads a short rest to its end without cancelling, after readBodyWithLimit stopped", async () => {
    const source = cancellable(4 * CHUNK);
    expect((await readBodyWithLimit(source.request, { maxBytes: CHUNK })).status).toBe("too_large");
    await discardRestOfBody(source.request, { graceMs: 0 });
    await settle(50);
    expect(source.produced()).toBe(4 * CHUNK);
    expect(source.cancelled()).toBe(false);
  });
});

describe("refuseBody", () => {
  it("sends the answer at once and ends it only once the rest of the upload is dropped", async () => {
    const source = cancellable(450 * 1024 * 1024, 5);
    const started = performance.now();
    const answer = await refuseBody(
      source.request,
      Response.json({ error: "Sign in first." }, { status: 401 }),
      { maxMs: 300, graceMs: 50 },
    );
    expect(answer.status).toBe(401);
    expect(answer.headers.get("content-type")).toBe("application/json");
    const reader = answer.body!.getReader();
    const first = await reader.read();
    expect(JSON.parse(new TextDecoder().decode(first.value))).toEqual({ error: "Sign in first." });
    const droppedBeforeAnswer = source.produced();
    expect((await reader.read()).done).toBe(true);
    // Held open while the client was still sending, read and dropped after the answer went out:
    // the connection is not cut under the answer.
    expect(source.produced()).toBeGreaterThan(droppedBeforeAnswer);
    expect(performance.now() - started).toBeGreaterThanOrEqual(250);
    expect(source.cancelled()).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(source.cancelled()).toBe(true);
  });

  it("ends the answer as soon as a request without a body, or with its body read, is answered", async () => {
    const noBody = await refuseBody(
      new Request("http://localhost/api/mcp", { method: "GET" }),
      new Response("no", { status: 405, headers: { allow: "POST" } }),
    );
    expect(noBody.status).toBe(405);
    expect(noBody.headers.get("allow")).toBe("POST");
    expect(await noBody.text()).toBe("no");

    const read = cancellable(2 * CHUNK);
    await read.request.arrayBuffer();
    const answered = await refuseBody(read.request, new Response(null, { status: 413 }));
    expect(answered.status).toBe(413);
    expect(await answered.text()).toBe("");
  });
});
