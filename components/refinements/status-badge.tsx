import Link from "next/link";
import { Badge } from "@/components/ui/badge";
import type { RefinementStatus } from "@/lib/harness";
import { cn } from "@/lib/utils";
import { STATUS_LABELS, STATUS_TONES } from "./refinement-labels";

/**
 * A refinement's status as a coloured badge. A refinement that was rolled back reads "Rolled
 * back" and links to the rollback, whatever it did at the time.
 */
export function StatusBadge({
  status,
  rolledBackBy,
  className,
}: {
  status: RefinementStatus;
  /** The rollback that undid this refinement, if any. */
  rolledBackBy?: { id: string } | null;
  className?: string;
}) {
  if (rolledBackBy) {
    return (
      <Link href={`/refinements/${rolledBackBy.id}`} data-testid="rolled-back-link">
        <Badge
          className={cn("text-muted-foreground border-dashed hover:underline", className)}
          data-testid="refinement-status"
          data-status="rolled_back"
          title="Its edits were undone; open the rollback"
        >
          Rolled back
        </Badge>
      </Link>
    );
  }
  return (
    <Badge
      className={cn(STATUS_TONES[status], className)}
      data-testid="refinement-status"
      data-status={status}
    >
      {STATUS_LABELS[status]}
    </Badge>
  );
}
