import { createHash } from "node:crypto";

import { type DirCursor, type FileContent } from "@/lib/harness";
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from "@/lib/harness/spi";

// ignoreBOM keeps a leading U+FEFF: text must round-trip exactly.
const textDecoder = new TextDecoder("utf-8", { ignoreBOM: true });

export function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** The bytes a file's content is stored as, and whether it is text (UTF-8, decoded on load). */
export function encodeFileContent(content: FileContent): { bytes: Buffer; isText: boolean } {
  return typeof content === "string"
    ? { bytes: Buffer.from(content, "utf8"), isText: true }
    : { bytes: Buffer.from(content.buffer, content.byteOffset, content.byteLength), isText: false };
}

/** A stored file's content: the string for text, a copy of the bytes otherwise. */
export function decodeFileContent(bytes: Uint8Array, isText: boolean): FileContent {
  return isText ? textDecoder.decode(bytes) : new Uint8Array(bytes);
}

/** A database-backed dir's cursor as its version, or `null` when it is not one. */
export function versionOf(cursor: DirCursor): number | null {
  const version = typeof cursor === "string" && /^\d+$/.test(cursor) ? Number(cursor) : cursor;
  return typeof version === "number" && Number.isSafeInteger(version) && version >= 0
    ? version
    : null;
}

/** A listing's page size: the default when absent, clamped to 1…MAX_PAGE_SIZE. */
export function pageSize(limit: number | undefined, fallback = DEFAULT_PAGE_SIZE): number {
  if (limit === undefined || !Number.isFinite(limit)) return fallback;
  return Math.min(MAX_PAGE_SIZE, Math.max(1, Math.floor(limit)));
}
