// The durability promises (spool, journal, recovery, retry) over shared fixtures; the file
// spool itself is tested in file-spool.test.ts.
import { describe, expect, it } from "vitest";

import type { CommitLog } from "./commit-log";
import {
  createInMemorySpool,
  createInMemoryTurnJournal,
  nextAttemptAt,
  turnCommitId,
  type RetryPolicy,
  type TurnJournal,
} from "./durability";
import { createInMemoryCommitLog } from "./in-memory-commit-log";
import { createInMemoryDirBacking, type InMemoryDirBacking } from "./in-memory-dir-backing";
import { openTurnCheckout } from "./open-turn-checkout";
import { drainSpool, recoverInterruptedTurn, retryDueCommits } from "./recovery";
import type { Clock, PersistentDir } from "./types";

const context = {
  extraBody: { userId: "u1" },
  session: { chatId: "c1" },
};
const USER = "/persistent/user";
const policy: RetryPolicy = { maxAttempts: 3, baseDelayMs: 1_000, maxDelayMs: 10_000 };

/** A clock the test moves by hand. */
function manualClock(start = Date.UTC(2026, 0, 1)): Clock & { advance(ms: number): void } {
  let now = start;
  return { now: () => new Date(now), advance: (ms) => void (now += ms) };
}

/** Wraps a port so every method throws while `down` is true: a database that went away. */
function outage<T extends object>(port: T): T & { down: boolean } {
  const state = { down: false };
  return new Proxy(port, {
    get(target, key, receiver) {
      if (key === "down") return state.down;
      const value = Reflect.get(target, key, receiver) as unknown;
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if (state.down) return Promise.reject(new Error("connection refused (injected)"));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
    set(_target, key, value) {
      if (key === "down") {
        state.down = value as boolean;
        return true;
      }
      return false;
    },
  }) as T & { down: boolean };
}

/** A dir whose store throws while `failing` is set (the backing shares the database). */
function flakyDir(backing: InMemoryDirBacking): PersistentDir & { failing: boolean } {
  const dir = {
    harnessDir: USER,
    failing: false,
    load: backing.load,
    store: async (options: Parameters<InMemoryDirBacking["store"]>[0]) => {
      if (dir.failing) throw new Error("database unavailable (injected)");
      return backing.store(options);
    },
  };
  return dir;
}

async function openTurn(options: {
  dir: PersistentDir;
  commitLog: CommitLog;
  journal?: TurnJournal;
  spool?: ReturnType<typeof createInMemorySpool>;
  clock?: Clock;
  turnId?: string;
}) {
  return openTurnCheckout({
    dirs: [options.dir],
    ...context,
    commitLog: options.commitLog,
    journal: options.journal,
    spool: options.spool,
    turnId: options.turnId ?? "t1",
    retryPolicy: policy,
    clock: options.clock,
  });
}

describe("automatic retry of failed commits", () => {
  it("records a transient failure under the turn's id, due for retry, and a sweep applies it once", async () => {
    const clock = manualClock();
    const backing = createInMemoryDirBacking();
    const dir = flakyDir(backing);
    const commitLog = createInMemoryCommitLog({ clock });
    const turn = await openTurn({ dir, commitLog, clock });
    turn.checkout.writeFile({ path: `${USER}/a.md`, content: "A" });
    dir.failing = true;
    const persistence = await turn.finishTurn({ status: "completed" });

    expect(persistence.status).toBe("failed");
    const [commit] = persistence.status === "failed" ? persistence.failedCommits : [];
    expect(commit).toMatchObject({
      status: "failed",
      retrying: true,
      commitId: "turn:t1:/persistent/user",
    });
    const [record] = commitLog.all();
    expect(record).toMatchObject({ status: "failed", turnId: "t1", attempts: 1 });
    expect(record!.nextAttemptAt).toEqual(new Date(clock.now().getTime() + 1_000));

    // Not due yet: nothing happens.
    expect(await retryDueCommits({ commitLog, dirs: [dir], policy, clock })).toMatchObject({
      claimed: 0,
    });
    dir.failing = false;
    clock.advance(1_000);
    const sweep = await retryDueCommits({ commitLog, dirs: [dir], policy, clock });
    expect(sweep).toMatchObject({ claimed: 1, succeeded: 1 });
    expect(backing.files()).toEqual({ "a.md": "A" });
    expect(backing.storeCalls.filter((call) => call.changes.created.length > 0)).toHaveLength(1);
    expect(commitLog.all()[0]).toMatchObject({
      status: "resolved",
      resolution: "retried",
      nextAttemptAt: null,
    });
    clock.advance(60_000);
    expect(await retryDueCommits({ commitLog, dirs: [dir], policy, clock })).toMatchObject({
      claimed: 0,
    });
  });

  it("backs off, then leaves the record for a person when the attempts are used up", async () => {
    const clock = manualClock();
    const backing = createInMemoryDirBacking();
    const dir = flakyDir(backing);
    dir.failing = true;
    const commitLog = createInMemoryCommitLog({ clock });
    const turn = await openTurn({ dir, commitLog, clock });
    turn.checkout.writeFile({ path: `${USER}/a.md`, content: "A" });
    await turn.finishTurn({ status: "completed" });

    clock.advance(1_000);
    expect(await retryDueCommits({ commitLog, dirs: [dir], policy, clock })).toMatchObject({
      rescheduled: 1,
    });
    // attempts 2 → next delay 2 s (doubling).
    expect(commitLog.all()[0]!.nextAttemptAt).toEqual(new Date(clock.now().getTime() + 2_000));
    clock.advance(2_000);
    expect(await retryDueCommits({ commitLog, dirs: [dir], policy, clock })).toMatchObject({
      needsPerson: 1,
    });
    expect(commitLog.all()[0]).toMatchObject({
      status: "failed",
      attempts: 3,
      nextAttemptAt: null,
    });
    clock.advance(3_600_000);
    expect(await retryDueCommits({ commitLog, dirs: [dir], policy, clock })).toMatchObject({
      claimed: 0,
    });
    expect(backing.files()).toEqual({});
  });

  it("two sweeps at the same moment apply a change once", async () => {
    const clock = manualClock();
    const backing = createInMemoryDirBacking();
    const dir = flakyDir(backing);
    const commitLog = createInMemoryCommitLog({ clock });
    for (const turnId of ["t1", "t2", "t3"]) {
      dir.failing = true;
      const turn = await openTurn({ dir, commitLog, clock, turnId });
      turn.checkout.writeFile({ path: `${USER}/${turnId}.md`, content: turnId });
      await turn.finishTurn({ status: "completed" });
    }
    dir.failing = false;
    clock.advance(5_000);
    const [a, b] = await Promise.all([
      retryDueCommits({ commitLog, dirs: [dir], policy, clock }),
      retryDueCommits({ commitLog, dirs: [dir], policy, clock }),
    ]);
    expect(a.claimed + b.claimed).toBe(3);
    expect(a.succeeded + b.succeeded).toBe(3);
    expect(backing.files()).toEqual({ "t1.md": "t1", "t2.md": "t2", "t3.md": "t3" });
    const stores = backing.storeCalls.map((call) => call.changes.created.map((file) => file.path));
    expect(stores.flat().sort()).toEqual(["t1.md", "t2.md", "t3.md"]);
  });

  it("a conflict is never retried automatically", async () => {
    const clock = manualClock();
    const backing = createInMemoryDirBacking({ files: { "a.md": "base" } });
    const commitLog = createInMemoryCommitLog({ clock });
    const dir: PersistentDir = { harnessDir: USER, load: backing.load, store: backing.store };
    const turn = await openTurn({ dir, commitLog, clock });
    turn.checkout.writeFile({ path: `${USER}/a.md`, content: "ours" });
    backing.writeExternally({ files: { "a.md": "theirs" } });
    await turn.finishTurn({ status: "completed" });
    expect(commitLog.all()[0]).toMatchObject({ status: "conflict", nextAttemptAt: null });
    clock.advance(60_000);
    expect(await retryDueCommits({ commitLog, dirs: [dir], policy, clock })).toMatchObject({
      claimed: 0,
    });
  });

  it("computes the backoff from the policy", () => {
    const now = new Date(0);
    expect(nextAttemptAt({ policy, attempts: 1, now })).toEqual(new Date(1_000));
    expect(nextAttemptAt({ policy, attempts: 2, now })).toEqual(new Date(2_000));
    expect(nextAttemptAt({ policy, attempts: 3, now })).toBeNull();
    expect(nextAttemptAt({ policy: { ...policy, maxAttempts: 20 }, attempts: 10, now })).toEqual(
      new Date(10_000),
    );
  });
});

describe("the spool: when the database is away at commit time", () => {
  it("keeps the change set on the spool, imports it once when the database answers, and retries it", async () => {
    const clock = manualClock();
    const backing = createInMemoryDirBacking();
    const dir = flakyDir(backing);
    const commitLog = outage(createInMemoryCommitLog({ clock }));
    const spool = createInMemorySpool({ now: clock.now });
    const turn = await openTurn({ dir, commitLog, spool, clock });
    turn.checkout.writeFile({ path: `${USER}/a.md`, content: "kept" });
    dir.failing = true;
    commitLog.down = true;
    const persistence = await turn.finishTurn({ status: "completed" });

    const commit = persistence.status === "failed" ? persistence.failedCommits[0] : undefined;
    expect(commit).toMatchObject({ status: "failed", spooled: true, retrying: true });
    expect(commit).not.toHaveProperty("unrecorded");
    expect(spool.size()).toBe(1);

    // Still down: nothing moves, nothing is lost.
    expect(await drainSpool({ spool, commitLog, clock })).toMatchObject({
      imported: 0,
      remaining: 1,
    });
    expect(spool.size()).toBe(1);

    commitLog.down = false;
    dir.failing = false;
    const [item] = await spool.list();
    expect(await drainSpool({ spool, commitLog, clock })).toMatchObject({
      imported: 1,
      remaining: 0,
    });
    // The same item imported again (a crash between insert and file removal): still one record.
    await spool.put({
      item: { kind: "commit", commit: (item as Extract<typeof item, { kind: "commit" }>).commit },
    });
    await drainSpool({ spool, commitLog, clock });
    const records = (await commitLog.listCommits({})).commits;
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      id: turnCommitId({ turnId: "t1", harnessDir: USER }),
      status: "failed",
    });

    expect(await retryDueCommits({ commitLog, dirs: [dir], policy, clock })).toMatchObject({
      succeeded: 1,
    });
    expect(backing.files()).toEqual({ "a.md": "kept" });
  });

  it("hands the change set back as unrecorded only when the spool fails too, and keeps the journal", async () => {
    const backing = createInMemoryDirBacking();
    const dir = flakyDir(backing);
    const commitLog = outage(createInMemoryCommitLog());
    const spool = createInMemorySpool();
    const journal = createInMemoryTurnJournal();
    const turn = await openTurn({ dir, commitLog, spool, journal });
    turn.checkout.writeFile({ path: `${USER}/a.md`, content: "A" });
    await turn.checkpoint();
    dir.failing = true;
    commitLog.down = true;
    spool.failing = true;
    const persistence = await turn.finishTurn({ status: "completed" });
    const commit = persistence.status === "failed" ? persistence.failedCommits[0] : undefined;
    expect(commit?.unrecorded?.changes.created).toEqual([{ path: "a.md", content: "A" }]);
    expect(journal.all()).toHaveLength(1);
  });

  it("upgrades an interrupted record to a retried failure when the completed turn's spool arrives later", async () => {
    const clock = manualClock();
    const backing = createInMemoryDirBacking();
    const dir = flakyDir(backing);
    const commitLog = outage(createInMemoryCommitLog({ clock }));
    const journal = outage(createInMemoryTurnJournal());
    const spool = createInMemorySpool({ now: clock.now });
    const turn = await openTurn({ dir, commitLog, spool, journal, clock });
    turn.checkout.writeFile({ path: `${USER}/a.md`, content: "A" });
    await turn.checkpoint();
    dir.failing = true;
    commitLog.down = true;
    journal.down = true;
    await turn.finishTurn({ status: "completed" });
    // Another instance closed the turn as interrupted from the database journal first.
    commitLog.down = false;
    journal.down = false;
    await recoverInterruptedTurn({ turnId: "t1", journal, commitLog, dirs: [dir] });
    expect((await commitLog.listCommits({})).commits[0]).toMatchObject({ status: "interrupted" });

    dir.failing = false;
    await drainSpool({ spool, commitLog, journal, clock });
    const records = (await commitLog.listCommits({})).commits;
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ status: "failed" });
    expect(await retryDueCommits({ commitLog, dirs: [dir], policy, clock })).toMatchObject({
      succeeded: 1,
    });
    expect(backing.files()).toEqual({ "a.md": "A" });
  });
});

