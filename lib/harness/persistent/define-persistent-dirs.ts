import { HarnessValidationError } from "../errors";
import { isWithinHarnessDir, resolveDirLimits, validateHarnessDir } from "./paths";
import { COMMIT_MODES, type CommitMode, type DirLimits, type PersistentDir } from "./types";

/** A dir definition after validation: normalised mount point, resolved mode and limits. */
export interface ResolvedPersistentDir<TExtraBody = unknown, TSession = unknown> {
  harnessDir: string;
  mode: CommitMode;
  limits: DirLimits;
  definition: PersistentDir<TExtraBody, TSession>;
  /** Whether the dir offers the lazy capability (`loadIndex` + `readBodies`). */
  lazy: boolean;
}

/**
 * Validates a list of persistent dirs at definition time and returns it unchanged (with each
 * `harnessDir` NFC-normalised). Throws `validation:dir` when a `harnessDir` is not under
 * `/persistent/`, two dirs overlap (one equals or contains the other), a mode is unknown, a
 * writable dir has no `store`, or a limit is not a positive integer.
 */
export function definePersistentDirs<TExtraBody = unknown, TSession = unknown>(options: {
  dirs: readonly PersistentDir<TExtraBody, TSession>[];
}): PersistentDir<TExtraBody, TSession>[] {
  return resolvePersistentDirs(options).map((dir) => ({
    ...dir.definition,
    harnessDir: dir.harnessDir,
  }));
}

/** The validation behind `definePersistentDirs`, returning the resolved form the runtime uses. */
export function resolvePersistentDirs<TExtraBody = unknown, TSession = unknown>(options: {
  dirs: readonly PersistentDir<TExtraBody, TSession>[];
}): ResolvedPersistentDir<TExtraBody, TSession>[] {
  const resolved: ResolvedPersistentDir<TExtraBody, TSession>[] = [];
  for (const definition of options.dirs) {
    const harnessDir = validateHarnessDir({ harnessDir: definition.harnessDir });
    const mode = definition.commit ?? "after-turn";
    if (!COMMIT_MODES.includes(mode)) {
      throw new HarnessValidationError({
        surface: "dir",
        message: `${harnessDir}: unknown commit mode ${JSON.stringify(mode)}.`,
        details: { harnessDir, mode },
      });
    }
    if (typeof definition.load !== "function") {
      throw new HarnessValidationError({
        surface: "dir",
        message: `${harnessDir}: load must be a function.`,
        details: { harnessDir },
      });
    }
    if (mode !== "read-only" && typeof definition.store !== "function") {
      throw new HarnessValidationError({
        surface: "dir",
        message: `${harnessDir}: a "${mode}" dir needs a store function (or use commit: "read-only").`,
        details: { harnessDir, mode },
      });
    }
    const lazyMethods = [definition.loadIndex, definition.readBodies].filter(
      (method) => typeof method === "function",
    ).length;
    if (lazyMethods === 1) {
      throw new HarnessValidationError({
        surface: "dir",
        message: `${harnessDir}: a lazy dir needs both loadIndex and readBodies (or neither).`,
        details: { harnessDir },
      });
    }
    for (const other of resolved) {
      if (
        isWithinHarnessDir({ path: harnessDir, harnessDir: other.harnessDir }) ||
        isWithinHarnessDir({ path: other.harnessDir, harnessDir })
      ) {
        throw new HarnessValidationError({
          surface: "dir",
          message: `Persistent dirs ${other.harnessDir} and ${harnessDir} overlap; each path must belong to exactly one dir.`,
          details: { harnessDirs: [other.harnessDir, harnessDir] },
        });
      }
    }
    resolved.push({
      harnessDir,
      mode,
      limits: resolveDirLimits({ limits: definition.limits }),
      definition,
      lazy: lazyMethods === 2,
    });
  }
  return resolved;
}
