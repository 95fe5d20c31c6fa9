import type { RatedShare } from "@/lib/feedback/stats";

/** A share as a whole percentage, or "—" when nothing was rated. */
export function percent(value: number | null): string {
  return value === null ? "—" : `${Math.round(value * 100)}%`;
}

/** "7 of 10 good (70%, 95% interval 40–89%)", or "no rated answers". */
export function describeShare(share: RatedShare): string {
  if (share.total === 0) return "no rated answers";
  return `${share.good} of ${share.total} good (${percent(share.share)}, 95% interval ${percent(share.low)}–${percent(share.high)})`;
}
