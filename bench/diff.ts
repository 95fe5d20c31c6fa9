// The side-by-side diff at its limits (issue 14, finding 3): the worst inputs a user can make
// within DEFAULT_DIFF_LIMITS — texts just under the line limit that differ in every line (the
// diff gives up at the edit-length limit) or in just under that many lines (the diff succeeds
// with the most work allowed) — and a pair over the size limit (refused before any work).
import { DEFAULT_DIFF_LIMITS, sideBySideDiff } from "@/lib/side-by-side-diff";
import { loadLine, ms, table, timeIt } from "./stats";

function lines(tag: string, count: number): string[] {
  return Array.from({ length: count }, (_, index) => `${tag}${index}`);
}

export async function benchDiff(): Promise<string> {
  const half = Math.floor(DEFAULT_DIFF_LIMITS.maxLines / 2) - 1;
  const base = lines("a", half);
  // Every other line changed, up to just under the edit-length limit (each change is 2 edits).
  const changes = Math.floor(DEFAULT_DIFF_LIMITS.maxEditLength / 2) - 1;
  const nearLimit = base.map((line, index) =>
    index % 2 === 0 && index / 2 < changes ? `b${index}` : line,
  );
  const cases: [string, string, string][] = [
    ["every line differs (gives up)", base.join("\n"), lines("b", half).join("\n")],
    [`${changes} lines changed (diffs)`, base.join("\n"), nearLimit.join("\n")],
    ["over the size limit (refused)", "x\n".repeat(DEFAULT_DIFF_LIMITS.maxChars), "y\n"],
  ];
  const rows: Record<string, string>[] = [];
  for (const [label, before, after] of cases) {
    const kind = sideBySideDiff(before, after).kind;
    const timing = await timeIt(() => sideBySideDiff(before, after), { iterations: 10, warmup: 2 });
    rows.push({
      case: label,
      result: kind,
      p50: ms(timing.p50),
      p95: ms(timing.p95),
      "cpu p50": ms(timing.cpu.p50),
    });
  }
  return [
    `## diff at its limits (${half} lines a side, limits ${JSON.stringify(DEFAULT_DIFF_LIMITS)})`,
    loadLine(),
    table(rows),
  ].join("\n");
}
