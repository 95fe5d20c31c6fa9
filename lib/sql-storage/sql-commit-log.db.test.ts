import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";

import { registerTestDatabase, testDatabaseProvider } from "@/lib/db/testing";
import { FailedCommitsQuotaError, type CommitLog } from "@/lib/harness";
import { type NewCommitRecord } from "@/lib/harness/spi";
import { createCommitLog, type DatabaseCommitLog } from "./sql-commit-log";
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

describe(`SQL commit log: the bound on an owner's open records on ${testDatabaseProvider()}`, () => {
  const LIMIT = 100_000;
  let bounded: DatabaseCommitLog;
  let sequence = 0;
  beforeAll(() => {
    bounded = createCommitLog({
      sql: sqlFor(database.target),
      generateId: () => `bnd-${String(++sequence).padStart(4, "0")}`,
      maxOwnerBytes: LIMIT,
    });
  });
  const text = (tag: string) => tag.padEnd(5_000, "é"); // 2 bytes a character past the tag
  const refused = (owner: string, tag: string, overrides: Partial<NewCommitRecord> = {}) =>
    newRecord({
      owner,
      changes: { created: [], updated: [{ path: "a.md", content: text(tag) }], deleted: [] },
      base: Object.assign(Object.create(null) as Record<string, string | null>, {
        "a.md": text(`base ${tag}`),
      }),
      error: { code: "validation:dir", message: "The history of /persistent/user is full" },
      ...overrides,
    });
  /** The owner's open records' bytes as the database counts the stored text. */
  const counted = async (owner: string) => {
    const sql = sqlFor(database.target);
    const length = (column: string) =>
      sql.dialect === "postgres" ? `octet_length(${column})` : `length(CAST(${column} AS BLOB))`;
    const columns = [
      `"changes"`,
      `"base"`,
      `"conflicts"`,
      `COALESCE("error", '')`,
      `"extraBody"`,
      `"session"`,
    ];
    const row = await sql.get<{ bytes: number | null; stored: number | null }>(
      `SELECT SUM(${columns.map(length).join(" + ")}) AS "bytes", SUM("bytes") AS "stored"
       FROM "DirCommitRecord" WHERE "owner" = ? AND "status" <> 'resolved'`,
      [owner],
    );
    return { bytes: Number(row?.bytes ?? 0), stored: Number(row?.stored ?? 0) };
  };

  it("keeps a record's bytes as the database counts them, through appends, updates and resolutions", async () => {
    const owner = "user:sizes";
    const first = await bounded.appendCommit({ commit: refused(owner, "one") });
    await bounded.appendCommit({ commit: refused(owner, "two"), bounded: true });
    let usage = await counted(owner);
    expect(usage.stored).toBe(usage.bytes);
    expect(await bounded.getOpenCommitBytes({ owner })).toBe(usage.bytes);
    // A conflict adds every version of the file; a new error replaces the old one.
    await bounded.updateCommit({
      id: first.id,
      patch: {
        status: "conflict",
        error: { code: "conflict:commit", message: "changed on both sides" },
        conflicts: [
          { path: "a.md", reason: "both-modified", base: "b", ours: text("o"), theirs: "t é" },
        ],
        attempts: 2,
      },
    });
    usage = await counted(owner);
    expect(usage.stored).toBe(usage.bytes);
    await bounded.updateCommit({ id: first.id, patch: { error: null, attempts: 3 } });
    usage = await counted(owner);
    expect(usage.stored).toBe(usage.bytes);
    expect(await bounded.getOpenCommitBytes({ owner })).toBe(usage.bytes);
    // Resolved records no longer count.
    await bounded.markResolved({ id: first.id, resolution: "discarded" });
    const after = await counted(owner);
    expect(after.bytes).toBeLessThan(usage.bytes);
    expect(await bounded.getOpenCommitBytes({ owner })).toBe(after.bytes);
  });

  it("declines a bounded append past the bound, storing nothing; unbounded ones are always kept", async () => {
    const owner = "user:bound";
    const kept: string[] = [];
    let declined: unknown;
    for (let index = 0; index < 10 && declined === undefined; index += 1) {
      try {
        kept.push(
          (await bounded.appendCommit({ commit: refused(owner, `r${index}`), bounded: true })).id,
        );
      } catch (error) {
        declined = error;
      }
    }
    expect(kept.length).toBeGreaterThan(1);
    expect(FailedCommitsQuotaError.isInstance(declined)).toBe(true);
    const error = declined as FailedCommitsQuotaError;
    expect(error.code).toBe("validation:commit");
    expect(error.details).toMatchObject({ owner, limitBytes: LIMIT });
    expect(error.message).toMatch(
      /^This change was not kept either: your Commit failures already hold .* past the limit of 97\.7 KiB \(CAIRN_FAILED_COMMITS_MAX_BYTES\)\..*Files → Commit failures/,
    );
    const usage = await counted(owner);
    expect(usage.bytes).toBeLessThanOrEqual(LIMIT);
    expect((await bounded.listCommits({ owner, limit: 100 })).commits).toHaveLength(kept.length);
    // Another owner has room of their own; a record without an owner is never bounded.
    await bounded.appendCommit({ commit: refused("user:other", "x"), bounded: true });
    await bounded.appendCommit({ commit: refused(null as never, "x"), bounded: true });
    // A transient failure or a conflict (not bounded) is kept past the bound.
    await bounded.appendCommit({ commit: refused(owner, "transient") });
    await bounded.appendCommit({ commit: refused(owner, "conflict", { status: "conflict" }) });
    expect((await counted(owner)).bytes).toBeGreaterThan(LIMIT);
    // A record that exists under a stable id is returned, bound or not.
    const stable = refused(owner, "stable", { id: "turn:tb:/persistent/user", turnId: "tb" });
    await expect(bounded.appendCommit({ commit: stable, bounded: true })).rejects.toThrow(
      FailedCommitsQuotaError,
    );
    await bounded.appendCommit({ commit: stable });
    const again = await bounded.appendCommit({ commit: stable, bounded: true });
    expect(again.id).toBe(stable.id);
  });

  it("the migration's backfill counts a record's bytes as the code does", async () => {
    const sql = sqlFor(database.target);
    const record = await bounded.appendCommit({
      commit: refused("user:backfill", "ü ✓", { extraBody: { name: "ß" } }),
    });
    const read = async () =>
      Number(
        (
          await sql.get<{ bytes: number }>(`SELECT "bytes" FROM "DirCommitRecord" WHERE "id" = ?`, [
            record.id,
          ])
        )?.bytes,
      );
    const written = await read();
    const folder = sql.dialect === "postgres" ? "postgres" : "sqlite";
    const migration = readFileSync(
      `prisma/${folder}/migrations/20261202080546_failed_commit_bytes/migration.sql`,
      "utf8",
    );
    const backfill = migration
      .split("\n")
      .find((line) => line.startsWith(`UPDATE "DirCommitRecord" SET "bytes"`))!;
    await sql.run(`UPDATE "DirCommitRecord" SET "bytes" = 0 WHERE "id" = ?`, [record.id]);
    await sql.run(backfill.replace(/;$/, ""));
    expect(await read()).toBe(written);
    expect(written).toBeGreaterThan(20_000);
  });

  it("bounded appends of one owner at once never pass the bound together", async () => {
    const owner = "user:race";
    const results = await Promise.allSettled(
      Array.from({ length: 12 }, (_, index) =>
        bounded.appendCommit({ commit: refused(owner, `c${index}`), bounded: true }),
      ),
    );
    const stored = results.filter((result) => result.status === "fulfilled").length;
    expect(stored).toBeGreaterThan(0);
    expect(stored).toBeLessThan(12);
    for (const result of results) {
      if (result.status === "rejected")
        expect(FailedCommitsQuotaError.isInstance(result.reason)).toBe(true);
    }
    expect((await counted(owner)).bytes).toBeLessThanOrEqual(LIMIT);
  });
});
