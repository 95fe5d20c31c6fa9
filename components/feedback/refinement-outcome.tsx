import type { ReactNode } from "react";
import type { AutoVerdict, BeforeAfter } from "@/lib/feedback";
import { cn } from "@/lib/utils";
import { BeforeAfterChart } from "./before-after-chart";
import { describeShare } from "./share-text";

/**
 * What rated answers say about a refinement: its before / after chart, the automatic verdict
 * once enough answers followed it, and — with the workspace's guard rail on — the regression
 * flag with the rollback control the caller hands in (never rolled back by itself).
 */
export function RefinementOutcome({
  counts,
  verdict,
  judgeAfter,
  guardRail,
  rollback,
}: {
  counts: BeforeAfter | undefined;
  verdict: AutoVerdict | undefined;
  judgeAfter: number;
  guardRail: boolean;
  /** The rollback control, when the viewer may roll it back. */
  rollback?: ReactNode;
}) {
  const before = verdict?.before ?? counts?.before;
  const after = verdict?.after ?? counts?.after;
  if (!before || !after) return null;
  const flagged = guardRail && verdict?.regressed === true;
  return (
    <div className="space-y-1" data-testid="refinement-outcome">
      <BeforeAfterChart before={before} after={after} />
      {verdict ? (
        <p
          className={cn(
            "text-xs font-medium",
            verdict.verdict === "supported"
              ? "text-green-700 dark:text-green-400"
              : "text-amber-700 dark:text-amber-400",
          )}
          data-testid="auto-verdict"
          data-verdict={verdict.verdict}
        >
          {verdict.verdict === "supported" ? "Supported" : "Not supported"} by {after.total} rated
          answers
        </p>
      ) : (
        <p className="text-muted-foreground text-xs" data-testid="auto-verdict-pending">
          {after.total} of {judgeAfter} rated answers after it
        </p>
      )}
      <p className="text-muted-foreground text-xs">
        Before: {describeShare(before)}. After: {describeShare(after)}.
      </p>
      {flagged ? (
        <div
          className="border-destructive/60 space-y-2 rounded-md border p-2 text-xs"
          data-testid="guard-rail-flag"
        >
          <p className="text-destructive font-medium">
            Answers got worse after this refinement: the share rated good fell below the one before
            by more than the 95% intervals allow.
          </p>
          {rollback ?? null}
        </div>
      ) : null}
    </div>
  );
}
