import { describe, expect, it } from "vitest";

import { HarnessValidationError } from "../errors";
import { BodyCache } from "./body-cache";
import { DirIndexMap, folderCountsOf } from "./dir-index";
import { createInMemoryCommitLog } from "./in-memory-commit-log";
import { createInMemoryDirBacking } from "./in-memory-dir-backing";
import { openTurnCheckout } from "./open-turn-checkout";
import { contentHash } from "./internal/content";
import { loadCheckout, validateDirIndex } from "./load-checkout";
import { DEFAULT_DIR_LIMITS } from "./paths";

const entry = (text: string) => ({ bytes: Buffer.byteLength(text), hash: contentHash(text) });

describe("DirIndexMap", () => {
  it("derives a new index per change and leaves the one it came from as it was", () => {
    const first = DirIndexMap.from([
      ["a.md", entry("a")],
      ["notes/b.md", entry("bb")],
    ]);
    const second = first.withChanges({ set: [["c.md", entry("ccc")]], deleted: ["a.md"] });
    expect([...first.keys()].sort()).toEqual(["a.md", "notes/b.md"]);
    expect([first.size, first.bytes]).toEqual([2, 3]);
    expect([...second.keys()].sort()).toEqual(["c.md", "notes/b.md"]);
    expect([second.size, second.bytes]).toEqual([2, 5]);
    expect(second.get("a.md")).toBeUndefined();
    const third = second.withChanges({ set: [["a.md", entry("again")]], deleted: ["c.md"] });
    expect(Object.fromEntries([...third].map(([path, value]) => [path, value.bytes]))).toEqual({
      "a.md": 5,
      "notes/b.md": 2,
    });
    // Deleting a path the index does not hold changes nothing.
    expect(third.withChanges({ deleted: ["nope.md"] }).size).toBe(2);
  });

  it("flattens a delta that grows past a 16th of its base, keeping every entry", () => {
    let index = DirIndexMap.from(
      Array.from({ length: 100 }, (_, i) => [`f${i}.md`, entry(`${i}`)] as const),
    );
    for (let i = 0; i < 2_000; i += 1)
      index = index.withChanges({ set: [[`n${i}.md`, entry("n")]] });
    expect(index.size).toBe(2_100);
    expect(index.layers().delta.size).toBeLessThan(2_000);
    expect(new Set(index.keys()).size).toBe(2_100);
  });

  it("counts the files under each folder, adjusted by what changed", () => {
    const base = DirIndexMap.from([
      ["a/b/c.md", entry("1")],
      ["a/d.md", entry("2")],
      ["e.md", entry("3")],
    ]);
    expect(Object.fromEntries(folderCountsOf(base))).toEqual({ a: 2, "a/b": 1 });
    const next = base.withChanges({ set: [["a/b/x.md", entry("4")]], deleted: ["a/d.md"] });
    expect(Object.fromEntries(folderCountsOf(next))).toEqual({ a: 2, "a/b": 2 });
    expect(Object.fromEntries(folderCountsOf(base))).toEqual({ a: 2, "a/b": 1 });
  });
});

describe("validateDirIndex", () => {
  const check = (entries: DirIndexMap) =>
    validateDirIndex({
      harnessDir: "/persistent/kb",
      limits: DEFAULT_DIR_LIMITS,
      index: { cursor: 1, entries },
    });

  it("refuses hostile paths and entries without a hash, naming the dir", () => {
    for (const path of ["../escape.md", "/etc/passwd", "a\u0000b.md", "a//b.md"]) {
      expect(() => check(DirIndexMap.from([[path, entry("x")]]))).toThrowError(
        /\/persistent\/kb: loadIndex returned an invalid path/,
      );
    }
    expect(() => check(DirIndexMap.from([["a.md", { bytes: 1, hash: "nope" }]]))).toThrowError(
      HarnessValidationError,
    );
  });

  it("refuses an index over the dir's limits", () => {
    expect(() =>
      validateDirIndex({
        harnessDir: "/persistent/kb",
        limits: { ...DEFAULT_DIR_LIMITS, maxFiles: 1 },
        index: {
          cursor: 1,
          entries: DirIndexMap.from([
            ["a.md", entry("a")],
            ["b.md", entry("b")],
          ]),
        },
      }),
    ).toThrowError(/limit is 1 file/);
  });
});

