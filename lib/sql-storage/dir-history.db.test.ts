import { randomUUID } from "node:crypto";

import { beforeAll, describe, expect, it } from "vitest";

import { registerTestDatabase, testDatabaseProvider } from "@/lib/db/testing";
import { openTurnCheckout, type PersistentDir } from "@/lib/harness";
import { createCommitLog } from "./sql-commit-log";
import { createDirBacking, listDirCommits, type DirBackingHistoryOptions } from "./dir-backing";
import { readDirCommitDetail } from "./dir-commit-contents";
import {
  compactDirHistory,
  getDirHistoryUsage,
  getSharedHistoryBytes,
  hasHistoryToCompact,
} from "./dir-history";
import { DirHistoryQuotaError } from "./dir-history-quota-error";
import { sqlFor, type Sql } from "./sql";

// Issue 31, finding 5: a dir's history (every version's full text) had no bound. Decision 0030.

const database = registerTestDatabase();
let sql: Sql;
beforeAll(() => {
  sql = sqlFor(database.target);
});

type Body = { dirKey: string; quotaKey?: string };
const harnessDir = "/persistent/user";
const DAY = 86_400_000;
/** A text of `bytes` characters (one byte each in UTF-8) that differs by `tag`. */
const text = (tag: string | number, bytes: number) => `${tag}\n`.padEnd(bytes, "x");

function dirFor(history: DirBackingHistoryOptions<Body>): PersistentDir<Body> {
  const backing = createDirBacking<Body>({
    sql,
    dirKey: ({ extraBody }) => extraBody.dirKey,
    history: { ...history, quotaKey: (extraBody) => extraBody.quotaKey ?? null },
  });
  return { harnessDir, load: backing.load, store: backing.store, owner: () => "test" };
}

/** One turn that writes `files` (path → text, `null` deletes) and commits them. */
async function turn(
  dir: PersistentDir<Body>,
  extraBody: Body,
  files: Record<string, string | null>,
) {
  const commitLog = createCommitLog({ sql });
  const checkout = await openTurnCheckout({
    dirs: [dir],
    extraBody,
    session: null,
    commitLog,
    // As the app's turns: failed commits are retried automatically, unless a retry cannot help.
    retryPolicy: { maxAttempts: 6, baseDelayMs: 2_000, maxDelayMs: 60_000 },
  });
  for (const [path, content] of Object.entries(files)) {
    if (content === null) checkout.checkout.deleteFile({ path: `${harnessDir}/${path}` });
    else checkout.checkout.writeFile({ path: `${harnessDir}/${path}`, content });
  }
  const persistence = await checkout.finishTurn({ status: "completed" });
  if (persistence.status !== "succeeded" && persistence.status !== "failed") {
    throw new Error(`unexpected persistence ${persistence.status}`);
  }
  const commit = persistence.status === "failed" ? persistence.failedCommits[0]! : null;
  const record = commit?.commitId ? await commitLog.getCommit({ id: commit.commitId }) : null;
  return { persistence, commit, record };
}

/** The dir's counter and what its rows add up to. */
async function counted(dirKey: string) {
  const rows = await sql.all<{ historyBytes: number; contents: string | null }>(
    `SELECT "historyBytes", "contents" FROM "DirCommit" WHERE "dirKey" = ?`,
    [dirKey],
  );
  return {
    counter: (await getDirHistoryUsage({ sql, dirKey })).dirBytes,
    rows: rows.reduce((sum, row) => sum + Number(row.historyBytes), 0),
    stored: rows.reduce((sum, row) => sum + Buffer.byteLength(row.contents ?? ""), 0),
    count: rows.length,
  };
}

/** Moves versions `from`…`to` of a dir `days` into the past. */
async function age(dirKey: string, versions: number[], days: number) {
  for (const version of versions) {
    await sql.run(`UPDATE "DirCommit" SET "createdAt" = ? WHERE "dirKey" = ? AND "version" = ?`, [
      new Date(Date.now() - days * DAY),
      dirKey,
      version,
    ]);
  }
}

async function detailOf(dirKey: string, version: number) {
  const row = await sql.get<{ id: string }>(
    `SELECT "id" FROM "DirCommit" WHERE "dirKey" = ? AND "version" = ?`,
    [dirKey, version],
  );
  const detail = await readDirCommitDetail({ sql, dirKey, id: row!.id });
  return Object.fromEntries(detail!.files.map((file) => [file.path, file]));
}

