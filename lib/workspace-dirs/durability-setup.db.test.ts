import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { sqlFor } from "@/lib/sql-storage/sql";
import { registerTestDatabase, testDatabaseProvider } from "@/lib/db/testing";
import {
  openTurnCheckout,
  turnCommitId,
  type Actor,
  type CommitLog,
  type CommitRecord,
} from "@/lib/harness";
import type { JobQueue } from "@/lib/jobs";
import {
  COMMIT_RETRY_JOB,
  createDurability,
  type CommitRetryPayload,
  type Durability,
} from "./durability-setup";
import { testJobQueues, waitFor } from "@/lib/jobs/testing";
import {
  createPersistentDirsService,
  EMPTY_TURN_SAVE_STATUS,
  type PersistentDirsService,
} from "./dirs-service";

const database = registerTestDatabase();
let dataDir: string;
let service: PersistentDirsService;
let clockNow = Date.UTC(2026, 5, 1);
const now = () => new Date(clockNow);
let durability: Durability;
let queue: JobQueue;

const actor: Actor = { userId: "u1", workspaceId: "w1", role: "member" };
const USER = "/persistent/user";
const LEASE = 10_000;
const POLICY = { maxAttempts: 3, baseDelayMs: 1_000, maxDelayMs: 10_000 };
/** The job queues app instances open: the `Job` table on SQLite, pg-boss on PostgreSQL. */
const queues = testJobQueues(() => database.target);

/** One app instance's durability (its own database client and queue), as `getDurability` builds it. */
function instance(options: { service?: PersistentDirsService; dataDir?: string } = {}) {
  const dirs = options.service ?? service;
  const jobQueue = queues.open({ now: () => clockNow });
  return {
    queue: jobQueue,
    durability: createDurability({
      sql: sqlFor(database.target),
      dirs: dirs.dirs,
      commitLog: dirs.commitLog,
      jobQueue,
      dataDir: options.dataDir ?? dataDir,
      spoolKey: new Uint8Array(32).fill(7),
      turnLeaseMs: LEASE,
      retryPolicy: POLICY,
      now,
      log: () => undefined,
    }),
  };
}

/** Starts this instance's retry worker (the app does it in `startJobWorkers`). */
async function work(on: { queue: JobQueue; durability: Durability }, seen?: string[]) {
  await on.queue.work<CommitRetryPayload>(
    COMMIT_RETRY_JOB,
    async (job) => {
      const status = await on.durability.retryRunner.runJob(job);
      seen?.push(status);
      return status;
    },
    { pollIntervalSeconds: 0.5 },
  );
}

const resolved = (id: string) =>
  waitFor(`record ${id} to be resolved`, async () => {
    const record = await service.commitLog.getCommit({ id });
    return record?.status === "resolved" ? record : null;
  });

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), "cairn-durability-"));
  service = createPersistentDirsService({ sql: database.sql });
  ({ durability, queue } = instance());
  const db = database.db;
  await db.user.create({ data: { id: "u1", email: "u1@example.com", name: "U1" } });
  await db.workspace.create({ data: { id: "w1", name: "W1" } });
  await db.chat.create({ data: { id: "c1", workspaceId: "w1", userId: "u1", title: "c" } });
});
afterAll(async () => {
  await queues.closeAll();
  await rm(dataDir, { recursive: true, force: true });
});

/** A `failed` record as a turn whose store failed leaves it, due at `nextAttemptAt`. */
async function failedRecord(options: {
  turnId: string;
  path: string;
  content: string;
  nextAttemptAt: Date;
}): Promise<CommitRecord> {
  const baseCursor = (await service.listFiles({ actor, harnessDir: USER })).cursor;
  return service.commitLog.appendCommit({
    commit: {
      id: turnCommitId({ turnId: options.turnId, harnessDir: USER }),
      turnId: options.turnId,
      harnessDir: USER,
      mode: "after-turn",
      status: "failed",
      owner: "user:u1",
      changes: {
        created: [{ path: options.path, content: options.content }],
        updated: [],
        deleted: [],
      },
      baseCursor,
      base: { [options.path]: null },
      extraBody: { actor },
      session: { chatId: "c1" },
      error: { code: "failed:store", message: "database unavailable" },
      conflicts: [],
      attempts: 1,
      nextAttemptAt: options.nextAttemptAt,
    },
  });
}

