import type { Refinement } from "@/lib/harness";

/** What a refinement did to the harness, by edit. */
export interface EditCounts {
  created: number;
  updated: number;
  deleted: number;
  failed: number;
  /** Edits waiting for approval (a pending proposal). */
  pending: number;
}

/**
 * Counts applied edits by action, plus failed and pending ones. For rollbacks and restores the
 * action is the inverse edit that ran (a rolled-back create counts as a delete).
 */
export function editCounts(refinement: Pick<Refinement, "edits">): EditCounts {
  const counts: EditCounts = { created: 0, updated: 0, deleted: 0, failed: 0, pending: 0 };
  for (const edit of refinement.edits) {
    if (edit.result === "failed") counts.failed++;
    else if (edit.result === "pending") counts.pending++;
    else if (edit.result === "applied") {
      if (edit.proposed.action === "create") counts.created++;
      else if (edit.proposed.action === "update") counts.updated++;
      else if (edit.proposed.action === "delete") counts.deleted++;
    }
  }
  return counts;
}
