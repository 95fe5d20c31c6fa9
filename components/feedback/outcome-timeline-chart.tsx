"use client";

import {
  CartesianGrid,
  ErrorBar,
  Line,
  LineChart,
  ReferenceLine,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";

/** One version range with rated answers: where it sits in time and its share good. */
export interface TimelinePoint {
  /** Epoch ms of the range's first rated answer. */
  at: number;
  /** Share good, 0–100. */
  value: number;
  /** Distance to the 95% interval's ends, in points. */
  error: [number, number];
  total: number;
  versions: string;
}

/** A refinement marked on the chart. */
export interface TimelineMarker {
  at: number;
  label: string;
}

function day(ms: number): string {
  return new Date(ms).toLocaleString(undefined, {
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
  });
}

/**
 * Success rate over time: one point per harness-version range (the answers produced between two
 * refinements), with its 95% interval, and a dashed line where each refinement applied.
 */
export function OutcomeTimelineChart({
  points,
  markers,
}: {
  points: TimelinePoint[];
  markers: TimelineMarker[];
}) {
  const times = [...points.map((point) => point.at), ...markers.map((marker) => marker.at)];
  const min = Math.min(...times);
  const max = Math.max(...times);
  const pad = Math.max((max - min) * 0.05, 60_000);
  return (
    <div className="h-64 w-full text-xs" data-testid="outcome-timeline-chart">
      <ResponsiveContainer width="100%" height="100%">
        <LineChart data={points} margin={{ top: 16, right: 12, bottom: 4, left: -16 }}>
          <CartesianGrid stroke="var(--border)" strokeDasharray="3 3" />
          <XAxis
            dataKey="at"
            type="number"
            scale="time"
            domain={[min - pad, max + pad]}
            tickFormatter={day}
            tick={{ fill: "var(--muted-foreground)", fontSize: 11 }}
            stroke="var(--border)"
            minTickGap={40}
          />
          <YAxis
            domain={[0, 100]}
            ticks={[0, 25, 50, 75, 100]}
            tickFormatter={(value: number) => `${value}%`}
            tick={{ fill: "var(--muted-foreground)", fontSize: 11 }}
            stroke="var(--border)"
          />
          <Tooltip
            contentStyle={{
              background: "var(--card)",
              border: "1px solid var(--border)",
              color: "var(--foreground)",
            }}
            labelFormatter={(value) => day(Number(value))}
            formatter={(value, _name, item) => {
              const point = item.payload as TimelinePoint;
              return [
                `${Math.round(Number(value))}% of ${point.total} (versions ${point.versions})`,
                "Rated good",
              ];
            }}
          />
          {markers.map((marker, index) => (
            <ReferenceLine
              key={`${marker.at}-${index}`}
              x={marker.at}
              stroke="var(--muted-foreground)"
              strokeDasharray="4 3"
              label={{
                value: marker.label,
                position: "insideTopLeft",
                fill: "var(--muted-foreground)",
                fontSize: 10,
              }}
            />
          ))}
          <Line
            dataKey="value"
            stroke="var(--primary)"
            strokeWidth={2}
            dot={{ r: 3, fill: "var(--primary)" }}
            isAnimationActive={false}
          >
            <ErrorBar dataKey="error" width={6} stroke="var(--primary)" direction="y" />
          </Line>
        </LineChart>
      </ResponsiveContainer>
    </div>
  );
}
