import type { SqlExecutor } from "@/lib/sql-storage/sql";
import { getWorkspaceDirLimits, type WorkspaceDirLimitValues } from "@/lib/workspace-settings";

/** How long a process uses a workspace's dir limits before reading them again. */
export const WORKSPACE_DIR_LIMITS_TTL_MS = 5_000;

/**
 * The workspaces' dir limits as saved on Admin → Settings (decision 0062), per process. A chat
 * turn reads them with its chat (`findChatForTurn`, no extra statement) and hands them over with
 * `remember`, so its dirs use what it read; other callers (the Files editor, retries, MCP) read
 * them at most every `WORKSPACE_DIR_LIMITS_TTL_MS` per workspace (one small statement). A save on
 * this instance `remember`s the new values at once; another instance sees them with its next
 * chat turn in that workspace, or within the TTL. A failed read keeps the last values known.
 */
export interface WorkspaceDirLimitsCache {
  /** The workspace's six limits (`null` where the server's apply). */
  get(workspaceId: string): Promise<WorkspaceDirLimitValues>;
  /** Keeps values just read or saved for `workspaceId`. */
  remember(workspaceId: string, values: WorkspaceDirLimitValues): void;
}

export function createWorkspaceDirLimitsCache(options: {
  sql: () => SqlExecutor;
  /** Default: `Date.now`. */
  now?: () => number;
  ttlMs?: number;
}): WorkspaceDirLimitsCache {
  const now = options.now ?? Date.now;
  const ttlMs = options.ttlMs ?? WORKSPACE_DIR_LIMITS_TTL_MS;
  const cache = new Map<string, { values: WorkspaceDirLimitValues; at: number }>();
  const remember = (workspaceId: string, values: WorkspaceDirLimitValues) => {
    cache.set(workspaceId, { values, at: now() });
  };
  return {
    async get(workspaceId) {
      const cached = cache.get(workspaceId);
      if (cached && now() - cached.at < ttlMs) return cached.values;
      try {
        const values = await getWorkspaceDirLimits(options.sql(), workspaceId);
        remember(workspaceId, values);
        return values;
      } catch (error) {
        if (cached) return cached.values;
        throw error;
      }
    },
    remember,
  };
}