describe("BodyCache", () => {
  it("keeps bodies by hash within its bound, least recently used out first", () => {
    const cache = new BodyCache({ maxBytes: 4 * (64 + 2 * 100) });
    const bodies = ["a", "b", "c", "d", "e"].map((letter) => letter.repeat(100));
    for (const body of bodies.slice(0, 3)) expect(cache.set(contentHash(body), body)).toBe(true);
    expect(cache.get(contentHash(bodies[0]!))).toBe(bodies[0]);
    cache.set(contentHash(bodies[3]!), bodies[3]!);
    cache.set(contentHash(bodies[4]!), bodies[4]!);
    expect(cache.get(contentHash(bodies[1]!))).toBeUndefined();
    expect(cache.get(contentHash(bodies[0]!))).toBe(bodies[0]);
  });

  it("never keeps a body under a hash that is not its own", () => {
    const cache = new BodyCache();
    expect(cache.set(contentHash("real"), "forged")).toBe(false);
    expect(cache.get(contentHash("real"))).toBeUndefined();
  });
});

describe("a lazy checkout", () => {
  it("is a view: reads bodies on first use, lists without reading, and an edit touches nothing else", async () => {
    const backing = createInMemoryDirBacking({
      lazy: true,
      files: Object.fromEntries(
        Array.from({ length: 50 }, (_, i) => [`docs/${i % 5}/p${i}.md`, `page ${i}`]),
      ),
    });
    const checkout = await loadCheckout({
      dirs: [{ harnessDir: "/persistent/kb", ...backing }],
      extraBody: {},
      session: {},
    });
    expect(checkout.listFiles()).toHaveLength(50);
    expect(
      checkout.getDirectoryListing({ path: "/persistent/kb/docs", depth: 1 })?.entries,
    ).toHaveLength(5);
    expect(backing.bodyReads).toEqual([]);
    expect(checkout.exists({ path: "/persistent/kb/docs/1/p6.md" })).toBe(true);
    expect(await checkout.readFile({ path: "/persistent/kb/docs/1/p6.md" })).toBe("page 6");
    checkout.writeFile({ path: "/persistent/kb/docs/1/p6.md", content: "page 6, edited" });
    await checkout.renameFile({ from: "/persistent/kb/docs/2/p7.md", to: "/persistent/kb/p7.md" });
    expect(() => checkout.writeFile({ path: "/persistent/kb/docs", content: "x" })).toThrowError(
      /it is a folder/,
    );
    const { changes } = checkout.diff()[0]!;
    expect(changes.created.map((file) => file.path)).toEqual(["p7.md"]);
    expect(changes.updated).toEqual([{ path: "docs/1/p6.md", content: "page 6, edited" }]);
    expect(changes.deleted).toEqual(["docs/2/p7.md"]);
    expect(checkout.listDirs()[0]).toMatchObject({ fileCount: 50 });
  });
});

describe("a lazy turn whose base body cannot be read", () => {
  it("keeps the change (a conflict for the person), never loses it", async () => {
    const backing = createInMemoryDirBacking({
      lazy: true,
      files: { "plan.md": `the plan, ${Math.random()}` },
    });
    let bodiesAway = false;
    const dir = {
      harnessDir: "/persistent/kb",
      ...backing,
      readBodies: (options: Parameters<NonNullable<typeof backing.readBodies>>[0]) => {
        if (bodiesAway) return Promise.reject(new Error("database unreachable"));
        return backing.readBodies!(options);
      },
    };
    const commitLog = createInMemoryCommitLog();
    const turn = await openTurnCheckout({ dirs: [dir], extraBody: {}, session: {}, commitLog });
    bodiesAway = true;
    // Overwritten without ever being read, while the bodies cannot be read.
    turn.checkout.writeFile({ path: "/persistent/kb/plan.md", content: "a new plan" });
    backing.writeExternally({ files: { "plan.md": "someone else's plan" } });
    const persistence = await turn.finishTurn({ status: "completed" });
    expect(persistence.status).toBe("failed");
    const records = commitLog.all();
    expect(records).toHaveLength(1);
    expect(records[0]!.changes.updated).toEqual([{ path: "plan.md", content: "a new plan" }]);
    expect(backing.files()["plan.md"]).toBe("someone else's plan");
  });
});
