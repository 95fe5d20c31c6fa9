"use client";

import { Bar, BarChart, ErrorBar, LabelList, XAxis, YAxis } from "recharts";
import type { RatedShare } from "@/lib/feedback/stats";
import { describeShare } from "./share-text";

/**
 * A refinement's rated answers before and after it: two bars (share rated good) with their 95%
 * Wilson intervals. The numbers are in the accessible name and in the text beside it.
 */
export function BeforeAfterChart({ before, after }: { before: RatedShare; after: RatedShare }) {
  const data = [
    { name: `Before ${count(before)}`, ...bar(before) },
    { name: `After ${count(after)}`, ...bar(after) },
  ];
  return (
    <figure
      className="text-foreground"
      data-testid="before-after-chart"
      aria-label={`Answers rated good: before ${describeShare(before)}; after ${describeShare(after)}`}
    >
      <BarChart
        width={180}
        height={84}
        data={data}
        margin={{ top: 16, right: 4, bottom: 0, left: 4 }}
      >
        <XAxis
          dataKey="name"
          tickLine={false}
          axisLine={{ stroke: "var(--border)" }}
          tick={{ fill: "var(--muted-foreground)", fontSize: 11 }}
        />
        <YAxis hide domain={[0, 100]} />
        <Bar dataKey="value" fill="var(--primary)" isAnimationActive={false} radius={[3, 3, 0, 0]}>
          <ErrorBar dataKey="error" width={6} stroke="var(--foreground)" strokeWidth={1} />
          <LabelList
            dataKey="label"
            position="top"
            offset={2}
            style={{ fill: "var(--foreground)", fontSize: 10 }}
          />
        </Bar>
      </BarChart>
    </figure>
  );
}

/** "7/10" good of rated, under each bar. */
function count(share: RatedShare): string {
  return `${share.good}/${share.total}`;
}

function bar(share: RatedShare): { value: number; error: [number, number]; label: string } {
  if (share.share === null || share.low === null || share.high === null)
    return { value: 0, error: [0, 0], label: "—" };
  const value = share.share * 100;
  return {
    value,
    error: [value - share.low * 100, share.high * 100 - value],
    label: `${Math.round(value)}%`,
  };
}