/** A delivery `id` of the commit-retry job of `recordId`, as the queue hands it to a worker. */
const retryJob = (id: string, recordId: string, retryCount: number) => ({
  id,
  name: COMMIT_RETRY_JOB,
  payload: { recordId },
  retryCount,
});

const commitsOf = async (file: string) =>
  (await service.listHistory({ actor, harnessDir: USER })).commits.filter((commit) =>
    commit.created.includes(file),
  ).length;

async function startTurn(id: string, leaseExpiresAt: Date | null) {
  await database.db.turn.create({
    data: { id, chatId: "c1", userId: "u1", status: "running", leaseExpiresAt },
  });
  return openTurnCheckout({
    dirs: service.dirs,
    extraBody: { actor },
    session: { chatId: "c1" },
    commitLog: service.commitLog,
    journal: durability.journal,
    spool: durability.spool,
    retryPolicy: durability.retryPolicy,
    turnId: id,
  });
}

describe(`durability on ${testDatabaseProvider()}`, () => {
  it("closes only turns whose lease expired, and lists a dead turn's journaled changes as interrupted", async () => {
    const dead = await startTurn("t-dead", new Date(clockNow + LEASE));
    await dead.files.write(`${USER}/dead.md`, "from a dead turn");
    const live = await startTurn("t-live", new Date(clockNow + LEASE));
    await live.files.write(`${USER}/live.md`, "from a live turn");

    // The live process refreshes its lease; the dead one does not.
    clockNow += LEASE + 1;
    await database.db.turn.update({
      where: { id: "t-live" },
      data: { leaseExpiresAt: new Date(clockNow + LEASE) },
    });
    const pass = await durability.runOnce();
    expect(pass.errors).toEqual([]);
    expect(pass.closedTurns).toEqual(["t-dead"]);
    expect(pass.recoveredTurns).toEqual(["t-dead"]);

    const turns = await database.db.turn.findMany({ orderBy: { id: "asc" } });
    expect(turns.map((turn) => [turn.id, turn.status])).toEqual([
      ["t-dead", "interrupted"],
      ["t-live", "running"],
    ]);
    const record = await service.commitLog.getCommit({
      id: turnCommitId({ turnId: "t-dead", harnessDir: USER }),
    });
    expect(record).toMatchObject({ status: "interrupted", turnId: "t-dead" });
    expect(record!.changes.created).toEqual([{ path: "dead.md", content: "from a dead turn" }]);
    const failures = await service.listFailures({ actor });
    expect(failures.failures.map((failure) => [failure.id, failure.status])).toEqual([
      [record!.id, "interrupted"],
    ]);
    // Nothing was committed on its own.
    expect((await service.listFiles({ actor, harnessDir: USER })).files).toEqual([]);

    // A second pass (or a second instance) changes nothing.
    const again = await durability.runOnce();
    expect(again.closedTurns).toEqual([]);
    expect((await service.commitLog.listCommits({})).commits).toHaveLength(1);

    // Apply from the failures page commits it; the live turn finishes normally.
    expect(await service.retryFailure({ actor, id: record!.id })).toMatchObject({
      status: "succeeded",
    });
    await live.finishTurn({ status: "completed" });
    const files = await service.listFiles({ actor, harnessDir: USER });
    expect(files.files.map((file) => file.path)).toEqual(["dead.md", "live.md"]);
    expect(await database.db.turnJournalEntry.count()).toBe(0);
  });

  it("retries a failed turn commit automatically, hides it from the failures list meanwhile, and reports the turn saved", async () => {
    const failing: CommitLog = service.commitLog;
    const turn = await startTurn("t-retry", new Date(clockNow + LEASE));
    await turn.files.write(`${USER}/retry.md`, "retry me");
    // The record a turn leaves when its store failed (the in-memory tests cover producing it).
    const id = turnCommitId({ turnId: "t-retry", harnessDir: USER });
    const checkoutChanges = turn.checkout.diff({ harnessDir: USER })[0]!.changes;
    await failing.appendCommit({
      commit: {
        id,
        turnId: "t-retry",
        harnessDir: USER,
        mode: "after-turn",
        status: "failed",
        owner: "user:u1",
        changes: checkoutChanges,
        baseCursor: turn.checkout.listDirs()[0]!.cursor,
        base: { "retry.md": null },
        extraBody: { actor },
        session: { chatId: "c1" },
        error: { code: "failed:store", message: "database unavailable" },
        conflicts: [],
        attempts: 1,
        nextAttemptAt: new Date(clockNow + 1_000),
      },
    });
    expect(await service.turnSaveStatus({ actor, turnId: "t-retry", spooled: 0 })).toEqual({
      ...EMPTY_TURN_SAVE_STATUS,
      pending: 1,
      canRetry: false,
    });
    expect((await service.listFailures({ actor })).failures.map((f) => f.id)).not.toContain(id);
    expect(await service.countRetrying({ actor })).toBe(1);

    // Not due yet: the pass enqueues nothing.
    expect((await durability.runOnce()).retries).toEqual({ due: 0, enqueued: 0 });
    clockNow += 1_000;
    const pass = await durability.runOnce();
    // The pass only stores the retry job; a worker runs it.
    expect(pass.retries).toEqual({ due: 1, enqueued: 1 });
    expect((await service.commitLog.getCommit({ id }))?.status).toBe("failed");
    // A second pass while the job waits adds none (one waiting job per record).
    expect((await durability.runOnce()).retries).toEqual({ due: 1, enqueued: 0 });
    await work({ queue, durability });
    await resolved(id);
    expect(await service.turnSaveStatus({ actor, turnId: "t-retry", spooled: 0 })).toEqual({
      ...EMPTY_TURN_SAVE_STATUS,
      resolved: 1,
      canRetry: false,
    });
    const file = await service.readFile({ actor, harnessDir: USER, path: "retry.md" });
    expect(file?.text).toBe("retry me");
  });

  it("imports a spooled commit once the database answers, and applies it once", async () => {
    const id = turnCommitId({ turnId: "t-spool", harnessDir: USER });
    const baseCursor = (await service.listFiles({ actor, harnessDir: USER })).cursor;
    const item = {
      kind: "commit" as const,
      commit: {
        id,
        turnId: "t-spool",
        harnessDir: USER,
        mode: "after-turn" as const,
        status: "failed" as const,
        owner: "user:u1",
        changes: {
          created: [{ path: "spooled.md", content: "from the spool" }],
          updated: [],
          deleted: [],
        },
        baseCursor,
        base: { "spooled.md": null },
        extraBody: { actor },
        session: { chatId: "c1" },
        error: { code: "failed:store", message: "database unavailable" },
        conflicts: [],
        attempts: 1,
        nextAttemptAt: null,
      },
    };
    // The same change spooled twice (a crash between the import and the file's removal).
    await durability.spool.put({ item });
    await durability.spool.put({ item });
    const pass = await durability.runOnce();
    expect(pass.spool).toMatchObject({ imported: 2, remaining: 0 });
    expect(pass.retries).toMatchObject({ enqueued: 1 });
    expect(await durability.spool.list()).toEqual([]);
    await resolved(id);
    const history = await service.listHistory({ actor, harnessDir: USER });
    expect(history.commits.filter((commit) => commit.created.includes("spooled.md"))).toHaveLength(
      1,
    );
  });

  it("discards an interrupted record for its owner only, applying nothing", async () => {
    const dead = await startTurn("t-discard", new Date(clockNow - 1));
    await dead.files.write(`${USER}/discard.md`, "not wanted");
    clockNow += 1;
    await durability.runOnce();
    const id = turnCommitId({ turnId: "t-discard", harnessDir: USER });
    const stranger: Actor = { userId: "u2", workspaceId: "w2", role: "admin" };
    await expect(service.discardFailure({ actor: stranger, id })).rejects.toMatchObject({
      code: "not_found:commit",
    });
    await service.discardFailure({ actor, id });
    expect(await service.commitLog.getCommit({ id })).toMatchObject({
      status: "resolved",
      resolution: "discarded",
    });
    expect(await service.readFile({ actor, harnessDir: USER, path: "discard.md" })).toBeNull();
  });
  it("retries a record once however often its job is stored or delivered, across two instances", async () => {
    // A second service on the same database, as a second process would build it.
    const other = instance({ service: createPersistentDirsService({ sql: database.sql }) });
    const record = await failedRecord({
      turnId: "t-twice",
      path: "twice.md",
      content: "once",
      nextAttemptAt: now(),
    });
    // Both instances' passes find it due at once. One job waits per record, so the second pass
    // stores none — unless a worker already took the first one, when a second job is stored
    // and finds the record settled or claimed.
    const passes = await Promise.all([durability.runOnce(), other.durability.runOnce()]);
    const enqueued = passes.reduce((sum, pass) => sum + pass.retries.enqueued, 0);
    expect(enqueued).toBeGreaterThanOrEqual(1);
    expect(enqueued).toBeLessThanOrEqual(2);
    // Whichever instance's worker takes it (on SQLite only this process's client works: see below).
    if (testDatabaseProvider() === "postgresql") await work(other);
    await resolved(record.id);
    expect(await commitsOf("twice.md")).toBe(1);

    // The same job delivered again (an attempt that outlived its claim) changes nothing.
    const job = retryJob("again", record.id, 1);
    expect(await other.durability.retryRunner.runJob(job)).toBe("settled");

    // Two deliveries at the same moment on two instances: one retries, the other finds it taken.
    const racing = await failedRecord({
      turnId: "t-race",
      path: "race.md",
      content: "one of two",
      nextAttemptAt: now(),
    });
    // (On SQLite the racer shares this process's client: better-sqlite3 blocks the thread while
    // it waits for the file's write lock, so two clients in one process would wait on each other.)
    const racer =
      testDatabaseProvider() === "postgresql" ? other.durability : instance().durability;
    const statuses = await Promise.all(
      [durability, racer].map((each) =>
        each.retryRunner.runJob({ ...job, payload: { recordId: racing.id } }),
      ),
    );
    expect(statuses.filter((status) => status === "succeeded")).toHaveLength(1);
    // The other finds it claimed ("taken"), already done ("settled"), or — when it reads the
    // record after the winner's claim moved its next attempt on — not due ("not-due").
    expect(statuses.filter((status) => status !== "succeeded")[0]).toMatch(
      /^(taken|settled|not-due)$/,
    );
    expect(await commitsOf("race.md")).toBe(1);
  });

  it("schedules the next attempt of a failed retry as a new job after the policy's backoff, which survives its instance", async () => {
    // An instance whose store fails the first attempt of this change set.
    const flaky = instance({
      service: createPersistentDirsService({
        sql: database.sql,
        faultInjection: { mode: "fail-first-commit", marker: "flaky" },
      }),
    });
    const record = await failedRecord({
      turnId: "t-flaky",
      path: "flaky.md",
      content: "second time lucky",
      nextAttemptAt: now(),
    });
    const job = retryJob("j", record.id, 0);
    expect(await flaky.durability.retryRunner.runJob(job)).toBe("failed");
    const after = (await service.commitLog.getCommit({ id: record.id }))!;
    expect(after).toMatchObject({ status: "failed", attempts: 2 });
    // Attempt 2 failed: the next waits baseDelay × 2.
    expect(after.nextAttemptAt?.getTime()).toBe(clockNow + 2 * POLICY.baseDelayMs);
    // Its job is stored and waiting (a second one for the record is refused) …
    expect(await flaky.durability.retryRunner.schedule(record.id, now())).toBeNull();
    // … and not run early: a delivery before the time does nothing.
    expect(await durability.retryRunner.runJob(job)).toBe("not-due");
    expect((await service.commitLog.getCommit({ id: record.id }))?.attempts).toBe(2);
    // The instance goes away; another instance's worker runs the job once it is due.
    await flaky.queue.stop({ timeoutMs: 0 });
    clockNow += 2 * POLICY.baseDelayMs;
    await resolved(record.id);
    expect(await commitsOf("flaky.md")).toBe(1);
    expect((await service.readFile({ actor, harnessDir: USER, path: "flaky.md" }))?.text).toBe(
      "second time lucky",
    );
  });
});
