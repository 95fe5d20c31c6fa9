import { formatBytes } from "@/lib/harness/format-bytes";

/**
 * Reading a request body with a byte limit. `request.json()` and `request.text()` buffer the whole
 * body whatever its size, and a chunked body declares none: a 450 MB upload took the server from
 * 250 MB to 3.8 GB before it was refused (issue 31). Here the body is read chunk by chunk and
 * counted; past the limit the reader stops at once, so at most `maxBytes` plus one chunk is ever
 * held. See decision 0029.
 */

/** What `readBodyWithLimit` found. */
export type BodyReadResult =
  | { status: "ok"; bytes: Uint8Array }
  /** The body (declared or counted) is larger than `maxBytes`; the rest was not read. */
  | { status: "too_large"; maxBytes: number };

/** What `readJsonWithLimit` found; `error` is a message for the caller, `status` the HTTP status. */
export type JsonReadResult =
  | { status: "ok"; value: unknown }
  | { status: "too_large"; maxBytes: number; error: string }
  | { status: "invalid"; error: string };

/**
 * How much of a refused body `refuseBody` reads and drops before it ends the answer and cuts the
 * connection, and how long after the answer's end the cut waits.
 */
export const DISCARD_LIMITS = { maxBytes: 64 * 1024 * 1024, maxMs: 1000, graceMs: 200 } as const;

/** The declared `Content-Length`, or null when absent (a chunked body) or not a number. */
export function declaredBodyLength(headers: Pick<Headers, "get">): number | null {
  const header = headers.get("content-length");
  if (header === null || !/^\d+$/.test(header.trim())) return null;
  return Number(header.trim());
}

/**
 * Reads `request`'s body, at most `maxBytes` of it. A declared `Content-Length` over the limit is
 * refused without reading a byte; otherwise the stream is read chunk by chunk and, as soon as the
 * count passes the limit, the reader is released and the rest of the body is left unread: answer
 * through `refuseBody`. An empty or absent body reads as zero bytes.
 */
export async function readBodyWithLimit(
  request: Request,
  options: { maxBytes: number },
): Promise<BodyReadResult> {
  const { maxBytes } = options;
  const declared = declaredBodyLength(request.headers);
  if (declared !== null && declared > maxBytes) return { status: "too_large", maxBytes };
  if (!request.body) return { status: "ok", bytes: new Uint8Array(0) };
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        // Released, not cancelled: the stream is pulled, so nothing more is read; the caller
        // answers through `refuseBody`, which ends the upload (see there).
        return { status: "too_large", maxBytes };
      }
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { status: "ok", bytes };
}

/**
 * Answers `response` to a request whose body the server refused (unread, or read up to a limit),
 * and ends the upload like a web server's lingering close.
 *
 * Node answers a request whose body has not all arrived with `Connection: close`, and destroys the
 * socket as soon as the answer is written. A client still sending then meets a reset, which can
 * discard the answer it had not read yet (against `next start`: EPIPE instead of the 413, in CI).
 * So the answer's head and body go out at once but its end is held back while what the client
 * still sends is read and dropped (`discardRestOfBody`: nothing is kept, at most `maxMs` or
 * `maxBytes`); the answer then ends, and the upload is cancelled `graceMs` later.
 */
export async function refuseBody(
  request: Request,
  response: Response,
  options: DiscardOptions = {},
): Promise<Response> {
  const drained = discardRestOfBody(request, options);
  const bytes = new Uint8Array(await response.arrayBuffer());
  let sent = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!sent) {
        sent = true;
        if (bytes.byteLength > 0) return controller.enqueue(bytes);
      }
      await drained;
      controller.close();
    },
  });
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}

/** Limits of `discardRestOfBody` (defaults: `DISCARD_LIMITS`). */
export interface DiscardOptions {
  maxBytes?: number;
  maxMs?: number;
  graceMs?: number;
}

/**
 * Reads and drops what is left of `request`'s body — at most `maxBytes`, for at most `maxMs` (a
 * client that stalls never completes a read: the timer ends it all the same). Resolves when that
 * ends: the body's end, a limit, or the client gone. Past a limit the stream is cancelled
 * `graceMs` after resolving (in Next on Node that destroys the connection), so an answer held
 * open until then has ended first. Never rejects. Use it through `refuseBody`.
 */
export function discardRestOfBody(request: Request, options: DiscardOptions = {}): Promise<void> {
  if (!request.body) return Promise.resolve();
  let reader: ReadableStreamDefaultReader<Uint8Array>;
  try {
    reader = request.body.getReader();
  } catch {
    return Promise.resolve(); // Already locked or read to the end.
  }
  const maxBytes = options.maxBytes ?? DISCARD_LIMITS.maxBytes;
  const graceMs = options.graceMs ?? DISCARD_LIMITS.graceMs;
  return new Promise<void>((resolve) => {
    let cut = false;
    const cutAfterAnswer = () => {
      if (cut) return;
      cut = true;
      resolve();
      setTimeout(() => void reader.cancel().catch(() => {}), graceMs).unref?.();
    };
    const timer = setTimeout(cutAfterAnswer, options.maxMs ?? DISCARD_LIMITS.maxMs);
    void (async () => {
      let dropped = 0;
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          dropped += value.byteLength;
          if (dropped > maxBytes) return cutAfterAnswer();
        }
      } catch {
        // Cancelled, or the client went away: nothing left to end.
      } finally {
        clearTimeout(timer);
        resolve();
      }
    })();
  });
}

/**
 * Reads at most `maxBytes` of `request`'s body (see `readBodyWithLimit`) and parses it as UTF-8
 * JSON. Over the limit: `too_large` (answer 413); not UTF-8 or not JSON: `invalid` (answer 400).
 */
export async function readJsonWithLimit(
  request: Request,
  options: { maxBytes: number },
): Promise<JsonReadResult> {
  const read = await readBodyWithLimit(request, options);
  if (read.status === "too_large") {
    return {
      status: "too_large",
      maxBytes: read.maxBytes,
      error: `The request body is larger than ${formatBytes(read.maxBytes)}.`,
    };
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(read.bytes);
  } catch {
    return { status: "invalid", error: "The request body must be UTF-8 JSON." };
  }
  try {
    return { status: "ok", value: JSON.parse(text) as unknown };
  } catch {
    return { status: "invalid", error: "The request body must be JSON." };
  }
}
