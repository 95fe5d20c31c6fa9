import type { UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { drainTurnStream } from "./turn-stream";

/** A UI chunk stream the test writes to. */
function source() {
  let controller!: ReadableStreamDefaultController<UIMessageChunk>;
  let pulled = 0;
  const stream = new ReadableStream<UIMessageChunk>({
    start(c) {
      controller = c;
    },
    pull() {
      pulled += 1;
    },
  });
  return { stream, controller, pulled: () => pulled };
}

const delta = (text: string): UIMessageChunk => ({ type: "text-delta", id: "t", delta: text });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Reads the body's writes as they come, with their text. */
async function readWrites(response: Response): Promise<string[]> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const writes: string[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return writes;
    writes.push(decoder.decode(value));
  }
}

describe("drainTurnStream", () => {
  it("writes the AI SDK's SSE format and headers, the events of one burst in one write", async () => {
    const { stream, controller } = source();
    const outlet = drainTurnStream(stream);
    const response = outlet.toUIMessageStreamResponse({
      headers: { "cache-control": "no-cache, no-transform" },
    });
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(response.headers.get("cache-control")).toBe("no-cache, no-transform");
    expect(response.headers.get("x-vercel-ai-ui-message-stream")).toBe("v1");
    const writes = readWrites(response);
    controller.enqueue({ type: "start" });
    controller.enqueue(delta("a"));
    controller.enqueue(delta("b"));
    await sleep(40);
    controller.enqueue(delta("c"));
    controller.close();
    const text = await writes;
    expect(text.join("")).toBe(
      [
        'data: {"type":"start"}\n\n',
        'data: {"type":"text-delta","id":"t","delta":"a"}\n\n',
        'data: {"type":"text-delta","id":"t","delta":"b"}\n\n',
        'data: {"type":"text-delta","id":"t","delta":"c"}\n\n',
        "data: [DONE]\n\n",
      ].join(""),
    );
    // The burst went out together, before the stream ended: the text streams progressively.
    expect(text[0]).toContain('"delta":"b"');
    expect(text[0]).not.toContain('"delta":"c"');
  });

  it("writes a fast stream at most once per interval, and the first chunk at once", async () => {
    // Wide margins (an interval of 400 ms, five chunks sent within it without waiting) so a
    // loaded machine cannot split the batch; the assertions are about order, not speed.
    const { stream, controller } = source();
    const response = drainTurnStream(stream).toUIMessageStreamResponse(undefined, {
      flushIntervalMs: 400,
    });
    const reader = response.body!.getReader();
    const started = performance.now();
    controller.enqueue(delta("first"));
    const first = await reader.read();
    expect(performance.now() - started).toBeLessThan(300);
    expect(new TextDecoder().decode(first.value)).toContain("first");
    for (let index = 0; index < 5; index++) controller.enqueue(delta(`w${index}`));
    const next = await reader.read();
    // All five in one write, no earlier than the interval allows.
    expect(new TextDecoder().decode(next.value).match(/text-delta/g)).toHaveLength(5);
    expect(performance.now() - started).toBeGreaterThanOrEqual(395);
    controller.close();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("data: [DONE]\n\n");
    expect((await reader.read()).done).toBe(true);
  });

  it("flushes what it holds and errors the body when the stream fails (no [DONE])", async () => {
    const { stream, controller } = source();
    const response = drainTurnStream(stream).toUIMessageStreamResponse(undefined, {
      flushIntervalMs: 10_000,
    });
    const reader = response.body!.getReader();
    controller.enqueue(delta("a"));
    expect(new TextDecoder().decode((await reader.read()).value)).toContain('"a"');
    controller.enqueue(delta("held"));
    controller.error(new Error("boom"));
    expect(new TextDecoder().decode((await reader.read()).value)).toContain('"held"');
    await expect(reader.read()).rejects.toThrow("boom");
  });

  it("keeps draining the turn after the client goes away", async () => {
    const { stream, controller, pulled } = source();
    const response = drainTurnStream(stream).toUIMessageStreamResponse();
    await response.body!.cancel();
    for (let index = 0; index < 50; index++) controller.enqueue(delta(String(index)));
    await sleep(5);
    // Read to the end: the source is asked for more.
    expect(pulled()).toBeGreaterThan(1);
    controller.close();
  });

  it("hands chunks read before the host took the stream, in order, as UI chunks", async () => {
    const { stream, controller } = source();
    const outlet = drainTurnStream(stream);
    controller.enqueue({ type: "start" });
    controller.enqueue(delta("a"));
    controller.close();
    await sleep(5);
    const ui = outlet.toUIMessageStream();
    expect(outlet.toUIMessageStream()).toBe(ui);
    const reader = ui.getReader();
    const chunks: UIMessageChunk[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
    }
    expect(chunks).toEqual([{ type: "start" }, delta("a")]);
    expect(() => outlet.toUIMessageStreamResponse()).toThrow(/taken already/);
  });
});
