import { describe, expect, it } from "vitest";

import { runDirBackingConformance } from "./dir-backing-conformance";
import { createInMemoryCommitLog } from "./in-memory-commit-log";
import { createInMemoryDirBacking } from "./in-memory-dir-backing";
import { steppingClock } from "./internal/testing";

runDirBackingConformance("in-memory", () => ({ backing: createInMemoryDirBacking() }));
runDirBackingConformance("in-memory (lazy)", () => ({
  backing: createInMemoryDirBacking({ lazy: true }),
}));

describe("createInMemoryDirBacking", () => {
  it("records store calls and lets tests write behind the runtime's back", async () => {
    const backing = createInMemoryDirBacking({ files: { "a.md": "a" } });
    expect(backing.cursor()).toBe(0);
    expect(backing.writeExternally({ files: { "b.md": "b" }, deleted: ["a.md"] })).toBe(1);
    expect(backing.files()).toEqual({ "b.md": "b" });
    expect((await backing.load({ extraBody: null, session: null })).cursor).toBe(1);
    expect(backing.loadCount).toBe(1);
  });
});

describe("createInMemoryCommitLog", () => {
  const record = (harnessDir: string, owner: string | null) => ({
    harnessDir,
    mode: "after-turn" as const,
    status: "failed" as const,
    owner,
    changes: {
      created: [{ path: "a.md", content: new Uint8Array([1]) }],
      updated: [],
      deleted: [],
    },
    baseCursor: 0,
    base: { "a.md": null },
    extraBody: { userId: owner },
    session: null,
    error: { code: "failed:store", message: "down" },
    conflicts: [],
    attempts: 1,
  });

  it("appends, lists newest first with filters and pages, and resolves once", async () => {
    const log = createInMemoryCommitLog({ clock: steppingClock() });
    for (let index = 0; index < 5; index += 1)
      await log.appendCommit({
        commit: record(index % 2 ? "/persistent/user" : "/persistent/company", `u${index % 2}`),
      });
    const firstPage = await log.listCommits({ limit: 2 });
    expect(firstPage.commits.map((commit) => commit.id)).toEqual(["commit-5", "commit-4"]);
    const secondPage = await log.listCommits({ limit: 2, cursor: firstPage.nextCursor! });
    expect(secondPage.commits.map((commit) => commit.id)).toEqual(["commit-3", "commit-2"]);
    expect(
      (await log.listCommits({ limit: 2, cursor: secondPage.nextCursor! })).nextCursor,
    ).toBeNull();
    expect((await log.listCommits({ owner: "u1" })).commits.map((commit) => commit.id)).toEqual([
      "commit-4",
      "commit-2",
    ]);
    expect(
      (await log.listCommits({ harnessDir: "/persistent/company", status: "open" })).commits,
    ).toHaveLength(3);

    const got = (await log.getCommit({ id: "commit-1" }))!;
    expect(got.changes.created[0]!.content).toEqual(new Uint8Array([1]));
    expect(await log.getCommit({ id: "missing" })).toBeNull();

    const updated = await log.updateCommit({
      id: "commit-1",
      patch: { attempts: 2, status: "conflict" },
    });
    expect(updated).toMatchObject({ attempts: 2, status: "conflict" });
    const resolved = await log.markResolved({ id: "commit-1", resolution: "retried", cursor: 7 });
    expect(resolved).toMatchObject({
      status: "resolved",
      resolution: "retried",
      resolvedCursor: 7,
    });
    expect(resolved.resolvedAt).toBeInstanceOf(Date);
    await expect(log.markResolved({ id: "commit-1", resolution: "retried" })).rejects.toThrowError(
      /already resolved/,
    );
    await expect(log.updateCommit({ id: "commit-1", patch: { attempts: 3 } })).rejects.toThrowError(
      /already resolved/,
    );
    await expect(log.markResolved({ id: "nope", resolution: "retried" })).rejects.toThrowError(
      /No commit record/,
    );
    expect(
      (await log.listCommits({ status: "resolved" })).commits.map((commit) => commit.id),
    ).toEqual(["commit-1"]);
  });
});