describe("the turn journal and interrupted turns", () => {
  it("journals each change as it happens; a dead turn's changes become one interrupted record, nothing committed", async () => {
    const backing = createInMemoryDirBacking({ files: { "old.md": "x" } });
    const dir: PersistentDir = { harnessDir: USER, load: backing.load, store: backing.store };
    const commitLog = createInMemoryCommitLog();
    const journal = createInMemoryTurnJournal();
    const turn = await openTurn({ dir, commitLog, journal });
    turn.checkout.writeFile({ path: `${USER}/a.md`, content: "one" });
    await turn.checkpoint();
    expect(journal.all()[0]!.changes.created).toEqual([{ path: "a.md", content: "one" }]);
    await turn.files.write(`${USER}/b.md`, new Uint8Array([1, 2, 3]));
    turn.checkout.deleteFile({ path: `${USER}/old.md` });
    await turn.checkpoint();
    // An unchanged checkout writes nothing new.
    const revision = journal.all()[0]!.revision;
    await turn.checkpoint();
    expect(journal.all()[0]!.revision).toBe(revision);
    // … the process dies here: finishTurn never runs.

    const [first, second] = await Promise.all([
      recoverInterruptedTurn({ turnId: "t1", journal, commitLog, dirs: [dir] }),
      recoverInterruptedTurn({ turnId: "t1", journal, commitLog, dirs: [dir] }),
    ]);
    expect(first.records).toHaveLength(1);
    expect(second.records.map((record) => record.id)).toEqual(
      first.records.map((record) => record.id),
    );
    const records = commitLog.all();
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      id: "turn:t1:/persistent/user",
      status: "interrupted",
      nextAttemptAt: null,
      changes: {
        created: [
          { path: "a.md", content: "one" },
          { path: "b.md", content: new Uint8Array([1, 2, 3]) },
        ],
        updated: [],
        deleted: ["old.md"],
      },
      base: { "a.md": null, "b.md": null, "old.md": "x" },
    });
    expect(backing.files()).toEqual({ "old.md": "x" });
    expect(journal.all()).toEqual([]);
    // Never retried automatically: a person applies or discards it.
    expect(await retryDueCommits({ commitLog, dirs: [dir], policy })).toMatchObject({ claimed: 0 });
  });

  it("journals to the spool while the database is away; the import lets recovery find it", async () => {
    const backing = createInMemoryDirBacking();
    const dir: PersistentDir = { harnessDir: USER, load: backing.load, store: backing.store };
    const commitLog = createInMemoryCommitLog();
    const journal = outage(createInMemoryTurnJournal());
    const spool = createInMemorySpool();
    const turn = await openTurn({ dir, commitLog, journal, spool });
    journal.down = true;
    turn.checkout.writeFile({ path: `${USER}/a.md`, content: "1" });
    await turn.checkpoint();
    turn.checkout.writeFile({ path: `${USER}/a.md`, content: "2" });
    await turn.checkpoint();
    expect(spool.size()).toBe(2);
    // dies; the database comes back; the instance restarts and drains its spool
    journal.down = false;
    expect(await drainSpool({ spool, commitLog, journal })).toMatchObject({ imported: 2 });
    expect(await journal.listTurns()).toEqual(["t1"]);
    await recoverInterruptedTurn({ turnId: "t1", journal, commitLog, dirs: [dir] });
    expect(commitLog.all()[0]!.changes.created).toEqual([{ path: "a.md", content: "2" }]);
  });

  it("a checkpoint that neither the journal nor the spool takes fails loudly", async () => {
    const backing = createInMemoryDirBacking();
    const dir: PersistentDir = { harnessDir: USER, load: backing.load, store: backing.store };
    const journal = outage(createInMemoryTurnJournal());
    const spool = createInMemorySpool();
    const turn = await openTurn({ dir, commitLog: createInMemoryCommitLog(), journal, spool });
    journal.down = true;
    spool.failing = true;
    turn.checkout.writeFile({ path: `${USER}/a.md`, content: "1" });
    await expect(turn.checkpoint()).rejects.toMatchObject({ code: "failed:journal" });
  });

  it("a finished turn leaves no journal: committed, recorded, aborted", async () => {
    for (const status of ["completed", "aborted"] as const) {
      const backing = createInMemoryDirBacking();
      const dir: PersistentDir = { harnessDir: USER, load: backing.load, store: backing.store };
      const journal = createInMemoryTurnJournal();
      const turn = await openTurn({ dir, commitLog: createInMemoryCommitLog(), journal });
      turn.checkout.writeFile({ path: `${USER}/a.md`, content: "1" });
      await turn.checkpoint();
      expect(journal.all()).toHaveLength(1);
      await turn.finishTurn({ status });
      expect(journal.all()).toEqual([]);
    }
  });

  it("does not list changes the backing already holds (the commit landed just before the crash)", async () => {
    const backing = createInMemoryDirBacking();
    const dir: PersistentDir = { harnessDir: USER, load: backing.load, store: backing.store };
    const commitLog = createInMemoryCommitLog();
    const journal = outage(createInMemoryTurnJournal());
    const turn = await openTurn({ dir, commitLog, journal });
    turn.checkout.writeFile({ path: `${USER}/a.md`, content: "1" });
    await turn.checkpoint();
    journal.down = true; // the discard after the commit does not reach the database
    await turn.finishTurn({ status: "completed" });
    journal.down = false;
    const result = await recoverInterruptedTurn({ turnId: "t1", journal, commitLog, dirs: [dir] });
    expect(result).toEqual({ records: [], alreadyApplied: [USER] });
    expect(commitLog.all()).toEqual([]);
    expect(await journal.listTurns()).toEqual([]);
  });
});

