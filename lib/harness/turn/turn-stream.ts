import type { UIMessageChunk } from "ai";

/**
 * Default for `toUIMessageStreamResponse`'s `flushIntervalMs`: while text streams fast, the
 * SSE response is written at most this often (the first chunk after a pause goes out at once).
 */
export const DEFAULT_SSE_FLUSH_INTERVAL_MS = 25;

/** The headers of the AI SDK's UI message stream response (`createUIMessageStreamResponse`). */
const UI_MESSAGE_STREAM_HEADERS: Record<string, string> = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache",
  connection: "keep-alive",
  "x-vercel-ai-ui-message-stream": "v1",
  "x-accel-buffering": "no",
};

export interface SseResponseOptions {
  /**
   * While chunks keep coming, write the response at most once per this many ms (their SSE
   * events joined into one write). A chunk arriving after a quiet spell is written in the
   * next event-loop turn; the end and an error flush at once. `0`: one write per event-loop
   * turn (chunks produced together still share one).
   */
  flushIntervalMs?: number;
}

interface Sink {
  push(chunk: UIMessageChunk): void;
  end(): void;
  fail(error: unknown): void;
}

/**
 * Where a turn's UI message stream goes. One reader drains the stream from the start, so the
 * turn runs to its end (and commits) even if nobody reads it or the reader goes away; the
 * host takes it once — as a stream of UI chunks, or as an SSE `Response` written straight from
 * the chunks (no tee, no per-chunk transform stages, and the events of a burst in one write).
 */
export interface TurnStreamOutlet {
  toUIMessageStream(): ReadableStream<UIMessageChunk>;
  toUIMessageStreamResponse(init?: ResponseInit, options?: SseResponseOptions): Response;
}

export function drainTurnStream(stream: ReadableStream<UIMessageChunk>): TurnStreamOutlet {
  let sink = null as Sink | null;
  // Chunks read before the host took the stream (it usually takes it at once).
  const early: UIMessageChunk[] = [];
  let state: { done: false } | { done: true; error?: { value: unknown } } = { done: false };
  void (async () => {
    const reader = stream.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (sink) sink.push(value);
        else early.push(value);
      }
      state = { done: true };
      sink?.end();
    } catch (error) {
      state = { done: true, error: { value: error } };
      sink?.fail(error);
    }
  })();

  const attach = (next: Sink) => {
    if (sink) throw new TypeError("The turn's stream was taken already.");
    sink = next;
    for (const chunk of early) next.push(chunk);
    early.length = 0;
    if (state.done) {
      if (state.error) next.fail(state.error.value);
      else next.end();
    }
  };

  let uiStream: ReadableStream<UIMessageChunk> | null = null;
  return {
    toUIMessageStream() {
      if (uiStream) return uiStream;
      let controller!: ReadableStreamDefaultController<UIMessageChunk>;
      let open = true;
      uiStream = new ReadableStream<UIMessageChunk>({
        start(c) {
          controller = c;
        },
        cancel() {
          // The reader went away; the turn goes on (its chunks are dropped).
          open = false;
        },
      });
      attach({
        push(chunk) {
          if (open) controller.enqueue(chunk);
        },
        end() {
          if (open) controller.close();
          open = false;
        },
        fail(error) {
          if (open) controller.error(error);
          open = false;
        },
      });
      return uiStream;
    },

    toUIMessageStreamResponse(init, options) {
      const body = sseBody(options?.flushIntervalMs ?? DEFAULT_SSE_FLUSH_INTERVAL_MS);
      attach(body.sink);
      const headers = new Headers(init?.headers);
      for (const [name, value] of Object.entries(UI_MESSAGE_STREAM_HEADERS)) {
        if (!headers.has(name)) headers.set(name, value);
      }
      return new Response(body.stream, {
        status: init?.status,
        statusText: init?.statusText,
        headers,
      });
    },
  };
}

/**
 * The SSE bytes of a UI message stream, as the AI SDK writes them (`data: <json>\n\n` per
 * chunk, `data: [DONE]\n\n` at the end, nothing more after an error), coalesced: events are
 * collected and written together — in the next event-loop turn after a quiet spell, else
 * `intervalMs` after the previous write.
 */
function sseBody(intervalMs: number): { stream: ReadableStream<Uint8Array>; sink: Sink } {
  const encoder = new TextEncoder();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let open = true;
  let pending = "";
  let lastWrite = -Infinity;
  let timer:
    { kind: "immediate"; id: NodeJS.Immediate } | { kind: "timeout"; id: NodeJS.Timeout } | null =
    null;

  const clear = () => {
    if (timer?.kind === "immediate") clearImmediate(timer.id);
    else if (timer?.kind === "timeout") clearTimeout(timer.id);
    timer = null;
  };
  const write = () => {
    timer = null;
    if (!open || pending === "") return;
    lastWrite = performance.now();
    const bytes = encoder.encode(pending);
    pending = "";
    controller.enqueue(bytes);
  };
  const schedule = () => {
    if (timer) return;
    const wait = lastWrite + intervalMs - performance.now();
    timer =
      wait <= 0
        ? { kind: "immediate", id: setImmediate(write) }
        : { kind: "timeout", id: setTimeout(write, Math.ceil(wait)) };
  };

  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
    cancel() {
      // The client went away: stop collecting; the turn goes on.
      open = false;
      pending = "";
      clear();
    },
  });
  return {
    stream,
    sink: {
      push(chunk) {
        if (!open) return;
        pending += `data: ${JSON.stringify(chunk)}\n\n`;
        schedule();
      },
      end() {
        if (!open) return;
        clear();
        pending += "data: [DONE]\n\n";
        write();
        open = false;
        controller.close();
      },
      fail(error) {
        if (!open) return;
        clear();
        write();
        open = false;
        controller.error(error);
      },
    },
  };
}
