// `PersistentDir.limits` as a resolver of the turn's host data: decided once per turn (and per
// commit outside a turn), validated as static limits are, and never a way to lose a change set.
import { describe, expect, it, vi } from "vitest";

import { HarnessValidationError } from "../errors";
import { commitChangeSet } from "./commit-change-set";
import { definePersistentDirs, resolveDirLimitsFor } from "./define-persistent-dirs";
import { createInMemoryCommitLog } from "./in-memory-commit-log";
import { createInMemoryDirBacking, type InMemoryDirBacking } from "./in-memory-dir-backing";
import { steppingClock } from "./internal/testing";
import { memory } from "./memory";
import { openTurnCheckout } from "./open-turn-checkout";
import { retryCommit } from "./retry-commit";
import type { DirLimits, PersistentDir } from "./types";

interface Host {
  workspaceId: string;
}

const SMALL: Record<string, Partial<DirLimits>> = {
  tight: { maxFiles: 2, maxFileBytes: 10 },
  roomy: { maxFiles: 10 },
};

function dirWith(
  backing: InMemoryDirBacking,
  limits: PersistentDir<Host, null>["limits"],
): PersistentDir<Host, null> {
  return { harnessDir: "/persistent/kb", load: backing.load, store: backing.store, limits };
}

describe("limits decided per turn", () => {
  it("applies each turn's limits, called once per turn with its host data", async () => {
    const backing = createInMemoryDirBacking({ files: { "a.md": "A" } });
    const resolver = vi.fn(({ extraBody }: { extraBody: Host }) => SMALL[extraBody.workspaceId]!);
    const dirs = [dirWith(backing, resolver)];

    const tight = await openTurnCheckout({
      dirs,
      extraBody: { workspaceId: "tight" },
      session: null,
      commitLog: createInMemoryCommitLog(),
    });
    tight.checkout.writeFile({ path: "/persistent/kb/b.md", content: "B" });
    expect(() => tight.checkout.writeFile({ path: "/persistent/kb/c.md", content: "C" })).toThrow(
      /\/persistent\/kb would hold 3 files; the limit is 2 files per dir\./,
    );
    expect(() =>
      tight.checkout.writeFile({ path: "/persistent/kb/b.md", content: "x".repeat(11) }),
    ).toThrow(/is 11 B; the limit is 10 B per file\./);
    expect(tight.checkout.assertWritable({ path: "/persistent/kb/b.md" }).limits).toEqual(
      expect.objectContaining({ maxFiles: 2, maxFileBytes: 10 }),
    );
    expect((await tight.finishTurn({ status: "completed" })).status).toBe("succeeded");

    const roomy = await openTurnCheckout({
      dirs,
      extraBody: { workspaceId: "roomy" },
      session: null,
      commitLog: createInMemoryCommitLog(),
    });
    roomy.checkout.writeFile({ path: "/persistent/kb/c.md", content: "C" });
    roomy.checkout.writeFile({ path: "/persistent/kb/d.md", content: "x".repeat(11) });
    expect((await roomy.finishTurn({ status: "completed" })).status).toBe("succeeded");
    expect(Object.keys(backing.files()).sort()).toEqual(["a.md", "b.md", "c.md", "d.md"]);
    // Once per turn: at load, not again at the turn's commit.
    expect(resolver.mock.calls.map(([context]) => context.extraBody.workspaceId)).toEqual([
      "tight",
      "roomy",
    ]);
  });

  it("opens a dir already over a turn's lower limits, refuses growing it and lets it shrink", async () => {
    const backing = createInMemoryDirBacking({ files: { "a.md": "A", "b.md": "B", "c.md": "C" } });
    const turn = await openTurnCheckout({
      dirs: [dirWith(backing, () => ({ maxFiles: 2 }))],
      extraBody: { workspaceId: "w" },
      session: null,
      commitLog: createInMemoryCommitLog(),
    });
    expect(() => turn.checkout.writeFile({ path: "/persistent/kb/d.md", content: "D" })).toThrow(
      /would hold 4 files; the limit is 2 files per dir/,
    );
    turn.checkout.writeFile({ path: "/persistent/kb/a.md", content: "A2" });
    turn.checkout.deleteFile({ path: "/persistent/kb/c.md" });
    expect((await turn.finishTurn({ status: "completed" })).status).toBe("succeeded");
    expect(backing.files()).toEqual({ "a.md": "A2", "b.md": "B" });
  });

  it("refuses to open the turn with a clear error when the resolver throws or answers nonsense", async () => {
    const backing = createInMemoryDirBacking();
    const open = (limits: PersistentDir<Host, null>["limits"]) =>
      openTurnCheckout({
        dirs: [dirWith(backing, limits)],
        extraBody: { workspaceId: "w" },
        session: null,
        commitLog: createInMemoryCommitLog(),
      });
    await expect(
      open(() => {
        throw new Error("settings unavailable");
      }),
    ).rejects.toThrow(
      /^\/persistent\/kb: its limits could not be decided for this turn: settings unavailable$/,
    );
    await expect(open(() => ({ maxFiles: 0 }))).rejects.toThrow(
      "/persistent/kb: Dir limit maxFiles must be a positive integer.",
    );
    await expect(open(async () => ({ maxDirBytes: 1.5 }))).rejects.toThrow(
      /maxDirBytes must be a positive integer/,
    );
    await expect(open(() => null as unknown as Partial<DirLimits>)).rejects.toThrow(
      /Dir limits must be an object/,
    );
    await expect(open(() => ({ maxFiles: 0 }))).rejects.toSatisfy(
      (error) => HarnessValidationError.isInstance(error) && error.code === "validation:dir",
    );
  });

  it("keeps a retried change set when the resolver fails, and applies it once the limits resolve", async () => {
    const backing = createInMemoryDirBacking({ files: { "a.md": "one" } });
    let broken = false;
    let storeBroken = true;
    const dir: PersistentDir<Host, null> = {
      harnessDir: "/persistent/kb",
      load: backing.load,
      store: async (options) => {
        if (storeBroken) throw new Error("database unavailable");
        return backing.store(options);
      },
      limits: () => {
        if (broken) throw new Error("settings unavailable");
        return { maxFiles: 5 };
      },
    };
    const commitLog = createInMemoryCommitLog({ clock: steppingClock() });
    const turn = await openTurnCheckout({
      dirs: [dir],
      extraBody: { workspaceId: "w" },
      session: null,
      commitLog,
    });
    turn.checkout.writeFile({ path: "/persistent/kb/a.md", content: "two" });
    const persistence = await turn.finishTurn({ status: "completed" });
    expect(persistence.status).toBe("failed");

    storeBroken = false;
    broken = true;
    const failed = await retryCommit({ id: "commit-1", dirs: [dir], commitLog });
    expect(failed).toMatchObject({
      status: "failed",
      error: {
        code: "validation:dir",
        message:
          "/persistent/kb: its limits could not be decided for this turn: settings unavailable",
      },
      record: {
        status: "failed",
        changes: { updated: [{ path: "a.md", content: "two" }] },
      },
    });
    expect(backing.files()).toEqual({ "a.md": "one" });

    broken = false;
    const retried = await retryCommit({ id: "commit-1", dirs: [dir], commitLog });
    expect(retried).toMatchObject({ status: "succeeded", record: { status: "resolved" } });
    expect(backing.files()).toEqual({ "a.md": "two" });
  });

  it("holds a change outside a turn (commitChangeSet) to the limits its host data resolves to", async () => {
    const backing = createInMemoryDirBacking({ files: { "a.md": "A" } });
    const dir = dirWith(backing, ({ extraBody }) => SMALL[extraBody.workspaceId]!);
    const change = (extraBody: Host, path: string) =>
      commitChangeSet({
        dir,
        extraBody,
        session: null,
        changes: { created: [{ path, content: "x" }], updated: [], deleted: [] },
        base: { [path]: null },
        baseCursor: backing.cursor(),
      });
    expect(await change({ workspaceId: "tight" }, "b.md")).toMatchObject({ status: "stored" });
    const refused = await change({ workspaceId: "tight" }, "c.md");
    expect(refused).toMatchObject({
      status: "failed",
      error: {
        code: "validation:dir",
        message: "/persistent/kb would hold 3 files; the limit is 2 files per dir.",
      },
    });
    expect(await change({ workspaceId: "roomy" }, "c.md")).toMatchObject({ status: "stored" });
    await expect(
      commitChangeSet({
        dir,
        extraBody: { workspaceId: "tight" },
        session: null,
        changes: {
          created: [{ path: "big.md", content: "x".repeat(11) }],
          updated: [],
          deleted: [],
        },
        base: { "big.md": null },
        baseCursor: backing.cursor(),
      }),
    ).rejects.toThrow(/is 11 B; the limit is 10 B per file/);

    const throwing = dirWith(backing, () => {
      throw new Error("settings unavailable");
    });
    const failed = await commitChangeSet({
      dir: throwing,
      extraBody: { workspaceId: "tight" },
      session: null,
      changes: { created: [{ path: "d.md", content: "x" }], updated: [], deleted: [] },
      base: { "d.md": null },
      baseCursor: backing.cursor(),
    });
    expect(failed).toMatchObject({ status: "failed", error: { code: "validation:dir" } });
    expect(failed.status === "failed" && HarnessValidationError.isInstance(failed.cause)).toBe(
      true,
    );
  });

  it("is checked up front when static, and per call through resolveDirLimitsFor", async () => {
    const backing = createInMemoryDirBacking();
    expect(() => definePersistentDirs({ dirs: [dirWith(backing, { maxFiles: -1 })] })).toThrow(
      /Dir limit maxFiles must be a positive integer/,
    );
    // A resolver is not called when the dirs are defined.
    const resolver = vi.fn(() => ({ maxFiles: 7 }));
    definePersistentDirs({ dirs: [dirWith(backing, resolver)] });
    expect(resolver).not.toHaveBeenCalled();
    expect(
      await resolveDirLimitsFor({
        dir: dirWith(backing, resolver),
        extraBody: { workspaceId: "w" },
        session: null,
      }),
    ).toEqual({ maxFiles: 7, maxDirBytes: 2 * 1024 ** 3, maxFileBytes: 25 * 1024 ** 2 });
  });

  it("words memory's skill without numbers when its limits are decided per turn", () => {
    const backing = createInMemoryDirBacking();
    const perTurn = memory<Host, null>({ ...backing, limits: () => ({ maxFiles: 3 }) });
    expect(perTurn.skill.content).toMatch(
      /Stay within the directory's limits on its files and their size; a refused write says which limit it met\./,
    );
    expect(perTurn.skill.content).not.toMatch(/at most \d/);
    const fixed = memory({ ...backing, limits: { maxFiles: 3 } });
    expect(fixed.skill.content).toMatch(/at most 3 files and 25 MiB per file/);
  });
});