describe(`dir history quota on ${testDatabaseProvider()}`, () => {
  it("refuses the 40-rewrites probe once the dir's history quota is reached, keeping each refused change as a failed commit", async () => {
    const dirKey = `user:${randomUUID()}`;
    const file = 1_000_000;
    const quota = 5 * 1024 * 1024;
    const dir = dirFor({ maxDirBytes: quota, retentionDays: 30 });
    const outcomes = [];
    for (let rewrite = 0; rewrite < 40; rewrite += 1) {
      outcomes.push(await turn(dir, { dirKey }, { "big.md": text(rewrite, file) }));
    }
    const stored = outcomes.filter((outcome) => outcome.persistence.status === "succeeded");
    const refused = outcomes.filter((outcome) => outcome.persistence.status === "failed");
    // Five versions of about 1 MB fit in 5 MiB; the sixth would pass it.
    expect(stored).toHaveLength(5);
    expect(refused).toHaveLength(35);
    expect(outcomes.slice(0, 5).every((o) => o.persistence.status === "succeeded")).toBe(true);
    for (const [index, outcome] of refused.entries()) {
      expect(outcome.commit!.error!.code).toBe("validation:dir");
      expect(outcome.commit!.error!.message).toMatch(
        /^The history of \/persistent\/user is full: it keeps 4\.8 MiB of earlier versions, and this change would add 976\.6 KiB, past the limit of 5 MiB per dir \(CAIRN_DIR_HISTORY_MAX_BYTES\)\. Nothing was written\. Versions older than 30 days are compacted automatically; to save sooner, ask an admin/,
      );
      // Kept, nothing lost: the whole change set is in the commit log, waiting for a person (a
      // retry would be refused again, so none is scheduled).
      expect(outcome.record).toMatchObject({ status: "failed", nextAttemptAt: null });
      expect(outcome.record!.changes.updated).toEqual([
        { path: "big.md", content: text(index + 5, file) },
      ]);
      expect(outcome.commit).not.toHaveProperty("retrying");
    }
    // The refusals wrote nothing: the counter is what the five rows hold, and within the quota.
    const after = await counted(dirKey);
    expect(after.count).toBe(5);
    expect(after.counter).toBe(after.rows);
    expect(after.counter).toBeLessThanOrEqual(quota);
    expect(after.stored).toBeGreaterThan(5 * file);
    const files = await dir.load({ extraBody: { dirKey }, session: null });
    expect(files.files["big.md"]).toBe(text(4, file));
    expect(files.cursor).toBe(5);
  }, 120_000);

  it("refuses a commit past the shared (workspace) quota, whichever dir counts against it", async () => {
    const quotaKey = `workspace:${randomUUID()}`;
    const company = { dirKey: `company:${randomUUID()}`, quotaKey };
    const memory = { dirKey: `user:${randomUUID()}`, quotaKey };
    const elsewhere = { dirKey: `user:${randomUUID()}`, quotaKey: `workspace:${randomUUID()}` };
    const dir = dirFor({ maxDirBytes: 10_000_000, maxSharedBytes: 250_000, retentionDays: 30 });
    expect((await turn(dir, company, { "a.md": text("c1", 100_000) })).persistence.status).toBe(
      "succeeded",
    );
    expect((await turn(dir, memory, { "a.md": text("m1", 100_000) })).persistence.status).toBe(
      "succeeded",
    );
    // A third 100 kB version, in either dir, would take the workspace to 300 kB.
    const refused = await turn(dir, memory, { "a.md": text("m2", 100_000) });
    expect(refused.commit!.error!.message).toMatch(
      /^The history of this workspace's dirs is full: it keeps 195\.4 KiB of earlier versions, and this change would add 97\.7 KiB, past the limit of 244\.1 KiB per workspace \(CAIRN_WORKSPACE_HISTORY_MAX_BYTES\)\./,
    );
    expect(refused.record).toMatchObject({ status: "failed", nextAttemptAt: null });
    expect((await turn(dir, company, { "b.md": text("c2", 100_000) })).commit!.error!.code).toBe(
      "validation:dir",
    );
    // Another workspace is not affected, and a small change still fits.
    expect((await turn(dir, elsewhere, { "a.md": text("e1", 100_000) })).persistence.status).toBe(
      "succeeded",
    );
    expect((await turn(dir, company, { "note.md": "short" })).persistence.status).toBe("succeeded");
    const rows = (await counted(company.dirKey)).rows + (await counted(memory.dirKey)).rows;
    expect(await getSharedHistoryBytes({ sql, quotaKey })).toBe(rows);
    expect(rows).toBeLessThanOrEqual(250_000);
    // The refused commits rolled back their dir counters too.
    for (const key of [company, memory]) {
      const { counter, rows: sum } = await counted(key.dirKey);
      expect(counter).toBe(sum);
    }
  });

  it("a quota error is the core's validation error and has its own marker", () => {
    const error = new DirHistoryQuotaError({
      message: "full",
      quota: "dir",
      dirKey: "user:1",
      quotaKey: null,
      limitBytes: 1,
      usedBytes: 1,
      addedBytes: 1,
    });
    expect(error.code).toBe("validation:dir");
    expect(DirHistoryQuotaError.isInstance(error)).toBe(true);
    expect(DirHistoryQuotaError.isInstance(new Error("full"))).toBe(false);
  });
});

