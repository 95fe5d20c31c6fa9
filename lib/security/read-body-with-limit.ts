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

/** How much of a refused body `discardRestOfBody` reads and drops before it cuts the connection. */
export const DISCARD_LIMITS = { maxBytes: 64 * 1024 * 1024, maxMs: 1000 } as const;

/** The declared `Content-Length`, or null when absent (a chunked body) or not a number. */
export function declaredBodyLength(headers: Pick<Headers, "get">): number | null {
  const header = headers.get("content-length");
  if (header === null || !/^\d+$/.test(header.trim())) return null;
  return Number(header.trim());
}

/**
 * Reads `request`'s body, at most `maxBytes` of it. A declared `Content-Length` over the limit is
 * refused without reading a byte; otherwise the stream is read chunk by chunk and, as soon as the
 * count passes the limit, the reader is released and the rest of the body is left unread: answer,
 * then call `discardRestOfBody`. An empty or absent body reads as zero bytes.
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
        // answers, then `discardRestOfBody` ends the upload (see there).
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
 * Ends the upload of a body the server refused (unread, or read up to a limit), after the answer
 * has been given, like a web server's lingering close: reads and drops what the client is still
 * sending for at most `maxMs` or `maxBytes` (nothing is kept), then cancels the stream — in Next
 * on Node that destroys the connection. Cancelling at once instead would reset the connection
 * while the answer is on its way, and the client, still writing, may never read it (seen against
 * `next start`: EPIPE instead of the 413). Runs in the background; never throws.
 */
export function discardRestOfBody(
  request: Request,
  options: { maxBytes?: number; maxMs?: number } = {},
): void {
  if (!request.body) return;
  let reader: ReadableStreamDefaultReader<Uint8Array>;
  try {
    reader = request.body.getReader();
  } catch {
    return; // Already locked or read to the end.
  }
  const maxBytes = options.maxBytes ?? DISCARD_LIMITS.maxBytes;
  const cancel = () => reader.cancel().catch(() => {});
  // A client that stalls never completes a read: the timer ends it all the same.
  const timer = setTimeout(() => void cancel(), options.maxMs ?? DISCARD_LIMITS.maxMs);
  void (async () => {
    let dropped = 0;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        dropped += value.byteLength;
        if (dropped > maxBytes) return await cancel();
      }
    } catch {
      // Cancelled by the timer, or the client went away: nothing left to end.
    } finally {
      clearTimeout(timer);
    }
  })();
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
