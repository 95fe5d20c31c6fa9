import { beforeAll, describe, expect, it } from "vitest";

import { registerTestDatabase, testDatabaseProvider } from "@/lib/db/testing";
import { type CommitLog } from "@/lib/harness";
import { type NewCommitRecord } from "@/lib/harness/spi";
import { createCommitLog, type DatabaseCommitLog } from "./commit-log";
import { sqlFor } from "./sql";

const database = registerTestDatabase();
let log: DatabaseCommitLog;
let counter = 0;
// A clock one second apart per reading: ordering must not depend on wall-clock ties.
let tick = Date.UTC(2025, 0, 1);

beforeAll(() => {
  log = createCommitLog({
    sql: sqlFor(database.target),
    clock: { now: () => new Date((tick += 1000)) },
    generateId: () => `rec-${String(++counter).padStart(4, "0")}`,
  });
});

function newRecord(overrides: Partial<NewCommitRecord> = {}): NewCommitRecord {
  return {
    harnessDir: "/persistent/user",
    mode: "after-turn",
    status: "failed",
    owner: "user:u1",
    changes: {
      created: [{ path: "bin/x.bin", content: new Uint8Array([0, 1, 255]) }],
      updated: [{ path: "a.md", content: "ours ü\r\n" }],
      deleted: ["gone.md"],
    },
    baseCursor: 7,
    base: Object.assign(Object.create(null) as Record<string, string | Uint8Array | null>, {
      "a.md": "base",
      "bin/x.bin": null,
      "gone.md": new Uint8Array([9]),
      ["__proto__"]: "odd path",
    }),
    extraBody: { actor: { userId: "u1", workspaceId: "w1", role: "member" } },
    session: { chatId: "c1" },
    error: { code: "failed:store", message: "boom" },
    conflicts: [],
    attempts: 1,
    ...overrides,
  };
}

