import { describe, expect, it } from "vitest";
import { discardRestOfBody, readBodyWithLimit, readJsonWithLimit } from "./read-body-with-limit";

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

  it("drops at most maxBytes of what is left, then cancels the upload", async () => {
    const source = cancellable(450 * 1024 * 1024);
    discardRestOfBody(source.request, { maxBytes: 1024 * 1024, maxMs: 5_000 });
    await settle(200);
    expect(source.cancelled()).toBe(true);
    expect(source.produced()).toBeLessThan(1024 * 1024 + 4 * CHUNK);
  });

  it("stops after maxMs for a slow or stalled client", async () => {
    const source = cancellable(450 * 1024 * 1024, 20);
    const stalled = cancellable(450 * 1024 * 1024, 60_000);
    discardRestOfBody(stalled.request, { maxMs: 100 });
    discardRestOfBody(source.request, { maxBytes: 1024 * 1024 * 1024, maxMs: 100 });
    await settle(400);
    expect(source.cancelled()).toBe(true);
    expect(source.produced()).toBeLessThan(20 * CHUNK);
    expect(stalled.cancelled()).toBe(true);
  });

  it("reads a short rest to its end without cancelling, after readBodyWithLimit stopped", async () => {
    const source = cancellable(4 * CHUNK);
    expect((await readBodyWithLimit(source.request, { maxBytes: CHUNK })).status).toBe("too_large");
    discardRestOfBody(source.request);
    await settle(100);
    expect(source.produced()).toBe(4 * CHUNK);
    expect(source.cancelled()).toBe(false);
  });
});
