import type { EditResult, RefinementStatus, RefinementTrigger } from "@/lib/harness";

/** How a trigger reads in the history. */
export const TRIGGER_LABELS: Record<RefinementTrigger, string> = {
  explicit: "Explicit",
  "every-n-turns": "Every N turns",
  compaction: "After compaction",
  feedback: "Feedback",
  rollback: "Rollback",
  restore: "Restore",
  import: "Imported",
};

/** How a status reads in the history. */
export const STATUS_LABELS: Record<RefinementStatus, string> = {
  queued: "Queued",
  running: "Running",
  applied: "Applied",
  partial: "Partly applied",
  no_changes: "No changes",
  declined: "Declined",
  failed: "Failed",
  pending: "Pending approval",
  rejected: "Rejected",
  imported: "Imported",
};

/** Badge colours by status: green applied, amber needs attention, red failed. */
export const STATUS_TONES: Record<RefinementStatus, string> = {
  queued: "border-sky-500 text-sky-600",
  running: "border-sky-500 text-sky-600",
  applied: "border-green-600 text-green-700 dark:text-green-400",
  partial: "border-amber-500 text-amber-600",
  no_changes: "",
  declined: "",
  failed: "border-destructive text-destructive",
  pending: "border-amber-500 text-amber-600",
  rejected: "border-destructive text-destructive",
  imported: "",
};

/** Badge colours by edit result. */
export const EDIT_RESULT_TONES: Record<EditResult, string> = {
  applied: "border-green-600 text-green-700 dark:text-green-400",
  unchanged: "",
  failed: "border-destructive text-destructive",
  skipped: "",
  pending: "border-amber-500 text-amber-600",
};
