import { createHash } from "node:crypto";

import type { FileContent, FileMap } from "../types";

const encoder = new TextEncoder();
const strictDecoder = new TextDecoder("utf-8", { fatal: true });

/** The UTF-8 bytes of a file's content; bytes are returned as they are (not copied). */
export function contentBytes(content: FileContent): Uint8Array {
  return typeof content === "string" ? encoder.encode(content) : content;
}

/** Size in bytes as stored: UTF-8 for text. */
export function contentByteLength(content: FileContent): number {
  return typeof content === "string" ? Buffer.byteLength(content, "utf8") : content.byteLength;
}

/**
 * sha256 of the stored bytes. Text and bytes with the same bytes hash the same: the backing
 * stores bytes, so a file that only changed representation has not changed.
 */
export function contentHash(content: FileContent): string {
  return createHash("sha256").update(contentBytes(content)).digest("hex");
}

/** Byte-wise equality; `null` means "absent" and equals only `null`. */
export function contentEquals(
  left: FileContent | null | undefined,
  right: FileContent | null | undefined,
): boolean {
  if (left == null || right == null) return left == null && right == null;
  if (typeof left === "string" && typeof right === "string") return left === right;
  const a = contentBytes(left);
  const b = contentBytes(right);
  return a.byteLength === b.byteLength && Buffer.compare(a, b) === 0;
}

/** Defensive copy so no caller can mutate a checkout or a backing through a shared buffer. */
export function copyContent<T extends FileContent | null>(content: T): T {
  if (content === null || typeof content === "string") return content;
  return new Uint8Array(content) as T;
}

/** Whether a value is a file content the core accepts. */
export function isFileContent(value: unknown): value is FileContent {
  return typeof value === "string" || value instanceof Uint8Array;
}

/** Decodes bytes read from disk: valid UTF-8 without NUL becomes text, anything else stays bytes. */
export function decodeStoredBytes(bytes: Uint8Array): FileContent {
  if (bytes.includes(0)) return new Uint8Array(bytes);
  try {
    return strictDecoder.decode(bytes);
  } catch {
    return new Uint8Array(bytes);
  }
}

/** A file map with no prototype, so a path such as `__proto__` is an ordinary key. */
export function emptyFileMap(): FileMap {
  return Object.create(null) as FileMap;
}

/** Builds a prototype-free file map from entries. */
export function fileMapFromEntries(entries: Iterable<readonly [string, FileContent]>): FileMap {
  const map = emptyFileMap();
  for (const [path, content] of entries) map[path] = content;
  return map;
}

/** Own entries of a file map (never inherited keys). */
export function fileMapEntries(files: FileMap): Array<[string, FileContent]> {
  return Object.keys(files).map((path) => [path, files[path] as FileContent]);
}
