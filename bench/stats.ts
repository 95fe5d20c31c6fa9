/** Small helpers shared by the benchmarks. */
import { loadavg } from "node:os";

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

export interface Summary {
  n: number;
  p50: number;
  p95: number;
  min: number;
  mean: number;
}

export function summarize(samples: number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    min: sorted[0] ?? Number.NaN,
    mean: sorted.reduce((sum, value) => sum + value, 0) / Math.max(1, sorted.length),
  };
}

/**
 * Times `run` `iterations` times after `warmup` untimed runs; milliseconds per run.
 * `before` runs untimed ahead of every run (e.g. to empty a cache for a cold measurement).
 * Besides wall time, `cpu` summarises the process's CPU time per run: on a machine shared
 * with other work, wall time includes waiting for a core, CPU time mostly does not (it does
 * include V8's helper threads, e.g. concurrent GC, so it can exceed wall time).
 */
export async function timeIt(
  run: () => unknown,
  options: { iterations: number; warmup?: number; before?: () => unknown },
): Promise<Summary & { cpu: Summary }> {
  for (let index = 0; index < (options.warmup ?? 5); index++) {
    await options.before?.();
    await run();
  }
  const samples: number[] = [];
  const cpuSamples: number[] = [];
  for (let index = 0; index < options.iterations; index++) {
    await options.before?.();
    const cpuStarted = process.cpuUsage();
    const started = performance.now();
    await run();
    samples.push(performance.now() - started);
    const cpu = process.cpuUsage(cpuStarted);
    cpuSamples.push((cpu.user + cpu.system) / 1000);
  }
  return { ...summarize(samples), cpu: summarize(cpuSamples) };
}

export const ms = (value: number) => `${value.toFixed(value < 10 ? 2 : 1)} ms`;

/** The 1-minute load average and core count, to print next to figures. */
export function loadLine(): string {
  const [one, five] = loadavg();
  return `load average ${one!.toFixed(2)} (1 min), ${five!.toFixed(2)} (5 min)`;
}

export function table(rows: Record<string, string | number>[]): string {
  const headers = Object.keys(rows[0] ?? {});
  const widths = headers.map((header) =>
    Math.max(header.length, ...rows.map((row) => String(row[header]).length)),
  );
  const line = (cells: string[]) =>
    cells.map((cell, index) => cell.padEnd(widths[index]!)).join("  ");
  return [
    line(headers),
    line(widths.map((width) => "-".repeat(width))),
    ...rows.map((row) => line(headers.map((h) => String(row[h])))),
  ].join("\n");
}
