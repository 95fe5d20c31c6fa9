import { HarnessValidationError } from "../../errors";
import { formatBytes } from "../../format-bytes";
import { printable } from "../paths";
import type { FileContent, HostFileContent } from "../types";
import { isFileContent } from "./content";

const encoder = new TextEncoder();

function isReadableStream(value: unknown): value is ReadableStream<unknown> {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { getReader?: unknown }).getReader === "function"
  );
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === "function"
  );
}

/** Every chunk of a web stream, releasing (and on early exit cancelling) it. */
async function* chunksOf(stream: ReadableStream<unknown>): AsyncGenerator<unknown> {
  const reader = stream.getReader();
  let done = false;
  try {
    while (true) {
      const next = await reader.read();
      if (next.done) {
        done = true;
        return;
      }
      yield next.value;
    }
  } finally {
    // Stopped early (too large, bad chunk): tell the producer to stop sending.
    if (!done) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

/**
 * Reads what a host passed to `files.write` into one file content, at most `maxFileBytes`
 * bytes: a string or bytes as they are; a web `ReadableStream` or an async iterable of strings
 * or `Uint8Array`s chunk by chunk. Text chunks only → text; any byte chunk → bytes (text chunks
 * as UTF-8). Stops reading (and cancels the stream) as soon as the limit is passed, and throws
 * `validation:path` naming the file and the limit; a chunk of another type throws too.
 */
export async function readHostContent(options: {
  content: HostFileContent;
  /** Absolute path, for messages. */
  path: string;
  maxFileBytes: number;
}): Promise<FileContent> {
  const { content, path, maxFileBytes } = options;
  if (isFileContent(content)) return content;
  const source = isReadableStream(content)
    ? chunksOf(content)
    : isAsyncIterable(content)
      ? content
      : null;
  if (source === null) {
    throw new HarnessValidationError({
      surface: "path",
      message: `Content for ${printable(path)} must be a string, a Uint8Array, a ReadableStream or an async iterable of strings or Uint8Arrays.`,
      details: { path: printable(path) },
    });
  }
  const chunks: FileContent[] = [];
  let bytes = 0;
  let allText = true;
  for await (const chunk of source) {
    if (!isFileContent(chunk)) {
      throw new HarnessValidationError({
        surface: "path",
        message: `A chunk streamed for ${printable(path)} is neither a string nor a Uint8Array.`,
        details: { path: printable(path) },
      });
    }
    bytes += typeof chunk === "string" ? Buffer.byteLength(chunk, "utf8") : chunk.byteLength;
    if (bytes > maxFileBytes) {
      throw new HarnessValidationError({
        surface: "path",
        message: `File ${printable(path)} is larger than ${formatBytes(maxFileBytes)}, the limit per file; reading stopped after ${formatBytes(bytes)}.`,
        details: { path: printable(path), bytes, maxFileBytes },
      });
    }
    if (typeof chunk !== "string") allText = false;
    // Copy: the producer may reuse its buffer for the next chunk.
    chunks.push(typeof chunk === "string" ? chunk : new Uint8Array(chunk));
  }
  if (allText) return (chunks as string[]).join("");
  const result = new Uint8Array(bytes);
  let offset = 0;
  for (const chunk of chunks) {
    const part = typeof chunk === "string" ? encoder.encode(chunk) : chunk;
    result.set(part, offset);
    offset += part.byteLength;
  }
  return result;
}
