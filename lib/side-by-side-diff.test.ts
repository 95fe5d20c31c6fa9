import { describe, expect, it } from "vitest";
import { DEFAULT_DIFF_LIMITS, sideBySideDiff } from "./side-by-side-diff";

function rowsOf(result: ReturnType<typeof sideBySideDiff>) {
  if (result.kind !== "rows") throw new Error(`expected rows, got ${result.reason}`);
  return result.rows;
}

/** `count` lines, each unique to `tag`, so two calls with different tags share no line. */
function distinctLines(tag: string, count: number): string {
  return Array.from({ length: count }, (_, index) => `${tag}${index}`).join("\n");
}

describe("sideBySideDiff", () => {
  it("pairs a replaced line with its replacement and keeps unchanged lines aligned", () => {
    const rows = rowsOf(sideBySideDiff("a\nb\nc\n", "a\nB\nc\nd\n"));
    expect(rows).toEqual([
      { left: { line: 1, text: "a", kind: "same" }, right: { line: 1, text: "a", kind: "same" } },
      {
        left: { line: 2, text: "b", kind: "removed" },
        right: { line: 2, text: "B", kind: "added" },
      },
      { left: { line: 3, text: "c", kind: "same" }, right: { line: 3, text: "c", kind: "same" } },
      { left: null, right: { line: 4, text: "d", kind: "added" } },
    ]);
  });

  it("shows a pure removal with an empty right side", () => {
    expect(rowsOf(sideBySideDiff("x\ny", "x"))).toEqual([
      { left: { line: 1, text: "x", kind: "same" }, right: { line: 1, text: "x", kind: "same" } },
      { left: { line: 2, text: "y", kind: "removed" }, right: null },
    ]);
  });

  // Issue 14 finding 3: two versions of a 24 KB entry with 8,000 different lines kept a page
  // render (and every other request) busy for 14.6 s. Now the size limits refuse such a pair,
  // and the edit-length limit stops a smaller pair that differs everywhere.
  it("refuses the pair from the report (8,000 different lines) without diffing", () => {
    expect(sideBySideDiff(distinctLines("a", 8000), distinctLines("b", 8000))).toEqual({
      kind: "too-different",
      reason: "too-large",
    });
  });

  it("gives up on two versions that differ in more lines than the edit-length limit", () => {
    const before = distinctLines("a", 4000);
    const after = distinctLines("b", 4000);
    expect(before.length + after.length).toBeLessThan(DEFAULT_DIFF_LIMITS.maxChars);
    expect(sideBySideDiff(before, after)).toEqual({
      kind: "too-different",
      reason: "too-many-changes",
    });
  });

  it("gives up on texts larger than the size limit without diffing", () => {
    const big = "x".repeat(DEFAULT_DIFF_LIMITS.maxChars);
    expect(sideBySideDiff(big, `${big}y`)).toEqual({ kind: "too-different", reason: "too-large" });
  });

  it("still diffs a long text with a few changes", () => {
    const before = distinctLines("a", 5000);
    const after = before.replace("a2500\n", "changed\n");
    const rows = rowsOf(sideBySideDiff(before, after));
    expect(rows.filter((row) => row.left?.kind === "removed")).toEqual([
      {
        left: { line: 2501, text: "a2500", kind: "removed" },
        right: { line: 2501, text: "changed", kind: "added" },
      },
    ]);
  });
});
