import { describe, expect, it } from "vitest";
import { mergeText, rebaseChanges } from "./merge";

describe("mergeText: merges a note-taker expects", () => {
  it("keeps both appends at the end, the earlier commit first", () => {
    const base = "# Notes\n- one\n";
    const theirs = `${base}- from the first turn\n`;
    const ours = `${base}- from the second turn\n`;
    expect(mergeText({ base, ours, theirs })).toBe(
      "# Notes\n- one\n- from the first turn\n- from the second turn\n",
    );
  });

  it("keeps both appends to a file without a final newline", () => {
    expect(mergeText({ base: "a", ours: "a\nours", theirs: "a\ntheirs" })).toBe("a\ntheirs\nours");
  });

  it("keeps both insertions at the same place in the middle, several lines each", () => {
    const base = "top\nbottom\n";
    expect(
      mergeText({ base, ours: "top\no1\no2\nbottom\n", theirs: "top\nt1\nt2\nbottom\n" }),
    ).toBe("top\nt1\nt2\no1\no2\nbottom\n");
  });

  it("merges insertions at different places", () => {
    const base = "a\nb\nc\nd\n";
    expect(mergeText({ base, ours: "a\nb\nc\nours\nd\n", theirs: "theirs\na\nb\nc\nd\n" })).toBe(
      "theirs\na\nb\nc\nours\nd\n",
    );
  });

  it("keeps an identical insertion once", () => {
    expect(mergeText({ base: "a\n", ours: "a\nsame\n", theirs: "a\nsame\n" })).toBe("a\nsame\n");
  });

  it("leaves the same line changed differently a conflict", () => {
    expect(mergeText({ base: "a\nb\nc\n", ours: "a\nB1\nc\n", theirs: "a\nB2\nc\n" })).toBeNull();
  });

  it("leaves a change next to the other side's insertion a conflict", () => {
    expect(mergeText({ base: "a\nb\n", ours: "a\nb\nnew\n", theirs: "a\nB\n" })).toBeNull();
  });

  it("leaves a deletion against an edit of the same line a conflict", () => {
    expect(mergeText({ base: "a\nb\nc\n", ours: "a\nc\n", theirs: "a\nB\nc\n" })).toBeNull();
  });
});

describe("rebaseChanges with appends", () => {
  it("commits an append on top of another turn's append to the same file", () => {
    const base = "- first\n";
    const result = rebaseChanges({
      changes: {
        created: [],
        updated: [{ path: "notes.md", content: `${base}- ours\n` }],
        deleted: [],
      },
      base: { "notes.md": base },
      theirs: new Map([["notes.md", `${base}- theirs\n`]]),
    });
    expect(result.conflicts).toEqual([]);
    expect(result.merged).toEqual(["notes.md"]);
    expect(result.snapshot?.["notes.md"]).toBe("- first\n- theirs\n- ours\n");
  });

  it("reports both-modified when the same line changed differently", () => {
    const result = rebaseChanges({
      changes: { created: [], updated: [{ path: "notes.md", content: "ours\n" }], deleted: [] },
      base: { "notes.md": "base\n" },
      theirs: new Map([["notes.md", "theirs\n"]]),
    });
    expect(result.conflicts.map((conflict) => conflict.reason)).toEqual(["both-modified"]);
    expect(result.changes.updated).toEqual([]);
  });
});
