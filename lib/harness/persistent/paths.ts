import { formatBytes } from "../format-bytes";
import { HarnessNotFoundError, HarnessValidationError, type HarnessErrorSurface } from "../errors";
import type { DirLimits } from "./types";

/** Every persistent dir lives under this root. */
export const PERSISTENT_ROOT = "/persistent";

/** Bounds on path text, applied at every entry point (checkout, load, store, retry, resolve). */
export const PATH_LIMITS = {
  /** UTF-8 bytes of a whole path (absolute or relative). */
  maxPathBytes: 512,
  /** UTF-8 bytes of one `/`-separated segment (the common file-system limit). */
  maxSegmentBytes: 255,
  /** Number of segments. */
  maxDepth: 32,
} as const;

/** Defaults for `DirLimits`; override per dir with `PersistentDir.limits`. */
export const DEFAULT_DIR_LIMITS: Readonly<DirLimits> = Object.freeze({
  maxFileBytes: 25 * 1024 * 1024,
  maxDirBytes: 2 * 1024 * 1024 * 1024,
  maxFiles: 100_000,
});

/** Prefix of temporary files written by `localDir`; reserved so they never count as files. */
export const RESERVED_TEMP_PREFIX = ".cairn-tmp-";

// C0 and C1 control characters, including NUL, tab, newline and DEL.
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/;
// Invisible or direction-changing characters: a path must read the same as it resolves.
const INVISIBLE_CHARACTERS = /[\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function byteLength(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

function reject(message: string, path: unknown, surface: HarnessErrorSurface = "path"): never {
  throw new HarnessValidationError({
    surface,
    message,
    details: { path: typeof path === "string" ? printable(path) : typeof path },
  });
}

/** A path made safe to show in messages and logs: control characters escaped, bounded. */
export function printable(path: string): string {
  const escaped = JSON.stringify(path.length > 200 ? `${path.slice(0, 200)}…` : path);
  return escaped.replace(/[\u0080-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g, (c) => {
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;
  });
}

function checkText(raw: unknown, surface: HarnessErrorSurface): string {
  if (typeof raw !== "string") reject("A path must be a string.", raw, surface);
  if (raw.length === 0) reject("A path must not be empty.", raw, surface);
  // Check the raw text before normalising: NFC must not be a way to smuggle characters in.
  if (LONE_SURROGATE.test(raw))
    reject(`Path ${printable(raw)} contains an unpaired surrogate.`, raw, surface);
  if (CONTROL_CHARACTERS.test(raw))
    reject(`Path ${printable(raw)} contains a NUL or control character.`, raw, surface);
  if (INVISIBLE_CHARACTERS.test(raw)) {
    reject(
      `Path ${printable(raw)} contains an invisible or direction-changing character.`,
      raw,
      surface,
    );
  }
  if (raw.includes("\\"))
    reject(`Path ${printable(raw)} contains a backslash; use "/" as the separator.`, raw, surface);
  const normalized = raw.normalize("NFC");
  if (byteLength(normalized) > PATH_LIMITS.maxPathBytes) {
    reject(
      `Path ${printable(normalized)} is longer than ${PATH_LIMITS.maxPathBytes} bytes.`,
      raw,
      surface,
    );
  }
  return normalized;
}

function checkSegments(segments: string[], original: string, surface: HarnessErrorSurface): void {
  if (segments.length > PATH_LIMITS.maxDepth) {
    reject(
      `Path ${printable(original)} is nested deeper than ${PATH_LIMITS.maxDepth} levels.`,
      original,
      surface,
    );
  }
  for (const segment of segments) {
    if (segment === "")
      reject(
        `Path ${printable(original)} has an empty segment ("//" or a trailing "/").`,
        original,
        surface,
      );
    if (segment === "." || segment === "..") {
      reject(`Path ${printable(original)} contains a "${segment}" segment.`, original, surface);
    }
    if (byteLength(segment) > PATH_LIMITS.maxSegmentBytes) {
      reject(
        `A segment of path ${printable(original)} is longer than ${PATH_LIMITS.maxSegmentBytes} bytes.`,
        original,
        surface,
      );
    }
    if (segment.startsWith(RESERVED_TEMP_PREFIX)) {
      reject(
        `Path ${printable(original)} uses the reserved prefix "${RESERVED_TEMP_PREFIX}".`,
        original,
        surface,
      );
    }
  }
}

/**
 * Validates and normalises a path relative to a dir (`notes/a.md`). Returns the NFC form.
 * Rejects: non-strings, empty paths, a leading `/`, `.`/`..`/empty segments, backslashes,
 * NUL/control/invisible characters, unpaired surrogates, more than 512 bytes or 255 bytes
 * per segment. Throws `HarnessValidationError` (`validation:path`).
 */
export function validateRelativePath(options: { path: unknown }): string {
  const normalized = checkText(options.path, "path");
  if (normalized.startsWith("/")) {
    reject(`Path ${printable(normalized)} must be relative to its persistent dir.`, normalized);
  }
  checkSegments(normalized.split("/"), normalized, "path");
  return normalized;
}

/** The segments of a validated absolute path (`/a/b` → `["a", "b"]`). */
function absoluteSegments(
  path: unknown,
  surface: HarnessErrorSurface,
): { normalized: string; segments: string[] } {
  const normalized = checkText(path, surface);
  if (!normalized.startsWith("/"))
    reject(`Path ${printable(normalized)} must be absolute (start with "/").`, normalized, surface);
  const segments = normalized.slice(1).split("/");
  checkSegments(segments, normalized, surface);
  return { normalized, segments };
}

/**
 * Validates a dir's mount point: absolute, strictly under `/persistent/`, no trailing slash,
 * same segment rules as file paths. Returns the NFC form. Throws `validation:dir`.
 */
export function validateHarnessDir(options: { harnessDir: unknown }): string {
  const { normalized, segments } = absoluteSegments(options.harnessDir, "dir");
  if (segments.length < 2 || segments[0] !== PERSISTENT_ROOT.slice(1)) {
    reject(
      `harnessDir ${printable(normalized)} must lie under ${PERSISTENT_ROOT}/ (e.g. ${PERSISTENT_ROOT}/user).`,
      normalized,
      "dir",
    );
  }
  return normalized;
}

/** Whether `path` is `dir` itself or lies under it, compared by whole segments. */
export function isWithinHarnessDir(options: { path: string; harnessDir: string }): boolean {
  return options.path === options.harnessDir || options.path.startsWith(`${options.harnessDir}/`);
}

/**
 * Maps an absolute checkout path to the dir that holds it and the path relative to that dir:
 * `/persistent/user/notes/a.md` → `{ harnessDir: "/persistent/user", relativePath: "notes/a.md" }`.
 * Throws `validation:path` for a hostile path or the dir root itself, and `not_found:dir`
 * when no configured dir contains the path.
 */
export function resolvePersistentPath(options: { path: unknown; harnessDirs: readonly string[] }): {
  harnessDir: string;
  relativePath: string;
  path: string;
} {
  const { normalized } = absoluteSegments(options.path, "path");
  const harnessDir = options.harnessDirs.find((dir) =>
    isWithinHarnessDir({ path: normalized, harnessDir: dir }),
  );
  if (harnessDir === undefined) {
    throw new HarnessNotFoundError({
      surface: "dir",
      message: `No persistent dir contains ${printable(normalized)}.`,
      details: { path: printable(normalized), harnessDirs: [...options.harnessDirs] },
    });
  }
  if (normalized === harnessDir)
    reject(`${printable(normalized)} is a persistent dir, not a file.`, normalized);
  const relativePath = normalized.slice(harnessDir.length + 1);
  return { harnessDir, relativePath, path: normalized };
}

/** Joins a dir and a validated relative path into the absolute checkout path. */
export function joinHarnessPath(options: { harnessDir: string; relativePath: string }): string {
  return `${options.harnessDir}/${options.relativePath}`;
}

/**
 * `DEFAULT_DIR_LIMITS` with a dir's overrides applied; overrides must be positive integers
 * (`validation:dir` otherwise, prefixed with `harnessDir` when given).
 */
export function resolveDirLimits(options: {
  limits?: Partial<DirLimits>;
  harnessDir?: string;
}): DirLimits {
  const prefix = options.harnessDir ? `${options.harnessDir}: ` : "";
  if (typeof options.limits !== "object" && options.limits !== undefined) {
    throw new HarnessValidationError({
      surface: "dir",
      message: `${prefix}Dir limits must be an object of positive integers.`,
      details: { limits: typeof options.limits },
    });
  }
  const limits = { ...DEFAULT_DIR_LIMITS, ...options.limits };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value <= 0) {
      throw new HarnessValidationError({
        surface: "dir",
        message: `${prefix}Dir limit ${name} must be a positive integer.`,
        details: { [name]: value },
      });
    }
  }
  return limits;
}

/** Throws `validation:path` when one file is larger than the dir allows. */
export function assertFileWithinLimits(options: {
  path: string;
  bytes: number;
  limits: DirLimits;
}): void {
  if (options.bytes > options.limits.maxFileBytes) {
    throw new HarnessValidationError({
      surface: "path",
      message: `File ${printable(options.path)} is ${formatBytes(options.bytes)}; the limit is ${formatBytes(options.limits.maxFileBytes)} per file.`,
      details: {
        path: printable(options.path),
        bytes: options.bytes,
        maxFileBytes: options.limits.maxFileBytes,
      },
    });
  }
}

/**
 * Throws `validation:dir` when a dir would hold too many files or bytes. With `before` (what the
 * dir holds now), a measure already over its limit is refused only when the change grows it: a
 * dir over limits lowered since it was written may always shrink.
 */
export function assertDirWithinLimits(options: {
  harnessDir: string;
  fileCount: number;
  bytes: number;
  limits: DirLimits;
  before?: { fileCount: number; bytes: number };
}): void {
  const { harnessDir, fileCount, bytes, limits, before } = options;
  if (fileCount > limits.maxFiles && !(before && fileCount <= before.fileCount)) {
    throw new HarnessValidationError({
      surface: "dir",
      message: `${harnessDir} would hold ${fileCount} files; the limit is ${limits.maxFiles} ${limits.maxFiles === 1 ? "file" : "files"} per dir.`,
      details: { harnessDir, fileCount, maxFiles: limits.maxFiles },
    });
  }
  if (bytes > limits.maxDirBytes && !(before && bytes <= before.bytes)) {
    throw new HarnessValidationError({
      surface: "dir",
      message: `${harnessDir} would hold ${formatBytes(bytes)}; the limit is ${formatBytes(limits.maxDirBytes)} per dir.`,
      details: { harnessDir, bytes, maxDirBytes: limits.maxDirBytes },
    });
  }
}
