import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { createTestDatabase, testDatabaseProvider, type TestDatabase } from "@/lib/db/testing";
import { openTurnCheckout, turnCommitId, type Actor, type CommitLog } from "@/lib/harness";
import { createDurability, type Durability } from "./durability";
import { createPersistentDirsService, type PersistentDirsService } from "./service";

let database: TestDatabase;
let dataDir: string;
let service: PersistentDirsService;
let clockNow = Date.UTC(2026, 5, 1);
const now = () => new Date(clockNow);
let durability: Durability;

const actor: Actor = { userId: "u1", workspaceId: "w1", role: "member" };
const USER = "/persistent/user";
const LEASE = 10_000;

beforeAll(async () => {
  database = await createTestDatabase();
  dataDir = await mkdtemp(path.join(tmpdir(), "cairn-durability-"));
  service = createPersistentDirsService({ db: database.db, target: database.target });
  durability = createDurability({
    db: database.db,
    dirs: service.dirs,
    commitLog: service.commitLog,
    dataDir,
    turnLeaseMs: LEASE,
    retryPolicy: { maxAttempts: 3, baseDelayMs: 1_000, maxDelayMs: 10_000 },
    now,
    log: () => undefined,
  });
  const db = database.db;
  await db.user.create({ data: { id: "u1", email: "u1@example.com", name: "U1" } });
  await db.workspace.create({ data: { id: "w1", name: "W1" } });
  await db.chat.create({ data: { id: "c1", workspaceId: "w1", userId: "u1", title: "c" } });
});
afterAll(async () => {
  await database.cleanup();
  await rm(dataDir, { recursive: true, force: true });
});

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
      pending: 1,
      needsPerson: 0,
      resolved: 0,
    });
    expect((await service.listFailures({ actor })).failures.map((f) => f.id)).not.toContain(id);
    expect(await service.countRetrying({ actor })).toBe(1);

    clockNow += 1_000;
    const pass = await durability.runOnce();
    expect(pass.retries).toMatchObject({ claimed: 1, succeeded: 1 });
    expect(await service.turnSaveStatus({ actor, turnId: "t-retry", spooled: 0 })).toEqual({
      pending: 0,
      needsPerson: 0,
      resolved: 1,
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
    expect(pass.retries).toMatchObject({ succeeded: 1 });
    expect(await durability.spool.list()).toEqual([]);
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
});
