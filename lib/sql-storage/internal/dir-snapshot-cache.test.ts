import { describe, expect, it } from "vitest";

import { DirSnapshotCache, copySnapshotOut } from "./dir-snapshot-cache";

const kib = (count: number) => "x".repeat(count * 512); // UTF-16: 512 chars ≈ 1 KiB

function snapshot(version: number, files: Record<string, string | Uint8Array>) {
  return {
    version,
    files: Object.entries(files),
    updatedAt: Object.keys(files).map((path) => [path, "2026-01-01T00:00:00.000Z"] as const),
  };
}

describe("DirSnapshotCache", () => {
  it("answers only for the exact version and drops an entry the database has moved past", () => {
    const cache = new DirSnapshotCache();
    cache.set("d", snapshot(3, { "a.md": "a" }));
    expect(cache.get("d", 2)).toBeNull();
    expect(cache.get("d", 3)?.files.get("a.md")).toBe("a");
    expect(cache.get("d", 4)).toBeNull();
    expect(cache.get("d", 3)).toBeNull();
    expect(cache.bytes).toBe(0);
  });

  it("never lets an older read overwrite a newer entry", () => {
    const cache = new DirSnapshotCache();
    cache.set("d", snapshot(5, { "a.md": "new" }));
    cache.set("d", snapshot(4, { "a.md": "old" }));
    expect(cache.get("d", 5)?.files.get("a.md")).toBe("new");
  });

  it("applies a commit from its version, keeps paths sorted, and drops the entry otherwise", () => {
    const cache = new DirSnapshotCache();
    cache.set("d", snapshot(1, { "b.md": "b", "c.md": "c" }));
    cache.applyCommit("d", {
      fromVersion: 1,
      toVersion: 2,
      changes: {
        created: [{ path: "a.md", content: "a" }],
        updated: [{ path: "b.md", content: "B" }],
        deleted: ["c.md"],
      },
      updatedAt: "2026-02-02T00:00:00.000Z",
    });
    const entry = cache.get("d", 2)!;
    expect([...entry.files]).toEqual([
      ["a.md", "a"],
      ["b.md", "B"],
    ]);
    expect(entry.updatedAt.get("b.md")).toBe("2026-02-02T00:00:00.000Z");
    expect(entry.updatedAt.has("c.md")).toBe(false);

    cache.applyCommit("d", {
      fromVersion: 5,
      toVersion: 6,
      changes: { created: [], updated: [], deleted: ["a.md"] },
      updatedAt: "2026-02-02T00:00:00.000Z",
    });
    expect(cache.get("d", 2)).toBeNull();
  });

  it("evicts the least recently used dirs once over its byte budget, and skips a dir larger than it", () => {
    const cache = new DirSnapshotCache({ maxBytes: 10 * 1024 });
    cache.set("a", snapshot(1, { f: kib(4) }));
    cache.set("b", snapshot(1, { f: kib(4) }));
    expect(cache.get("a", 1)).not.toBeNull(); // a is now the most recent
    cache.set("c", snapshot(1, { f: kib(4) }));
    expect(cache.get("b", 1)).toBeNull();
    expect(cache.get("a", 1)).not.toBeNull();
    expect(cache.get("c", 1)).not.toBeNull();
    expect(cache.bytes).toBeLessThanOrEqual(10 * 1024);

    cache.set("huge", snapshot(1, { f: kib(11) }));
    expect(cache.get("huge", 1)).toBeNull();
    expect(cache.get("a", 1)).not.toBeNull();
  });

  it("copies bytes in and out", () => {
    const cache = new DirSnapshotCache();
    const bytes = new Uint8Array([1, 2]);
    cache.set("d", snapshot(1, { "a.bin": bytes }));
    bytes[0] = 9;
    const out = copySnapshotOut(cache.get("d", 1)!);
    (out.files[0]![1] as Uint8Array)[1] = 9;
    expect(cache.get("d", 1)!.files.get("a.bin")).toEqual(new Uint8Array([1, 2]));
  });
});
