import { createHash, randomBytes } from "node:crypto";
import {
  lstat,
  mkdir,
  readdir,
  readFile,
  realpath,
  rename,
  rm,
  rmdir,
  writeFile,
} from "node:fs/promises";
import nodePath from "node:path";

import { HarnessValidationError } from "../errors";
import { contentBytes, contentHash, decodeStoredBytes, emptyFileMap } from "./internal/content";
import { RESERVED_TEMP_PREFIX, printable, validateRelativePath } from "./paths";
import type {
  CommitMode,
  DirLimits,
  FileMap,
  LoadResult,
  PersistentDir,
  StoreResult,
} from "./types";

const PROJECT_DIR = Symbol.for("cairn.persistent.projectDir");

/** A folder named relative to the project root; resolve it with `resolveSourceDir`. */
export interface ProjectDirReference {
  readonly [PROJECT_DIR]: true;
  /** As given, e.g. `./docs/company-knowledge`. */
  readonly path: string;
}

/**
 * Names a folder under the project root (the seed's `projectDir("./docs/…")`, positional to
 * match it). Rejects absolute paths and paths that leave the root (`../x`) at once; symlinks
 * are checked when the dir is resolved, so a link pointing outside the root is refused too.
 */
export function projectDir(path: string): ProjectDirReference {
  if (typeof path !== "string" || path.length === 0 || path.includes("\0")) {
    throw new HarnessValidationError({
      surface: "dir",
      message: "projectDir() needs a non-empty relative path.",
    });
  }
  if (nodePath.isAbsolute(path) || path.includes("\\")) {
    throw new HarnessValidationError({
      surface: "dir",
      message: `projectDir(${printable(path)}) must be relative to the project root, with "/" separators.`,
    });
  }
  const normalized = nodePath.posix.normalize(path);
  if (normalized === ".." || normalized.startsWith("../")) {
    throw new HarnessValidationError({
      surface: "dir",
      message: `projectDir(${printable(path)}) leaves the project root.`,
    });
  }
  return { [PROJECT_DIR]: true, path };
}

export function isProjectDirReference(value: unknown): value is ProjectDirReference {
  return typeof value === "object" && value !== null && PROJECT_DIR in value;
}

/**
 * Where a `localDir` reads and writes: an absolute path, a path relative to the project root,
 * a `projectDir(...)`, or a function of the turn's `extraBody` returning one of those (e.g. a
 * per-user folder). Relative paths and `projectDir` must stay under the project root; a
 * function's result must not contain `..` segments.
 */
export type SourceDir<TExtraBody> =
  | string
  | ProjectDirReference
  | ((options: { extraBody: TExtraBody }) => string | ProjectDirReference);

async function realpathOfExistingAncestor(target: string): Promise<string> {
  let current = target;
  const rest: string[] = [];
  for (;;) {
    try {
      return nodePath.join(await realpath(current), ...rest.reverse());
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      const parent = nodePath.dirname(current);
      if (parent === current) return target;
      rest.push(nodePath.basename(current));
      current = parent;
    }
  }
}

function isInside(root: string, target: string): boolean {
  const relative = nodePath.relative(root, target);
  return relative === "" || (!relative.startsWith("..") && !nodePath.isAbsolute(relative));
}

/**
 * Resolves a `SourceDir` to an absolute folder for one turn. Throws `validation:dir` when a
 * relative path or `projectDir` escapes `projectRoot` (lexically or through a symlink).
 */
