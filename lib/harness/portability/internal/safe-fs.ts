import { lstat, readFile, realpath, stat } from "node:fs/promises";
import path from "node:path";
import { HarnessValidationError } from "../../errors";

/**
 * File names accepted inside `skills/` and `subagents/`: one path segment of letters,
 * digits, `.`, `_` and `-`, starting with a letter or digit, no `..`, at most 128
 * characters. Everything else (separators, absolute paths, control characters, hidden files)
 * is refused before the file system is touched.
 */
const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export function isSafeFileName(name: string): boolean {
  return SAFE_NAME.test(name) && !name.includes("..");
}

/** Whether `candidate` is `root` itself or lies below it (both absolute, normalised). */
export function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}

/**
 * Joins `segments` below `root`, refusing any segment that is not a safe file name — so a
 * hostile name can never address a path outside `root`.
 */
export function joinInside(root: string, segments: readonly string[]): string {
  for (const segment of segments) {
    if (!isSafeFileName(segment)) {
      throw new HarnessValidationError({
        surface: "portability",
        message: `Unsafe file name ${JSON.stringify(segment)}`,
        details: { name: segment },
      });
    }
  }
  const joined = path.join(root, ...segments);
  if (!isInside(root, joined)) {
    throw new HarnessValidationError({
      surface: "portability",
      message: `Path ${JSON.stringify(segments.join("/"))} leaves the directory`,
    });
  }
  return joined;
}

/** What is at a path below the import root, with symlinks resolved and checked. */
export type Inspection =
  | { kind: "missing" }
  /** A symlink (somewhere along the path) that resolves outside the root. */
  | { kind: "escapes" }
  | { kind: "file"; realPath: string; size: number }
  | { kind: "directory"; realPath: string }
  | { kind: "other" };

/**
 * Looks at `root/segments…` (root must already be a real path). Symlinks are followed only
 * when their target stays inside `root`; a link pointing outside is reported as `escapes`
 * and never read.
 */
export async function inspectInside(
  root: string,
  segments: readonly string[],
): Promise<Inspection> {
  const joined = joinInside(root, segments);
  try {
    await lstat(joined);
  } catch (error) {
    if (isNotFound(error)) return { kind: "missing" };
    throw error;
  }
  let real: string;
  try {
    real = await realpath(joined);
  } catch (error) {
    // A dangling link: treat it as pointing nowhere we may read.
    if (isNotFound(error)) return { kind: "escapes" };
    throw error;
  }
  if (!isInside(root, real)) return { kind: "escapes" };
  const stats = await stat(real);
  if (stats.isFile()) return { kind: "file", realPath: real, size: stats.size };
  if (stats.isDirectory()) return { kind: "directory", realPath: real };
  return { kind: "other" };
}

/**
 * Reads a UTF-8 text file of at most `limit` bytes. Throws `HarnessValidationError` with the
 * file, its size and the limit when it is larger, or when it is not valid UTF-8.
 */
export async function readTextWithLimit(options: {
  realPath: string;
  displayPath: string;
  limit: number;
  size: number;
}): Promise<string> {
  const tooLarge = (size: number) =>
    new HarnessValidationError({
      surface: "import",
      message: `${options.displayPath} is ${size} bytes; the limit is ${options.limit} bytes`,
      details: { file: options.displayPath, size, limit: options.limit },
    });
  if (options.size > options.limit) throw tooLarge(options.size);
  const buffer = await readFile(options.realPath);
  // The file may have grown since it was inspected.
  if (buffer.byteLength > options.limit) throw tooLarge(buffer.byteLength);
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(buffer);
  } catch (cause) {
    throw new HarnessValidationError({
      surface: "import",
      message: `${options.displayPath} is not valid UTF-8 text`,
      details: { file: options.displayPath },
      cause,
    });
  }
}

function isNotFound(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "ENOENT" || code === "ENOTDIR";
}
