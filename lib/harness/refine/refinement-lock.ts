import { type EntryScope } from "../store";

/**
 * Serializes refinements: at most one runs at a time per key. Keys are
 * `global:<workspaceId>` for the workspace's global scope and `chat:<chatId>` for a chat's
 * local scope (`refinementLockKey`).
 *
 * The default lock lives in this process only. Deployments with several app instances rely
 * on the optimistic checks of `harness.applyEdits` as the backstop: every batch carries the
 * harness version and each entry's version it was validated against, so a refinement that
 * raced another one on a different instance is refused (and re-validated) instead of
 * overwriting its changes.
 */
export interface RefinementLock {
  /** Runs `task` once no other task holds `key`; later callers wait their turn (FIFO). */
  runExclusive<T>(key: string, task: () => Promise<T>): Promise<T>;
  /** Whether a task currently holds `key` (so a caller can skip instead of queueing). */
  isLocked(key: string): boolean;
}

/** The lock key of a refinement's scope. */
export function refinementLockKey(options: {
  workspaceId: string;
  scope: EntryScope;
  chatId: string | null;
}): string {
  return options.scope === "global"
    ? `global:${options.workspaceId}`
    : `chat:${options.chatId ?? ""}`;
}

/** A new in-process lock. */
export function createRefinementLock(): RefinementLock {
  const tails = new Map<string, Promise<unknown>>();
  return {
    async runExclusive<T>(key: string, task: () => Promise<T>): Promise<T> {
      const previous = tails.get(key) ?? Promise.resolve();
      const run = previous.then(task, task);
      const settled = run.then(
        () => undefined,
        () => undefined,
      );
      tails.set(key, settled);
      try {
        return await run;
      } finally {
        if (tails.get(key) === settled) tails.delete(key);
      }
    },
    isLocked(key: string): boolean {
      return tails.has(key);
    },
  };
}

/** The process-wide lock every pipeline function uses unless given another one. */
export const defaultRefinementLock: RefinementLock = createRefinementLock();