export async function resolveSourceDir<TExtraBody>(options: {
  sourceDir: SourceDir<TExtraBody>;
  extraBody: TExtraBody;
  projectRoot?: string;
}): Promise<string> {
  const fromFunction = typeof options.sourceDir === "function";
  const reference =
    typeof options.sourceDir === "function"
      ? options.sourceDir({ extraBody: options.extraBody })
      : options.sourceDir;
  // The root is chosen at run time (a host setting), not a path to bundle: keep the tracer out.
  const root = nodePath.resolve(/*turbopackIgnore: true*/ options.projectRoot ?? process.cwd());
  const raw = isProjectDirReference(reference) ? reference.path : reference;
  if (typeof raw !== "string" || raw.length === 0 || raw.includes("\0")) {
    throw new HarnessValidationError({
      surface: "dir",
      message: "sourceDir must be a non-empty path.",
    });
  }
  if (fromFunction && raw.split(/[\\/]/).includes("..")) {
    throw new HarnessValidationError({
      surface: "dir",
      message: `sourceDir ${printable(raw)} from a function must not contain "..".`,
    });
  }
  if (!isProjectDirReference(reference) && nodePath.isAbsolute(raw)) return nodePath.resolve(raw);
  const target = nodePath.resolve(root, raw);
  const realRoot = await realpathOfExistingAncestor(root);
  if (!isInside(root, target) || !isInside(realRoot, await realpathOfExistingAncestor(target))) {
    throw new HarnessValidationError({
      surface: "dir",
      message: `sourceDir ${printable(raw)} resolves outside the project root.`,
      details: { sourceDir: printable(raw) },
    });
  }
  return target;
}

interface ScannedDir {
  files: FileMap;
  updatedAt: Record<string, string>;
  cursor: string;
}

