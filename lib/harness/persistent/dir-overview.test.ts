import { describe, expect, it } from "vitest";

import { DirIndexMap } from "./dir-index";
import { buildDirOverview, indexOverview, memoizedNewest, type DirOverview } from "./dir-overview";

describe("memoizedNewest", () => {
  // Dates with ties and some files without one.
  const files: [string, { updatedAt?: Date }][] = Array.from({ length: 200 }, (_, index) => [
    `notes/n-${String((index * 37) % 200).padStart(3, "0")}.md`,
    index % 9 === 0 ? {} : { updatedAt: new Date(1_000_000 + ((index * 7919) % 50) * 1000) },
  ]);
  const sorted = [...files]
    .sort(
      ([a, x], [b, y]) =>
        (y.updatedAt?.getTime() ?? -Infinity) - (x.updatedAt?.getTime() ?? -Infinity) ||
        (a < b ? -1 : 1),
    )
    .map(([path]) => path);

  it("keeps the newest paths in the order a full sort gives, for any limit", () => {
    for (const limit of [1, 2, 10, 50, 199, 200, 500]) {
      expect(
        memoizedNewest({}, limit, () => files),
        `limit ${limit}`,
      ).toEqual(sorted.slice(0, limit));
    }
  });

  it("answers a smaller limit from what it kept, and reads the files again for a larger one", () => {
    const source = {};
    let reads = 0;
    const read = () => {
      reads += 1;
      return files;
    };
    memoizedNewest(source, 20, read);
    expect(memoizedNewest(source, 5, read)).toEqual(sorted.slice(0, 5));
    expect(reads).toBe(1);
    expect(memoizedNewest(source, 40, read)).toEqual(sorted.slice(0, 40));
    expect(reads).toBe(2);
  });
});

describe("buildDirOverview", () => {
  it("counts files, folders and bytes, the top level, and indexes the paths' words", () => {
    const overview = buildDirOverview([
      ["README.md", { bytes: 10 }],
      ["policies/travel-policy.md", { bytes: 5 }],
      ["policies/2024/leave.md", { bytes: 7 }],
    ]);
    expect(overview).toMatchObject({
      fileCount: 3,
      bytes: 22,
      folderCount: 2,
      topFiles: ["README.md"],
    });
    expect([...overview.topFolders]).toEqual([["policies", 2]]);
    expect(overview.words.get("travel")).toEqual(["policies/travel-policy.md"]);
    expect(overview.words.get("2024")).toEqual(["policies/2024/leave.md"]);
    expect(overview.textWords).not.toContain("2024");
  });
});

describe("indexOverview", () => {
  const entry = (bytes: number) => ({ bytes, hash: `h${bytes}` });
  /** An overview with its lists in a fixed order, to compare two built differently. */
  const normal = (overview: DirOverview) => ({
    ...overview,
    topFolders: [...overview.topFolders].sort(),
    topFiles: [...overview.topFiles].sort(),
    words: [...overview.words].map(([word, paths]) => [word, [...paths].sort()]).sort(),
    textWords: [...overview.textWords].sort(),
  });

  it("adjusts the base's overview by a derived index's changes, as a fresh one would say", () => {
    const base = DirIndexMap.from(
      Array.from({ length: 300 }, (_, index) => [
        index % 3 === 0 ? `note-${index}.md` : `area-${index % 7}/doc-${index}.md`,
        entry(index + 1),
      ]),
    );
    const derived = base
      .withChanges({
        set: [
          ["new-area/travel-policy.md", entry(5)],
          ["note-0.md", entry(999)],
          ["top-level.md", entry(1)],
        ],
        deleted: ["note-3.md", "area-1/doc-1.md"],
      })
      .withChanges({ deleted: ["top-level.md"], set: [["area-1/doc-1.md", entry(2)]] });
    // Every file of area-5 gone: the folder and its words go too.
    const emptied = derived.withChanges({
      deleted: [...derived.keys()].filter((path) => path.startsWith("area-5/")),
    });
    for (const index of [base, derived, emptied]) {
      expect(normal(indexOverview(index))).toEqual(normal(buildDirOverview(index)));
    }
    expect(indexOverview(emptied).topFolders.has("area-5")).toBe(false);
    expect(indexOverview(derived)).toBe(indexOverview(derived));
  });
});