describe(`SQL commit log on ${testDatabaseProvider()}`, () => {
  it("appends and gets a record with text, bytes, cursors and JSON round-tripped", async () => {
    const appended = await log.appendCommit({ commit: newRecord() });
    expect(appended.id).toMatch(/^rec-/);
    const loaded = await log.getCommit({ id: appended.id });
    expect(loaded).toEqual(appended);
    expect(loaded!.status).toBe("failed");
    expect(loaded!.baseCursor).toBe(7);
    expect(loaded!.changes.created[0]!.content).toEqual(new Uint8Array([0, 1, 255]));
    expect(loaded!.changes.created[0]!.content).toBeInstanceOf(Uint8Array);
    expect(loaded!.changes.updated[0]!.content).toBe("ours ü\r\n");
    expect(loaded!.changes.deleted).toEqual(["gone.md"]);
    expect(Object.keys(loaded!.base).sort()).toEqual(["__proto__", "a.md", "bin/x.bin", "gone.md"]);
    expect(loaded!.base["gone.md"]).toEqual(new Uint8Array([9]));
    expect(loaded!.base["bin/x.bin"]).toBeNull();
    expect(loaded!.extraBody).toEqual({
      actor: { userId: "u1", workspaceId: "w1", role: "member" },
    });
    expect(loaded!.resolution).toBeNull();
    expect(await log.getCommit({ id: "missing" })).toBeNull();

    const stringCursor = await log.appendCommit({
      commit: newRecord({ baseCursor: "abc", extraBody: undefined }),
    });
    expect((await log.getCommit({ id: stringCursor.id }))!.baseCursor).toBe("abc");
    expect((await log.getCommit({ id: stringCursor.id }))!.extraBody).toBeNull();
  });

  it("lists newest first with filters and pagination", async () => {
    const scoped: CommitLog = log;
    const dir = "/persistent/list-test";
    const ids: string[] = [];
    for (let index = 0; index < 5; index += 1) {
      const record = await scoped.appendCommit({
        commit: newRecord({
          harnessDir: dir,
          owner: index % 2 === 0 ? "user:a" : "workspace:w",
          status: index === 4 ? "conflict" : "failed",
        }),
      });
      ids.push(record.id);
    }
    const all = await scoped.listCommits({ harnessDir: dir });
    expect(all.commits.map((record) => record.id)).toEqual([...ids].reverse());
    expect(all.nextCursor).toBeNull();

    const first = await scoped.listCommits({ harnessDir: dir, limit: 2 });
    expect(first.commits.map((record) => record.id)).toEqual([ids[4], ids[3]]);
    const second = await scoped.listCommits({
      harnessDir: dir,
      limit: 2,
      cursor: first.nextCursor!,
    });
    expect(second.commits.map((record) => record.id)).toEqual([ids[2], ids[1]]);
    const third = await scoped.listCommits({
      harnessDir: dir,
      limit: 2,
      cursor: second.nextCursor!,
    });
    expect(third.commits.map((record) => record.id)).toEqual([ids[0]]);
    expect(third.nextCursor).toBeNull();

    expect(
      (await scoped.listCommits({ harnessDir: dir, owner: "user:a" })).commits.map((r) => r.id),
    ).toEqual([ids[4], ids[2], ids[0]]);
    expect(
      (await scoped.listCommits({ harnessDir: dir, status: "conflict" })).commits.map((r) => r.id),
    ).toEqual([ids[4]]);
    await scoped.markResolved({ id: ids[1]!, resolution: "retried", cursor: 3 });
    expect(
      (await scoped.listCommits({ harnessDir: dir, status: "open" })).commits.map((r) => r.id),
    ).toEqual([ids[4], ids[3], ids[2], ids[0]]);
    expect(
      (await scoped.listCommits({ harnessDir: dir, status: "resolved" })).commits.map((r) => r.id),
    ).toEqual([ids[1]]);
    expect(
      (
        await log.listCommitsForOwners({
          owners: ["workspace:w", "user:nobody"],
          harnessDir: dir,
          status: "open",
        })
      ).commits.map((r) => r.id),
    ).toEqual([ids[3]]);
    await expect(scoped.listCommits({ cursor: "not-json" })).rejects.toThrow(/cursor/);
  });

  it("updates an open record and refuses to update a resolved or missing one", async () => {
    const record = await log.appendCommit({ commit: newRecord() });
    const updated = await log.updateCommit({
      id: record.id,
      patch: {
        status: "conflict",
        attempts: 2,
        error: { code: "conflict:commit", message: "clash" },
        conflicts: [
          {
            path: "a.md",
            reason: "both-modified",
            base: "base",
            ours: "ours",
            theirs: new Uint8Array([1, 2]),
            markers: "<<<<<<< ours",
          },
        ],
        baseCursor: 8,
      },
    });
    expect(updated.status).toBe("conflict");
    expect(updated.attempts).toBe(2);
    expect(updated.baseCursor).toBe(8);
    expect(updated.conflicts[0]!.theirs).toEqual(new Uint8Array([1, 2]));
    expect(updated.updatedAt.getTime()).toBeGreaterThan(record.updatedAt.getTime());
    expect(await log.getCommit({ id: record.id })).toEqual(updated);

    await log.markResolved({ id: record.id, resolution: "ours", cursor: 9 });
    await expect(log.updateCommit({ id: record.id, patch: { attempts: 3 } })).rejects.toMatchObject(
      { code: "conflict:commit" },
    );
    await expect(log.updateCommit({ id: "missing", patch: { attempts: 3 } })).rejects.toMatchObject(
      { code: "not_found:commit" },
    );
  });

  it("markResolved is compare-and-set: exactly one of two concurrent resolutions wins", async () => {
    const record = await log.appendCommit({ commit: newRecord() });
    const outcomes = await Promise.allSettled([
      log.markResolved({ id: record.id, resolution: "retried", cursor: 4 }),
      log.markResolved({ id: record.id, resolution: "theirs", cursor: 5 }),
    ]);
    const won = outcomes.filter((outcome) => outcome.status === "fulfilled");
    const lost = outcomes.filter((outcome) => outcome.status === "rejected");
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect((lost[0] as PromiseRejectedResult).reason).toMatchObject({ code: "conflict:commit" });
    const resolved = await log.getCommit({ id: record.id });
    expect(resolved!.status).toBe("resolved");
    expect(resolved!.resolvedAt).toBeInstanceOf(Date);
    expect([4, 5]).toContain(resolved!.resolvedCursor);
    await expect(log.markResolved({ id: "missing", resolution: "retried" })).rejects.toMatchObject({
      code: "not_found:commit",
    });
  });

  it("appends under a stable id once, also when two instances append it at the same moment", async () => {
    const commit = newRecord({ id: "turn:t9:/persistent/user", turnId: "t9" });
    const [a, b] = await Promise.all([
      log.appendCommit({ commit }),
      log.appendCommit({ commit: { ...commit, status: "interrupted" } }),
    ]);
    expect(a.id).toBe(commit.id);
    expect(b.id).toBe(commit.id);
    expect((await log.listCommits({ turnId: "t9" })).commits).toHaveLength(1);
  });

  it("claimDueCommits gives each due record to exactly one of two concurrent sweeps", async () => {
    const due = new Date(Date.UTC(2030, 0, 1));
    const ids: string[] = [];
    for (let index = 0; index < 6; index += 1) {
      ids.push((await log.appendCommit({ commit: newRecord({ nextAttemptAt: due }) })).id);
    }
    await log.appendCommit({
      commit: newRecord({ nextAttemptAt: new Date(due.getTime() + 60_000) }),
    });
    const claim = () =>
      log.claimDueCommits!({ now: due, leaseUntil: new Date(due.getTime() + 30_000), limit: 10 });
    const [first, second] = await Promise.all([claim(), claim()]);
    const claimed = [...first, ...second].map((record) => record.id).sort();
    expect(claimed).toEqual([...ids].sort());
    expect(first[0]?.nextAttemptAt ?? second[0]?.nextAttemptAt).toEqual(
      new Date(due.getTime() + 30_000),
    );
    expect(await claim()).toEqual([]);
  });
});