// Regular files only: symlinks, sockets and files whose names the core rejects are not
// loaded and are left untouched, so a link can never make the agent read outside the folder.
async function scan(root: string): Promise<ScannedDir> {
  const files = emptyFileMap();
  const updatedAt: Record<string, string> = Object.create(null) as Record<string, string>;
  const hashes: string[] = [];
  const walk = async (folder: string, prefix: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(folder, { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT" && prefix === "") return;
      throw error;
    }
    for (const entry of entries) {
      const name = entry.name;
      if (name.startsWith(RESERVED_TEMP_PREFIX)) continue;
      const relativePath = prefix === "" ? name : `${prefix}/${name}`;
      let valid: string;
      try {
        valid = validateRelativePath({ path: relativePath });
      } catch {
        continue;
      }
      if (valid !== relativePath) continue;
      const full = nodePath.join(folder, name);
      if (entry.isDirectory()) await walk(full, relativePath);
      else if (entry.isFile()) {
        const [bytes, stats] = await Promise.all([readFile(full), lstat(full)]);
        files[relativePath] = decodeStoredBytes(bytes);
        updatedAt[relativePath] = stats.mtime.toISOString();
      }
    }
  };
  await walk(root, "");
  for (const path of Object.keys(files).sort())
    hashes.push(`${path}\0${contentHash(files[path]!)}`);
  const cursor = createHash("sha256").update(hashes.join("\n")).digest("hex");
  return { files, updatedAt, cursor };
}

const locks = new Map<string, Promise<unknown>>();

// Serialises stores to one folder within this process so compare-and-swap is not a race.
async function withLock<T>(key: string, work: () => Promise<T>): Promise<T> {
  const previous = locks.get(key) ?? Promise.resolve();
  const next = previous.then(work, work);
  const settled = next.catch(() => undefined);
  locks.set(key, settled);
  try {
    return await next;
  } finally {
    if (locks.get(key) === settled) locks.delete(key);
  }
}

async function assertParentInside(realRoot: string, file: string): Promise<void> {
  const parent = await realpathOfExistingAncestor(nodePath.dirname(file));
  if (!isInside(realRoot, parent)) {
    throw new HarnessValidationError({
      surface: "path",
      message: `Refusing to write ${printable(file)}: a symlink leads outside the dir's folder.`,
    });
  }
}

/** Loads a folder as a dir's files: the `load` half of `localDir`, usable on its own. */
export async function loadLocalFolder(options: {
  folder: string;
  abortSignal?: AbortSignal;
}): Promise<LoadResult> {
  options.abortSignal?.throwIfAborted();
  const scanned = await scan(options.folder);
  return { files: scanned.files, cursor: scanned.cursor, updatedAt: scanned.updatedAt };
}

/** Options for `localDir`. */
export interface LocalDirOptions<TExtraBody> {
  harnessDir: string;
  sourceDir: SourceDir<TExtraBody>;
  /** Default `after-turn`. */
  commit?: CommitMode;
  canWrite?: (options: { extraBody: TExtraBody }) => boolean | Promise<boolean>;
  owner?: (options: { extraBody: TExtraBody }) => string;
  limits?: Partial<DirLimits>;
  /** Root for `projectDir(...)` and relative `sourceDir`s. Default `process.cwd()`. */
  projectRoot?: string;
}

/**
 * A persistent dir backed by a folder on disk. The cursor is a sha256 over every file's path
 * and content hash, so any change on disk (by anyone) moves it. `store` re-scans under an
 * in-process lock, refuses a stale cursor, and writes each file atomically (temp file +
 * rename in the same folder); deletes prune emptied folders. A crash mid-store can leave part
 * of a change set applied: the cursor then differs, and a retry rebases onto what is there
 * (already-applied paths are no-ops). Stores from several processes are not serialised.
 */
export function localDir<TExtraBody = unknown, TSession = unknown>(
  options: LocalDirOptions<TExtraBody>,
): PersistentDir<TExtraBody, TSession> {
  const resolve = (extraBody: TExtraBody): Promise<string> =>
    resolveSourceDir({ sourceDir: options.sourceDir, extraBody, projectRoot: options.projectRoot });
  return {
    harnessDir: options.harnessDir,
    commit: options.commit ?? "after-turn",
    ...(options.canWrite ? { canWrite: options.canWrite } : {}),
    ...(options.owner ? { owner: options.owner } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
    async load({ extraBody, abortSignal }) {
      return loadLocalFolder({ folder: await resolve(extraBody), abortSignal });
    },
    async store({ extraBody, changes, cursor, abortSignal }): Promise<StoreResult> {
      const folder = await resolve(extraBody);
      // Validate every path before touching the disk: a store is all-or-nothing up front.
      const writes = [...changes.created, ...changes.updated].map((file) => ({
        path: validateRelativePath({ path: file.path }),
        content: file.content,
      }));
      const deletes = changes.deleted.map((path) => validateRelativePath({ path }));
      return withLock(folder, async () => {
        abortSignal?.throwIfAborted();
        const current = await scan(folder);
        if (current.cursor !== cursor) {
          return {
            status: "conflict",
            currentCursor: current.cursor,
            message: `${options.harnessDir} changed on disk since it was loaded.`,
          };
        }
        await mkdir(folder, { recursive: true });
        const realRoot = await realpath(folder);
        for (const write of writes) {
          const target = nodePath.join(realRoot, ...write.path.split("/"));
          await assertParentInside(realRoot, target);
          await mkdir(nodePath.dirname(target), { recursive: true });
          await assertParentInside(realRoot, target);
          const temp = nodePath.join(
            nodePath.dirname(target),
            `${RESERVED_TEMP_PREFIX}${randomBytes(8).toString("hex")}`,
          );
          try {
            await writeFile(temp, contentBytes(write.content), { flag: "wx" });
            await rename(temp, target);
          } catch (error) {
            await rm(temp, { force: true });
            throw error;
          }
        }
        for (const path of deletes) {
          const target = nodePath.join(realRoot, ...path.split("/"));
          await assertParentInside(realRoot, target);
          await rm(target, { force: true });
          await pruneEmptyFolders(realRoot, nodePath.dirname(target));
        }
        return { status: "stored", cursor: (await scan(folder)).cursor };
      });
    },
  };
}

async function pruneEmptyFolders(root: string, folder: string): Promise<void> {
  let current = folder;
  while (current !== root && isInside(root, current)) {
    try {
      await rmdir(current);
    } catch {
      return;
    }
    current = nodePath.dirname(current);
  }
}
