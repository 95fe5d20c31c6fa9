import { describe, expect, it } from "vitest";
import { sideBySideDiff } from "./side-by-side-diff";

describe("sideBySideDiff", () => {
  it("pairs a replaced line with its replacement and keeps unchanged lines aligned", () => {
    const rows = sideBySideDiff("a\nb\nc\n", "a\nB\nc\nd\n");
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
    expect(sideBySideDiff("x\ny", "x")).toEqual([
      { left: { line: 1, text: "x", kind: "same" }, right: { line: 1, text: "x", kind: "same" } },
      { left: { line: 2, text: "y", kind: "removed" }, right: null },
    ]);
  });
});
