import { lstat, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import nodePath from "node:path";

import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { HarnessError, HarnessValidationError } from "../errors";
import { runDirBackingConformance } from "./dir-backing-conformance";
import { createInMemoryCommitLog } from "./in-memory-commit-log";
import { localDir, projectDir, resolveSourceDir } from "./local-dir";
import { openTurnCheckout } from "./open-turn-checkout";

runDirBackingConformance("localDir (tmp folder)", async () => {
  const folder = await mkdtemp(nodePath.join(tmpdir(), "cairn-conformance-"));
  const dir = localDir({
    harnessDir: "/persistent/conformance",
    sourceDir: nodePath.join(folder, "dir"),
  });
  return {
    backing: { load: dir.load, store: dir.store! },
    cleanup: () => rm(folder, { recursive: true, force: true }),
  };
});

describe("localDir", () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(nodePath.join(tmpdir(), "cairn-local-"));
    await mkdir(nodePath.join(root, "project/docs/company"), { recursive: true });
    await mkdir(nodePath.join(root, "outside"), { recursive: true });
    await writeFile(nodePath.join(root, "outside/secret.txt"), "secret");
    await writeFile(nodePath.join(root, "project/docs/company/policy.md"), "be kind\n");
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it("resolves projectDir under the project root and refuses to escape it", async () => {
    const projectRoot = nodePath.join(root, "project");
    expect(
      await resolveSourceDir({
        sourceDir: projectDir("./docs/company"),
        extraBody: {},
        projectRoot,
      }),
    ).toBe(nodePath.join(projectRoot, "docs/company"));
    expect(() => projectDir("../outside")).toThrowError(/leaves the project root/);
    expect(() => projectDir("docs/../../outside")).toThrowError(/leaves the project root/);
    expect(() => projectDir("/etc")).toThrowError(/relative/);
    await symlink(nodePath.join(root, "outside"), nodePath.join(projectRoot, "docs/escape"));
    await expect(
      resolveSourceDir({ sourceDir: projectDir("./docs/escape"), extraBody: {}, projectRoot }),
    ).rejects.toThrowError(/outside the project root/);
    await expect(
      resolveSourceDir({
        sourceDir: projectDir("./docs/escape/deeper/new"),
        extraBody: {},
        projectRoot,
      }),
    ).rejects.toThrowError(/outside the project root/);
    await expect(
      resolveSourceDir({
        sourceDir: ({ extraBody }: { extraBody: { userId: string } }) =>
          `users/${extraBody.userId}/memory`,
        extraBody: { userId: "../../outside" },
        projectRoot,
      }),
    ).rejects.toThrowError(/must not contain/);
    expect(
      await resolveSourceDir({
        sourceDir: ({ extraBody }: { extraBody: { userId: string } }) =>
          `users/${extraBody.userId}/memory`,
        extraBody: { userId: "u1" },
        projectRoot,
      }),
    ).toBe(nodePath.join(projectRoot, "users/u1/memory"));
  });

  it("serves a read-only company folder and a per-user writable folder (the seed's mixed sources)", async () => {
    const projectRoot = nodePath.join(root, "project");
    const dirs = [
      localDir({
        harnessDir: "/persistent/company",
        sourceDir: projectDir("./docs/company"),
        commit: "read-only",
        projectRoot,
      }),
      localDir<{ userId: string }>({
        harnessDir: "/persistent/user",
        sourceDir: ({ extraBody }) => `persistent/users/${extraBody.userId}/memory`,
        projectRoot,
      }),
    ];
    const turn = await openTurnCheckout({
      dirs,
      extraBody: { userId: "u1" },
      session: null,
      commitLog: createInMemoryCommitLog(),
    });
    expect(await turn.checkout.readFile({ path: "/persistent/company/policy.md" })).toBe(
      "be kind\n",
    );
    expect(() =>
      turn.checkout.writeFile({ path: "/persistent/company/policy.md", content: "x" }),
    ).toThrowError(/read-only/);
    turn.checkout.writeFile({ path: "/persistent/user/notes/today.md", content: "remember" });
    expect(await turn.finishTurn({ status: "completed" })).toMatchObject({ status: "succeeded" });
    expect(
      await readFile(
        nodePath.join(projectRoot, "persistent/users/u1/memory/notes/today.md"),
        "utf8",
      ),
    ).toBe("remember");
    expect(await readFile(nodePath.join(projectRoot, "docs/company/policy.md"), "utf8")).toBe(
      "be kind\n",
    );
  });

  it("skips symlinks on load and refuses writes through a symlinked folder", async () => {
    const folder = nodePath.join(root, "project/docs/company");
    await symlink(nodePath.join(root, "outside/secret.txt"), nodePath.join(folder, "linked.txt"));
    await symlink(nodePath.join(root, "outside"), nodePath.join(folder, "linked-folder"));
    const dir = localDir({ harnessDir: "/persistent/company", sourceDir: folder });
    const loaded = await dir.load({ extraBody: {}, session: {} });
    expect(Object.keys(loaded.files)).toEqual(["policy.md"]);
    const result = dir.store!({
      extraBody: {},
      session: {},
      harnessDir: "/persistent/company",
      cursor: loaded.cursor,
      changes: {
        created: [{ path: "linked-folder/pwned.txt", content: "x" }],
        updated: [],
        deleted: [],
      },
      snapshot: {},
    });
    await expect(result).rejects.toThrowError(/symlink leads outside/);
    expect(await readdir(nodePath.join(root, "outside"))).toEqual(["secret.txt"]);
  });

  it("detects changes made on disk since load, and leaves no temp files", async () => {
    const folder = nodePath.join(root, "project/docs/company");
    const dir = localDir({ harnessDir: "/persistent/company", sourceDir: folder });
    const loaded = await dir.load({ extraBody: {}, session: {} });
    await writeFile(nodePath.join(folder, "policy.md"), "changed by a person\n");
    const stale = await dir.store!({
      extraBody: {},
      session: {},
      harnessDir: "/persistent/company",
      cursor: loaded.cursor,
      changes: { created: [], updated: [{ path: "policy.md", content: "agent" }], deleted: [] },
      snapshot: {},
    });
    expect(stale.status).toBe("conflict");
    const fresh = await dir.load({ extraBody: {}, session: {} });
    const stored = await dir.store!({
      extraBody: {},
      session: {},
      harnessDir: "/persistent/company",
      cursor: fresh.cursor,
      changes: {
        created: [{ path: "a/b/c.md", content: "deep" }],
        updated: [],
        deleted: ["policy.md"],
      },
      snapshot: {},
    });
    expect(stored.status).toBe("stored");
    expect((await readdir(folder, { recursive: true })).sort()).toEqual(["a", "a/b", "a/b/c.md"]);
    const again = await dir.load({ extraBody: {}, session: {} });
    await dir.store!({
      extraBody: {},
      session: {},
      harnessDir: "/persistent/company",
      cursor: again.cursor,
      changes: { created: [], updated: [], deleted: ["a/b/c.md"] },
      snapshot: {},
    });
    expect(await readdir(folder)).toEqual([]);
  });

  it("writes no file outside its folder for hundreds of hostile paths", async () => {
    const folder = nodePath.join(root, "jail/dir");
    await mkdir(folder, { recursive: true });
    const dir = localDir({ harnessDir: "/persistent/jail", sourceDir: folder });
    const fragments = [
      "..",
      ".",
      "/",
      "\\",
      "\0",
      "%2e%2e",
      "\u202e",
      "a",
      "b",
      " ",
      "~",
      "\uff0e\uff0e",
      "e\u0301",
      "__proto__",
      ".cairn-tmp-x",
    ];
    await fc.assert(
      fc.asyncProperty(
        fc
          .array(fc.constantFrom(...fragments), { minLength: 1, maxLength: 8 })
          .map((parts) => parts.join("")),
        async (path) => {
          // A fresh folder each run keeps scans small; escapes would land outside it and persist.
          await rm(folder, { recursive: true, force: true });
          await mkdir(folder, { recursive: true });
          const { cursor } = await dir.load({ extraBody: {}, session: {} });
          try {
            await dir.store!({
              extraBody: {},
              session: {},
              harnessDir: "/persistent/jail",
              cursor,
              changes: { created: [{ path, content: "x" }], updated: [], deleted: [] },
              snapshot: {},
            });
          } catch (error) {
            // Typed rejections, or the file system refusing a file/folder clash between two fuzzed paths.
            expect(
              HarnessError.isInstance(error) ||
                ["EISDIR", "ENOTDIR", "EEXIST"].includes(
                  (error as NodeJS.ErrnoException).code ?? "",
                ),
            ).toBe(true);
          }
        },
      ),
      { numRuns: 300, seed: 3 },
    );
    expect(await readdir(nodePath.join(root, "jail"))).toEqual(["dir"]);
    expect((await readdir(root)).sort()).toEqual(["jail", "outside", "project"]);
    expect(await readdir(nodePath.join(root, "outside"))).toEqual(["secret.txt"]);
    expect((await lstat(folder)).isDirectory()).toBe(true);
  });

  it("rejects a store with an invalid path before touching the disk", async () => {
    const folder = nodePath.join(root, "project/docs/company");
    const dir = localDir({ harnessDir: "/persistent/company", sourceDir: folder });
    const { cursor } = await dir.load({ extraBody: {}, session: {} });
    await expect(
      dir.store!({
        extraBody: {},
        session: {},
        harnessDir: "/persistent/company",
        cursor,
        changes: {
          created: [
            { path: "ok.md", content: "ok" },
            { path: "../escape.md", content: "x" },
          ],
          updated: [],
          deleted: [],
        },
        snapshot: {},
      }),
    ).rejects.toThrowError(HarnessValidationError);
    expect(await readdir(folder)).toEqual(["policy.md"]);
  });
});
