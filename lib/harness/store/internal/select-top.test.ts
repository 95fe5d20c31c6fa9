import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { selectTop } from "./select-top";

describe("selectTop", () => {
  it("returns the same prefix as a full sort, for any input order and count", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 300 }),
        fc.integer({ min: -2, max: 320 }),
        (keys, count) => {
          // Ties broken by index: a total order, as the prompt view uses.
          const compare = (a: number, b: number) => keys[a]! - keys[b]! || a - b;
          const indices = Int32Array.from(keys.keys());
          const expected = [...indices].sort(compare).slice(0, Math.max(0, count));
          expect([...selectTop(indices, count, compare)]).toEqual(expected);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("stays linear on sorted and reverse-sorted input", () => {
    for (const direction of [1, -1]) {
      let calls = 0;
      const compare = (a: number, b: number) => {
        calls += 1;
        return direction * (a - b);
      };
      selectTop(
        Int32Array.from({ length: 20_000 }, (_, index) => index),
        100,
        compare,
      );
      expect(calls).toBeLessThan(20_000 * 8);
    }
  });
});