describe("a turn closed as interrupted while its own process was still committing", () => {
  // A database outage stops the lease from being renewed: the turn is closed as interrupted and
  // its journal listed while the live process's commit is still on its way. The change must end
  // up applied once and not also offered for Apply.
  it("its own commit, landing after the record was listed, settles the record as already applied", async () => {
    const backing = createInMemoryDirBacking();
    const dir: PersistentDir = { harnessDir: USER, load: backing.load, store: backing.store };
    const commitLog = createInMemoryCommitLog();
    const journal = createInMemoryTurnJournal();
    const turn = await openTurn({ dir, commitLog, journal });
    turn.checkout.writeFile({ path: `${USER}/a.md`, content: "kept" });
    await turn.checkpoint();

    const recovered = await recoverInterruptedTurn({
      turnId: "t1",
      journal,
      commitLog,
      dirs: [dir],
    });
    expect(recovered.records.map((record) => record.status)).toEqual(["interrupted"]);

    const persistence = await turn.finishTurn({ status: "completed" });
    expect(persistence.status).toBe("succeeded");
    expect(backing.files()).toEqual({ "a.md": "kept" });
    expect(commitLog.all()).toMatchObject([
      { id: "turn:t1:/persistent/user", status: "resolved", resolution: "already-applied" },
    ]);
  });

  it("recovery that listed the record just as the commit landed settles it itself", async () => {
    const backing = createInMemoryDirBacking();
    let landLater: (() => Promise<void>) | null = null;
    const dir: PersistentDir = {
      harnessDir: USER,
      store: backing.store,
      // Recovery's first look sees the dir before the live process's commit; the commit lands
      // right after that look, before the record is appended.
      load: async (input) => {
        const loaded = await backing.load(input);
        const land = landLater;
        landLater = null;
        if (land) await land();
        return loaded;
      },
    };
    const commitLog = createInMemoryCommitLog();
    const journal = createInMemoryTurnJournal();
    const turn = await openTurn({ dir, commitLog, journal });
    turn.checkout.writeFile({ path: `${USER}/a.md`, content: "kept" });
    await turn.checkpoint();
    landLater = async () => {
      backing.writeExternally({ files: { "a.md": "kept" } });
    };

    const recovered = await recoverInterruptedTurn({
      turnId: "t1",
      journal,
      commitLog,
      dirs: [dir],
    });
    expect(recovered).toEqual({ records: [], alreadyApplied: [USER] });
    expect(backing.files()).toEqual({ "a.md": "kept" });
    expect(commitLog.all()).toMatchObject([
      { id: "turn:t1:/persistent/user", status: "resolved", resolution: "already-applied" },
    ]);
  });
});
