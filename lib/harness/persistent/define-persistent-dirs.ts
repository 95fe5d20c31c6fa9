import { describeError, HarnessValidationError } from "../errors";
import {
  DEFAULT_DIR_LIMITS,
  isWithinHarnessDir,
  resolveDirLimits,
  validateHarnessDir,
} from "./paths";
import {
  COMMIT_MODES,
  type CommitMode,
  type DirLimits,
  type DirLimitsResolver,
  type PersistentDir,
} from "./types";

/** A dir definition after validation: normalised mount point, resolved mode and limits. */
export interface ResolvedPersistentDir<TExtraBody = unknown, TSession = unknown> {
  harnessDir: string;
  mode: CommitMode;
  /**
   * The dir's limits. For a dir whose `limits` is a resolver they hold only once
   * `withTurnLimits` resolved them for a turn or commit (`pendingLimits` is then gone); until
   * then they are the defaults and no check may rely on them.
   */
  limits: DirLimits;
  /** Set while `limits` is the definition's resolver, not yet called for this turn or commit. */
  pendingLimits?: DirLimitsResolver<TExtraBody, TSession>;
  definition: PersistentDir<TExtraBody, TSession>;
  /** Whether the dir offers the lazy capability (`loadIndex` + `readBodies`). */
  lazy: boolean;
}

/**
 * The dir with its limits for one turn or one commit: a dir whose `limits` is a resolver has it
 * called here, once, and the result validated as static limits are (each a positive integer;
 * missing ones the defaults). A throw or a bad value is a `validation:dir` error naming the dir.
 * A dir with static (or already resolved) limits is returned as it is, without a call.
 */
export async function withTurnLimits<TExtraBody, TSession>(
  dir: ResolvedPersistentDir<TExtraBody, TSession>,
  context: { extraBody: TExtraBody; session: TSession },
): Promise<ResolvedPersistentDir<TExtraBody, TSession>> {
  const resolver = dir.pendingLimits;
  if (!resolver) return dir;
  let value: unknown;
  try {
    value = await resolver({ extraBody: context.extraBody, session: context.session });
  } catch (error) {
    throw new HarnessValidationError({
      surface: "dir",
      message: `${dir.harnessDir}: its limits could not be decided for this turn: ${describeError(error).message}`,
      details: { harnessDir: dir.harnessDir },
      cause: error,
    });
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new HarnessValidationError({
      surface: "dir",
      message: `${dir.harnessDir}: Dir limits must be an object of positive integers.`,
      details: { harnessDir: dir.harnessDir, limits: value === null ? null : typeof value },
    });
  }
  const { pendingLimits: _resolved, ...rest } = dir;
  return {
    ...rest,
    limits: resolveDirLimits({
      limits: value as Partial<DirLimits>,
      harnessDir: dir.harnessDir,
    }),
  };
}

/**
 * The limits a dir has for a turn with this host data: its static limits (with the defaults), or
 * what its resolver says, validated (`validation:dir` for a throw or a bad value). For a host
 * that checks sizes before handing content to the dir, e.g. an upload form.
 */
export async function resolveDirLimitsFor<TExtraBody, TSession>(options: {
  dir: PersistentDir<TExtraBody, TSession>;
  extraBody: TExtraBody;
  session: TSession;
}): Promise<DirLimits> {
  const [dir] = resolvePersistentDirs({ dirs: [options.dir] });
  return (await withTurnLimits(dir!, options)).limits;
}

/**
 * Validates a list of persistent dirs at definition time and returns it unchanged (with each
 * `harnessDir` NFC-normalised). Throws `validation:dir` when a `harnessDir` is not under
 * `/persistent/`, two dirs overlap (one equals or contains the other), a mode is unknown, a
 * writable dir has no `store`, or a static limit is not a positive integer (limits given as
 * a resolver are checked per turn, see `withTurnLimits`).
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
    const { limits } = definition;
    resolved.push({
      harnessDir,
      mode,
      // Static limits are checked here, up front; a resolver's result once per turn.
      ...(typeof limits === "function"
        ? { limits: DEFAULT_DIR_LIMITS, pendingLimits: limits }
        : { limits: resolveDirLimits({ limits }) }),
      definition,
      lazy: lazyMethods === 2,
    });
  }
  return resolved;
}
