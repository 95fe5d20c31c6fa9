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
 * Headers for an answer given without reading the whole body (a refusal before or during the
 * read): `Connection: close` makes Node close the socket once the answer is written instead of
 * keeping the connection and draining the rest of the upload.
 */
export const UNREAD_BODY_HEADERS: Readonly<Record<string, string>> = { Connection: "close" };

/** The declared `Content-Length`, or null when absent (a chunked body) or not a number. */
export function declaredBodyLength(headers: Pick<Headers, "get">): number | null {
  const header = headers.get("content-length");
  if (header === null || !/^\d+$/.test(header.trim())) return null;
  return Number(header.trim());
}

/**
 * Reads `request`'s body, at most `maxBytes` of it. A declared `Content-Length` over the limit is
 * refused without reading a byte; otherwise the stream is read chunk by chunk and, as soon as the
 * count passes the limit, the reader is released and the rest of the body is left unread (answer
 * with `UNREAD_BODY_HEADERS` so the connection is closed rather than drained). An empty or absent
 * body reads as zero bytes.
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
        // Not `cancel()`: in Next on Node that destroys the socket before the 413 is written.
        // Releasing the lock stops the reading (the stream is pulled, so nothing more is read
        // into memory) and `Connection: close` ends the connection after the answer.
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

/** `maxBytes` as a person reads it: "256 KiB", "4 MiB", "100 bytes". */
export function describeByteLimit(maxBytes: number): string {
  if (maxBytes >= 1024 * 1024 && maxBytes % (1024 * 1024) === 0)
    return `${maxBytes / (1024 * 1024)} MiB`;
  if (maxBytes >= 1024 && maxBytes % 1024 === 0) return `${maxBytes / 1024} KiB`;
  return `${maxBytes} bytes`;
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
      error: `The request body is larger than ${describeByteLimit(read.maxBytes)}.`,
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
