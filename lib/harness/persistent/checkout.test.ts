import { describe, expect, it } from "vitest";

import {
  HarnessConflictError,
  HarnessForbiddenError,
  HarnessNotFoundError,
  HarnessValidationError,
} from "../errors";
import { loadCheckout } from "./load-checkout";
import { definePersistentDirs } from "./define-persistent-dirs";
import { createInMemoryDirBacking } from "./in-memory-dir-backing";
import { steppingClock } from "./internal/testing";
import type { PersistentDir, PersistentDirTraceEvent } from "./types";

function userDir(
  files: Record<string, string | Uint8Array> = {},
  extra: Partial<PersistentDir> = {},
) {
  const backing = createInMemoryDirBacking({ files });
  return {
    backing,
    dir: {
      harnessDir: "/persistent/user",
      load: backing.load,
      store: backing.store,
      ...extra,
    } satisfies PersistentDir,
  };
}

describe("definePersistentDirs", () => {
  const load = async () => ({ files: {}, cursor: 0 });
  const store = async () => ({ status: "stored" as const, cursor: 1 });
  it("accepts disjoint dirs under /persistent/", () => {
    expect(
      definePersistentDirs({
        dirs: [
          { harnessDir: "/persistent/user", load, store },
          { harnessDir: "/persistent/company", load, commit: "read-only" },
        ],
      }),
    ).toHaveLength(2);
  });
  it.each([
    ["/persistent/user", "/persistent/user/notes"],
    ["/persistent/user", "/persistent/user"],
  ])("rejects overlapping dirs (%s and %s)", (first, second) => {
    expect(() =>
      definePersistentDirs({
        dirs: [
          { harnessDir: first, load, store },
          { harnessDir: second, load, store },
        ],
      }),
    ).toThrowError(/overlap/);
  });
  it("rejects dirs outside /persistent/, unknown modes and writable dirs without store", () => {
    expect(() =>
      definePersistentDirs({ dirs: [{ harnessDir: "/tmp/user", load, store }] }),
    ).toThrowError(/under \/persistent\//);
    expect(() =>
      definePersistentDirs({
        dirs: [{ harnessDir: "/persistent/x", load, store, commit: "sometimes" as never }],
      }),
    ).toThrowError(/unknown commit mode/);
    expect(() =>
      definePersistentDirs({ dirs: [{ harnessDir: "/persistent/x", load }] }),
    ).toThrowError(/needs a store/);
    expect(() =>
      definePersistentDirs({
        dirs: [{ harnessDir: "/persistent/x", load, store, limits: { maxFiles: 0 } }],
      }),
    ).toThrowError(/positive integer/);
  });
});

describe("Checkout", () => {
  it("reads, writes, lists, renames and deletes over absolute paths", async () => {
    const { dir } = userDir({ "a.md": "alpha", "notes/b.md": "beta" });
    const checkout = await loadCheckout({
      dirs: [dir],
      extraBody: {},
      session: {},
      clock: steppingClock(),
    });
    expect(await checkout.readFile({ path: "/persistent/user/a.md" })).toBe("alpha");
    expect(await checkout.readFile({ path: "/persistent/user/missing.md" })).toBeNull();
    await expect(
      checkout.readFileOrThrow({ path: "/persistent/user/missing.md" }),
    ).rejects.toThrowError(HarnessNotFoundError);

    checkout.writeFile({ path: "/persistent/user/notes/c.md", content: "gamma" });
    await checkout.renameFile({
      from: "/persistent/user/a.md",
      to: "/persistent/user/archive/a.md",
    });
    checkout.deleteFile({ path: "/persistent/user/notes/b.md" });
    expect(checkout.listFiles().map((file) => file.path)).toEqual([
      "/persistent/user/archive/a.md",
      "/persistent/user/notes/c.md",
    ]);
    expect(
      checkout.listFiles({ path: "/persistent/user/notes" }).map((file) => file.relativePath),
    ).toEqual(["notes/c.md"]);
    expect(() => checkout.deleteFile({ path: "/persistent/user/notes/b.md" })).toThrowError(
      HarnessNotFoundError,
    );
    await expect(
      checkout.renameFile({
        from: "/persistent/user/notes/c.md",
        to: "/persistent/user/archive/a.md",
      }),
    ).rejects.toThrowError(HarnessConflictError);

    expect(checkout.diff()).toEqual([
      {
        harnessDir: "/persistent/user",
        changes: {
          created: [
            { path: "archive/a.md", content: "alpha" },
            { path: "notes/c.md", content: "gamma" },
          ],
          updated: [],
          deleted: ["a.md", "notes/b.md"],
        },
      },
    ]);
  });

  it("does not report a file written back to its loaded content", async () => {
    const { dir } = userDir({ "a.md": "alpha" });
    const checkout = await loadCheckout({ dirs: [dir], extraBody: {}, session: {} });
    checkout.writeFile({ path: "/persistent/user/a.md", content: "changed" });
    checkout.writeFile({ path: "/persistent/user/a.md", content: "alpha" });
    checkout.writeFile({ path: "/persistent/user/tmp.md", content: "x" });
    checkout.deleteFile({ path: "/persistent/user/tmp.md" });
    expect(checkout.diff()[0]!.changes).toEqual({ created: [], updated: [], deleted: [] });
  });

  it("isolates the checkout from the backing and from callers' buffers", async () => {
    const { dir, backing } = userDir({ "b.bin": new Uint8Array([1, 2, 3]) });
    const checkout = await loadCheckout({ dirs: [dir], extraBody: {}, session: {} });
    const bytes = (await checkout.readFile({ path: "/persistent/user/b.bin" })) as Uint8Array;
    bytes[0] = 9;
    const written = new Uint8Array([4, 5]);
    checkout.writeFile({ path: "/persistent/user/c.bin", content: written });
    written[0] = 0;
    expect(await checkout.readFile({ path: "/persistent/user/b.bin" })).toEqual(
      new Uint8Array([1, 2, 3]),
    );
    expect(await checkout.readFile({ path: "/persistent/user/c.bin" })).toEqual(
      new Uint8Array([4, 5]),
    );
    expect(Object.keys(backing.files())).toEqual(["b.bin"]);
  });

  it("rejects writes to read-only dirs at once, for every kind of write", async () => {
    const company = createInMemoryDirBacking({ files: { "policy.md": "be kind" } });
    const { dir } = userDir({ "a.md": "alpha" });
    const trace: PersistentDirTraceEvent[] = [];
    const checkout = await loadCheckout({
      dirs: [dir, { harnessDir: "/persistent/company", commit: "read-only", load: company.load }],
      extraBody: {},
      session: {},
      onTrace: (event) => trace.push(event),
    });
    expect(() =>
      checkout.writeFile({ path: "/persistent/company/policy.md", content: "be mean" }),
    ).toThrowError(HarnessForbiddenError);
    expect(() =>
      checkout.writeFile({ path: "/persistent/company/new.md", content: "x" }),
    ).toThrowError(/read-only \(its commit mode is read-only\)/);
    expect(() => checkout.deleteFile({ path: "/persistent/company/policy.md" })).toThrowError(
      HarnessForbiddenError,
    );
    await expect(
      checkout.renameFile({
        from: "/persistent/company/policy.md",
        to: "/persistent/user/policy.md",
      }),
    ).rejects.toThrowError(HarnessForbiddenError);
    await expect(
      checkout.renameFile({ from: "/persistent/user/a.md", to: "/persistent/company/a.md" }),
    ).rejects.toThrowError(HarnessForbiddenError);
    expect(await checkout.readFile({ path: "/persistent/company/policy.md" })).toBe("be kind");
    expect(await checkout.readFile({ path: "/persistent/user/a.md" })).toBe("alpha");
    expect(
      trace.map((event) =>
        event.type === "dir.loaded" ? [event.harnessDir, event.readOnly] : null,
      ),
    ).toEqual([
      ["/persistent/user", false],
      ["/persistent/company", true],
    ]);
  });

  it("evaluates canWrite once per turn; false or throwing makes the dir read-only", async () => {
    let calls = 0;
    const canWrite = ({ extraBody }: { extraBody: { role: string } }) => {
      calls += 1;
      return extraBody.role === "editor";
    };
    const backing = createInMemoryDirBacking();
    const dir: PersistentDir<{ role: string }> = {
      harnessDir: "/persistent/company",
      load: backing.load,
      store: backing.store,
      canWrite,
    };
    const trace: PersistentDirTraceEvent[] = [];
    const member = await loadCheckout({
      dirs: [dir],
      extraBody: { role: "member" },
      session: {},
      onTrace: (event) => trace.push(event),
    });
    expect(() => member.writeFile({ path: "/persistent/company/x.md", content: "x" })).toThrowError(
      /not permitted for this turn/,
    );
    expect(() => member.writeFile({ path: "/persistent/company/y.md", content: "y" })).toThrowError(
      HarnessForbiddenError,
    );
    expect(calls).toBe(1);
    expect(trace[0]).toMatchObject({
      type: "dir.loaded",
      readOnly: true,
      readOnlyReason: "can-write",
    });

    const editor = await loadCheckout({ dirs: [dir], extraBody: { role: "editor" }, session: {} });
    editor.writeFile({ path: "/persistent/company/x.md", content: "x" });
    expect(calls).toBe(2);

    const broken = await loadCheckout({
      dirs: [
        {
          ...dir,
          canWrite: () => {
            throw new Error("auth down");
          },
        },
      ],
      extraBody: { role: "editor" },
      session: {},
    });
    expect(broken.listDirs()[0]).toMatchObject({
      readOnly: true,
      readOnlyReason: "can-write-error",
    });
  });

  it("enforces per-file, per-dir and file/folder limits with clear errors and no partial change", async () => {
    const { dir } = userDir({}, { limits: { maxFileBytes: 10, maxDirBytes: 25, maxFiles: 3 } });
    const checkout = await loadCheckout({ dirs: [dir], extraBody: {}, session: {} });
    expect(() =>
      checkout.writeFile({ path: "/persistent/user/big.md", content: "x".repeat(11) }),
    ).toThrowError(/11 B; the limit is 10 B per file/);
    checkout.writeFile({ path: "/persistent/user/a.md", content: "x".repeat(10) });
    checkout.writeFile({ path: "/persistent/user/b.md", content: "x".repeat(10) });
    expect(() =>
      checkout.writeFile({ path: "/persistent/user/c.md", content: "x".repeat(10) }),
    ).toThrowError(/30 B; the limit is 25 B per dir/);
    checkout.writeFile({ path: "/persistent/user/c.md", content: "x" });
    expect(() => checkout.writeFile({ path: "/persistent/user/d.md", content: "x" })).toThrowError(
      /4 files; the limit is 3 files/,
    );
    expect(() =>
      checkout.writeFile({ path: "/persistent/user/a.md/inner.md", content: "x" }),
    ).toThrowError(/is a file/);
    expect(() =>
      checkout.writeFile({ path: "/persistent/user/é\u0000", content: "x" }),
    ).toThrowError(HarnessValidationError);
    expect(checkout.listFiles().map((file) => file.relativePath)).toEqual(["a.md", "b.md", "c.md"]);
    expect(() =>
      checkout.writeFile({ path: "/persistent/nowhere/x.md", content: "x" }),
    ).toThrowError(HarnessNotFoundError);
  });

  it("refuses a load that returns hostile paths or exceeds limits", async () => {
    const hostile: PersistentDir = {
      harnessDir: "/persistent/user",
      commit: "read-only",
      load: async () => ({ files: { "../escape.md": "x" }, cursor: 1 }),
    };
    await expect(
      loadCheckout({ dirs: [hostile], extraBody: {}, session: {} }),
    ).rejects.toThrowError(/invalid path/);
    const huge: PersistentDir = {
      harnessDir: "/persistent/user",
      commit: "read-only",
      limits: { maxFiles: 1 },
      load: async () => ({ files: { a: "1", b: "2" }, cursor: 1 }),
    };
    await expect(loadCheckout({ dirs: [huge], extraBody: {}, session: {} })).rejects.toThrowError(
      /limit is 1 file/,
    );
    const twins: PersistentDir = {
      harnessDir: "/persistent/user",
      commit: "read-only",
      load: async () => ({ files: { "caf\u00e9": "1", "cafe\u0301": "2" }, cursor: 1 }),
    };
    await expect(loadCheckout({ dirs: [twins], extraBody: {}, session: {} })).rejects.toThrowError(
      /same after Unicode normalisation/,
    );
  });
});
