import { describe, expect, it } from "vitest";
import { beforeAfter, judgeRefinement, versionRanges, wilsonInterval } from "./stats";

describe("wilsonInterval", () => {
  it("matches hand-computed 95% intervals", () => {
    // 7 of 10: centre (0.7 + 1.92/10)/(1.384) = 0.6445, margin 0.2477.
    const seven = wilsonInterval(7, 10);
    expect(seven.share).toBe(0.7);
    expect(seven.low).toBeCloseTo(0.3968, 4);
    expect(seven.high).toBeCloseTo(0.8922, 4);
    // 10 of 10: centre 0.8612, margin 0.1388 → [0.7225, 1].
    const all = wilsonInterval(10, 10);
    expect(all.low).toBeCloseTo(0.7225, 4);
    expect(all.high).toBe(1);
    // 0 of 3: centre = margin = 0.2808 → [0, 0.5615].
    const none = wilsonInterval(0, 3);
    expect(none.low).toBe(0);
    expect(none.high).toBeCloseTo(0.5615, 4);
    expect(wilsonInterval(0, 0)).toEqual({ total: 0, good: 0, share: null, low: null, high: null });
  });

  it("refuses impossible counts", () => {
    expect(() => wilsonInterval(3, 2)).toThrow(RangeError);
    expect(() => wilsonInterval(-1, 2)).toThrow(RangeError);
  });
});

const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString();

describe("versionRanges and judgeRefinement", () => {
  const refinements = [
    { id: "r1", harnessVersionAfter: 5, createdAt: at(10) },
    { id: "r2", harnessVersionAfter: 9, createdAt: at(20) },
  ];
  const outcomes = [
    { harnessVersion: 1, rating: "bad" as const, turnAt: at(1) },
    { harnessVersion: 4, rating: "good" as const, turnAt: at(2) },
    { harnessVersion: 5, rating: "good" as const, turnAt: at(11) },
    { harnessVersion: 8, rating: "good" as const, turnAt: at(12) },
    { harnessVersion: 9, rating: "bad" as const, turnAt: at(21) },
    { harnessVersion: null, rating: "bad" as const, turnAt: at(22) },
  ];

  it("splits answers at each refinement's version", () => {
    const ranges = versionRanges(outcomes, refinements);
    expect(
      ranges.map((range) => [range.fromVersion, range.toVersion, range.good, range.total]),
    ).toEqual([
      [0, 5, 1, 2],
      [5, 9, 2, 2],
      [9, null, 0, 1],
    ]);
    expect(ranges[1]!.startedBy).toBe("r1");
    expect(ranges[1]!.firstTurnAt).toBe(at(11));
  });

  it("judges supported, not supported and regressed only once enough answers followed", () => {
    const counts = beforeAfter("r1", outcomes, refinements)!;
    expect(counts.before.total).toBe(2);
    expect(counts.after.total).toBe(2);
    expect(judgeRefinement(counts, 3)).toBeNull();
    // 2 of 2 after: low 0.3424 < 0.5 before → not supported.
    expect(judgeRefinement(counts, 2)).toMatchObject({
      verdict: "not_supported",
      regressed: false,
    });

    const tenGood = { before: wilsonInterval(0, 3), after: wilsonInterval(10, 10) };
    expect(judgeRefinement(tenGood, 10)).toMatchObject({ verdict: "supported", regressed: false });
    const worse = { before: wilsonInterval(10, 10), after: wilsonInterval(1, 10) };
    expect(judgeRefinement(worse, 10)).toMatchObject({ verdict: "not_supported", regressed: true });
    // Nothing rated before: measured against 50%.
    const fresh = { before: wilsonInterval(0, 0), after: wilsonInterval(9, 10) };
    expect(judgeRefinement(fresh, 10)).toMatchObject({ verdict: "supported", regressed: false });
  });
});
