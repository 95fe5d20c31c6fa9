import { hasErrorMarker, HarnessValidationError } from "@/lib/harness";

const marker = Symbol.for("cairn.storage.error.dir_history_quota");

/** Which history quota refused a commit. */
export type DirHistoryQuota = "dir" | "shared";

/**
 * A commit refused because it would take a database-backed dir's history past its quota: the
 * dir's own (`CAIRN_DIR_HISTORY_MAX_BYTES`) or the shared one it counts against
 * (`CAIRN_WORKSPACE_HISTORY_MAX_BYTES` in the app). Nothing was written; the caller keeps the
 * change set as a failed commit like any refused one. Code `validation:dir`, as the dir's other
 * limits; `details` names the quota, its limit, what is used and what the change would add.
 */
export class DirHistoryQuotaError extends HarnessValidationError {
  private readonly [marker] = true;

  constructor(options: {
    message: string;
    quota: DirHistoryQuota;
    dirKey: string;
    quotaKey: string | null;
    limitBytes: number;
    usedBytes: number;
    addedBytes: number;
  }) {
    const { message, ...details } = options;
    super({ surface: "dir", message, details });
  }

  static override isInstance(error: unknown): error is DirHistoryQuotaError {
    return hasErrorMarker(error, marker);
  }
}
