import { Badge } from "@/components/ui/badge";
import type { RefinementStatus } from "@/lib/harness";
import { cn } from "@/lib/utils";
import { STATUS_LABELS, STATUS_TONES } from "./refinement-labels";

/** A refinement's status as a coloured badge. */
export function StatusBadge({
  status,
  className,
}: {
  status: RefinementStatus;
  className?: string;
}) {
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
