import type { SqlExecutor } from "@/lib/sql-storage/sql";
import type { ModelKeyring } from "./secret-box";
import {
  readModelSettingsRow,
  workspaceModelOf,
  type WorkspaceModelResult,
} from "./model-settings-store";

/**
 * The workspaces' saved models, per process: each entry is kept with the row's `version` and
 * used while the database still holds that version. A chat turn passes the version it read with
 * the chat (`findChatForTurn`, no extra statement); other callers read the version (one small
 * query). A change saved on any instance is used by the next turn on every instance.
 */
export interface WorkspaceModels {
  /** The saved model of `workspaceId`, or null when none is saved. */
  get(workspaceId: string, knownVersion?: number | null): Promise<WorkspaceModelResult | null>;
  /** Drops the process's copy (after a save on this instance). */
  forget(workspaceId: string): void;
}

export function createWorkspaceModels(options: {
  sql: () => SqlExecutor;
  key: () => ModelKeyring;
}): WorkspaceModels {
  const cache = new Map<string, { version: number; result: WorkspaceModelResult }>();
  return {
    async get(workspaceId, knownVersion) {
      let version = knownVersion;
      if (version === undefined) {
        const row = await options
          .sql()
          .get<{ version: number | string }>(
            `SELECT "version" FROM "ModelSettings" WHERE "workspaceId" = ?`,
            [workspaceId],
          );
        version = row ? Number(row.version) : null;
      }
      if (version === null) {
        cache.delete(workspaceId);
        return null;
      }
      const cached = cache.get(workspaceId);
      if (cached && cached.version === version) return cached.result;
      const row = await readModelSettingsRow(options.sql(), workspaceId);
      if (!row) {
        cache.delete(workspaceId);
        return null;
      }
      const result = workspaceModelOf(row, options.key());
      cache.set(workspaceId, { version: row.version, result });
      return result;
    },
    forget(workspaceId) {
      cache.delete(workspaceId);
    },
  };
}
