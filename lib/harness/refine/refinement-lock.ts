import { type EntryScope } from "../store";

/**
 * Serializes refinements: at most one runs at a time per key. Keys are
 * `global:<workspaceId>` for the workspace's global scope and `chat:<chatId>` for a chat's
 * local scope (`refinementLockKey`). Run, approve, rollback and restore all take it.
 *
 * `createRefinementLock` holds in this process only (tests, one-process tools). The app passes
 * a database lock (`lib/sql-storage`: a PostgreSQL advisory lock, or a lock row on SQLite)
 * that holds across every process on the database. The optimistic checks of
 * `harness.applyEdits` stay as the backstop: every batch carries the harness version and each
 * entry's version it was validated against, and creates are re-validated against what existed
 * at planning.
 */
export interface RefinementLock {
  /**
   * Runs `task` once no other task, in any process sharing this lock, holds `key`; later
   * callers wait their turn. The lock is released when `task` settles, and — for database
   * locks — when the holding process dies. Aborting while waiting rejects with the abort
   * reason and runs nothing.
   */
  runExclusive<T>(
    key: string,
    task: () => Promise<T>,
    options?: { abortSignal?: AbortSignal },
  ): Promise<T>;
}

/** A lock that serializes nothing: for a task that already holds the real lock (re-entry). */
export const heldRefinementLock: RefinementLock = {
  runExclusive: (_key, task) => task(),
};

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

/** A new in-process lock (FIFO per key). `isLocked` tells whether a task holds `key` now. */
export function createRefinementLock(): RefinementLock & { isLocked(key: string): boolean } {
  const tails = new Map<string, Promise<unknown>>();
  return {
    async runExclusive<T>(
      key: string,
      task: () => Promise<T>,
      options?: { abortSignal?: AbortSignal },
    ): Promise<T> {
      options?.abortSignal?.throwIfAborted();
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