describe(`dir history compaction on ${testDatabaseProvider()}`, () => {
  it("condenses exactly the versions past the window; kept versions still diff and restore, compacted ones say so", async () => {
    const dirKey = `user:${randomUUID()}`;
    const quotaKey = `workspace:${randomUUID()}`;
    const dir = dirFor({ retentionDays: 30 });
    const body = { dirKey, quotaKey };
    await turn(dir, body, { "a.md": "a1", "b.md": "b1" }); // v1
    await turn(dir, body, { "a.md": "a2" }); // v2
    await turn(dir, body, { "a.md": "a3", "c.md": "c1" }); // v3
    await turn(dir, body, { "b.md": null }); // v4
    await turn(dir, body, { "a.md": "a5" }); // v5
    await turn(dir, body, { "c.md": "c6" }); // v6
    await age(dirKey, [1, 2, 3, 4], 40);
    const before = new Date(Date.now() - 30 * DAY);
    const full = await counted(dirKey);
    expect(await hasHistoryToCompact({ sql, dirKey, before })).toBe(true);

    const result = await compactDirHistory({ sql, dirKey, before });
    // v1 loses a and b (v2 and v4 came after), v2 loses a (v3 came after); v3 keeps a3 and c1,
    // which v5 and v6 show as their "before"; v4 only deleted.
    expect(result).toMatchObject({ compactedBelow: 5, rowsCompacted: 2 });
    expect(result.bytesFreed).toBe(
      Buffer.byteLength(JSON.stringify({ "a.md": "a1", "b.md": "b1" })) -
        2 +
        Buffer.byteLength(JSON.stringify({ "a.md": "a2" })) -
        2,
    );
    const after = await counted(dirKey);
    expect(after.counter).toBe(after.rows);
    expect(after.counter).toBe(full.counter - result.bytesFreed);
    expect(await getSharedHistoryBytes({ sql, quotaKey })).toBe(after.rows);
    // Every row is still there: who, when, which paths (the Memory page's provenance).
    expect((await listDirCommits({ sql, dirKey })).commits.map((c) => c.version)).toEqual([
      6, 5, 4, 3, 2, 1,
    ]);

    const v1 = await detailOf(dirKey, 1);
    expect(v1["a.md"]!.after).toEqual({ state: "compacted" });
    expect(v1["b.md"]!.after).toEqual({ state: "compacted" });
    const v2 = await detailOf(dirKey, 2);
    expect(v2["a.md"]).toMatchObject({
      before: { state: "compacted" },
      after: { state: "compacted" },
    });
    const v3 = await detailOf(dirKey, 3);
    expect(v3["a.md"]).toMatchObject({
      before: { state: "compacted" },
      after: { state: "text", text: "a3" },
    });
    expect(v3["c.md"]).toMatchObject({ after: { state: "text", text: "c1" } });
    expect((await detailOf(dirKey, 4))["b.md"]).toMatchObject({
      before: { state: "compacted" },
      after: { state: "absent" },
    });
    // The kept versions diff as before compaction.
    expect((await detailOf(dirKey, 5))["a.md"]).toMatchObject({
      before: { state: "text", text: "a3" },
      after: { state: "text", text: "a5" },
    });
    expect((await detailOf(dirKey, 6))["c.md"]).toMatchObject({
      before: { state: "text", text: "c1" },
      after: { state: "text", text: "c6" },
    });

    // Again: nothing new past the window, nothing changes.
    expect(await hasHistoryToCompact({ sql, dirKey, before })).toBe(false);
    expect(await compactDirHistory({ sql, dirKey, before })).toMatchObject({ bytesFreed: 0 });

    // The window moves past v5: v3's a3 is no longer anyone's "before" (v5 is), its c1 still is.
    await age(dirKey, [5], 35);
    const moved = await compactDirHistory({ sql, dirKey, before });
    expect(moved).toMatchObject({ compactedBelow: 6, rowsCompacted: 1 });
    expect((await detailOf(dirKey, 3))["a.md"]!.after).toEqual({ state: "compacted" });
    expect((await detailOf(dirKey, 6))["c.md"]!.before).toEqual({ state: "text", text: "c1" });
    expect((await detailOf(dirKey, 5))["a.md"]!.after).toEqual({ state: "text", text: "a5" });
    const last = await counted(dirKey);
    expect(last.counter).toBe(last.rows);
    expect(await getSharedHistoryBytes({ sql, quotaKey })).toBe(last.rows);
  });

  it("orders versions made in the same millisecond by version", async () => {
    const dirKey = `user:${randomUUID()}`;
    const dir = dirFor({ retentionDays: 30 });
    for (let version = 1; version <= 6; version += 1) {
      await turn(dir, { dirKey }, { [`f${version % 2}.md`]: `v${version}` });
    }
    await sql.run(`UPDATE "DirCommit" SET "createdAt" = ? WHERE "dirKey" = ?`, [
      new Date(Date.now() - 40 * DAY),
      dirKey,
    ]);
    const result = await compactDirHistory({
      sql,
      dirKey,
      before: new Date(Date.now() - 30 * DAY),
    });
    expect(result).toMatchObject({ compactedBelow: 7, rowsCompacted: 4 });
    expect((await detailOf(dirKey, 6))["f0.md"]!.after).toEqual({ state: "text", text: "v6" });
    expect((await detailOf(dirKey, 5))["f1.md"]!.after).toEqual({ state: "text", text: "v5" });
    expect((await detailOf(dirKey, 4))["f0.md"]!.after).toEqual({ state: "compacted" });
  });

  it("compacts what is past the window before refusing a commit at the quota", async () => {
    const dirKey = `user:${randomUUID()}`;
    const dir = dirFor({ maxDirBytes: 350_000, retentionDays: 30 });
    for (let version = 1; version <= 3; version += 1) {
      await turn(dir, { dirKey }, { "a.md": text(version, 100_000) });
    }
    // At the quota, inside the window: refused.
    const refused = await turn(dir, { dirKey }, { "a.md": text(4, 100_000) });
    expect(refused.commit!.error!.code).toBe("validation:dir");
    expect((await counted(dirKey)).count).toBe(3);
    // Once v1 and v2 are old, the same commit compacts them and is stored.
    await age(dirKey, [1, 2], 31);
    const stored = await turn(dir, { dirKey }, { "a.md": text(4, 100_000) });
    expect(stored.persistence.status).toBe("succeeded");
    const after = await counted(dirKey);
    expect(after.count).toBe(4);
    expect(after.counter).toBe(after.rows);
    expect(after.counter).toBeLessThan(350_000);
    expect((await detailOf(dirKey, 3))["a.md"]!.before).toEqual({
      state: "text",
      text: text(2, 100_000),
    });
    expect((await detailOf(dirKey, 1))["a.md"]!.after).toEqual({ state: "compacted" });
  });

  it("keeps the counters exact while commits and a compaction run at once", async () => {
    const dirKey = `user:${randomUUID()}`;
    const quotaKey = `workspace:${randomUUID()}`;
    const dir = dirFor({ retentionDays: 30 });
    for (let version = 1; version <= 10; version += 1) {
      await turn(dir, { dirKey, quotaKey }, { [`f${version % 3}.md`]: text(version, 2_000) });
    }
    await age(dirKey, [1, 2, 3, 4, 5, 6, 7, 8], 40);
    const before = new Date(Date.now() - 30 * DAY);
    await Promise.all([
      compactDirHistory({ sql, dirKey, before }),
      compactDirHistory({ sql, dirKey, before }),
      ...Array.from({ length: 5 }, (_, index) =>
        turn(dir, { dirKey, quotaKey }, { [`g${index}.md`]: text(index, 1_000) }),
      ),
    ]);
    const after = await counted(dirKey);
    expect(after.counter).toBe(after.rows);
    expect(await getSharedHistoryBytes({ sql, quotaKey })).toBe(after.rows);
  });
});
