import { beforeAll, describe, expect, it } from "vitest";

import { registerTestDatabase, testDatabaseProvider } from "@/lib/db/testing";
import { openTurnCheckout, type Actor } from "@/lib/harness";
import {
  createPersistentDirsService,
  EMPTY_TURN_SAVE_STATUS,
  type PersistentDirsService,
} from "./dirs-service";
import { createTestMembers, saveOverCurrent } from "./testing";

// The chat's failed-save line: a turn's live save status and its inline Retry (issue 15, item 8).

const database = registerTestDatabase();
let service: PersistentDirsService;

const member: Actor = { userId: "u-member", workspaceId: "w1", role: "member" };
const editor: Actor = { userId: "u-editor", workspaceId: "w1", role: "editor" };
/** Same workspace, another person: their chats are not the member's. */
const neighbour: Actor = { userId: "u-neighbour", workspaceId: "w1", role: "admin" };

const USER = "/persistent/user";
const COMPANY = "/persistent/company";

beforeAll(async () => {
  const db = database.db;
  await db.workspace.create({ data: { id: "w1", name: "w1" } });
  await createTestMembers(db, [member, editor, neighbour]);
  for (const actor of [member, editor, neighbour]) {
    await db.chat.create({
      data: { id: `c-${actor.userId}`, workspaceId: "w1", userId: actor.userId, title: "c" },
    });
  }
  service = createPersistentDirsService({ sql: database.sql });
});

/** Saves `content` over `path` from the Files page, as whatever it holds now. */
async function edit(actor: Actor, harnessDir: string, path: string, content: string) {
  const saved = await saveOverCurrent(service, { actor, harnessDir, path, content });
  expect(saved.status).toBe("saved");
}

const read = async (actor: Actor, harnessDir: string, path: string) =>
  (await service.readFile({ actor, harnessDir, path }))?.text ?? null;

/**
 * A turn of `actor` that rewrites `path` in each dir while someone changes the same line on the
 * Files page: its after-turn commit conflicts and waits for a person.
 */
async function clashingTurn(
  actor: Actor,
  turnId: string,
  edits: Array<{ harnessDir: string; path: string; ours: string; theirs: string }>,
) {
  await database.db.turn.create({
    data: { id: turnId, chatId: `c-${actor.userId}`, userId: actor.userId, status: "running" },
  });
  const turn = await openTurnCheckout({
    dirs: service.dirs,
    extraBody: { actor },
    session: { chatId: `c-${actor.userId}` },
    commitLog: service.commitLog,
    turnId,
  });
  for (const change of edits) {
    turn.checkout.writeFile({ path: `${change.harnessDir}/${change.path}`, content: change.ours });
    await edit(actor, change.harnessDir, change.path, change.theirs);
  }
  const persistence = await turn.finishTurn({ status: "completed" });
  expect(persistence.status).toBe("failed");
  const failed = persistence.status === "failed" ? persistence.failedCommits : [];
  expect(failed.map((commit) => commit.status)).toEqual(edits.map(() => "conflict"));
  return failed;
}

const WAITING = { ...EMPTY_TURN_SAVE_STATUS, needsPerson: 1, conflicts: 1 };

describe(`a turn's save status and inline retry on ${testDatabaseProvider()}`, () => {
  it("retries only the caller's own turn: a clash stays a conflict in plain words, and once the file is back the retry saves it once", async () => {
    await edit(member, USER, "plans.md", "Trip: Monday\n");
    await clashingTurn(member, "t-clash", [
      { harnessDir: USER, path: "plans.md", ours: "Trip: Tuesday\n", theirs: "Trip: Friday\n" },
    ]);
    expect(await service.turnSaveStatus({ actor: member, turnId: "t-clash", spooled: 0 })).toEqual(
      WAITING,
    );

    // Someone else's turn reads as missing, whatever their role; nothing is applied.
    // One at a time: a call made before the previous one is awaited would reject unhandled.
    for (const call of [
      () => service.turnSaveStatus({ actor: neighbour, turnId: "t-clash", spooled: 0 }),
      () => service.retryTurnSave({ actor: neighbour, turnId: "t-clash" }),
      () => service.retryTurnSave({ actor: member, turnId: "t-nowhere" }),
    ]) {
      await expect(call()).rejects.toMatchObject({ code: "not_found:turn" });
    }
    expect(await read(member, USER, "plans.md")).toBe("Trip: Friday\n");

    // The same line still differs: the record stays open with both versions.
    const clash = await service.retryTurnSave({ actor: member, turnId: "t-clash" });
    expect(clash).toMatchObject({ status: "conflict", saveStatus: WAITING });
    expect(clash.status === "conflict" ? clash.message : "").toBe(
      "Not saved: plans.md (My memory) changed since this turn read it, in the same place. Nothing is lost — compare both versions and keep one on Commit failures.",
    );
    expect(await read(member, USER, "plans.md")).toBe("Trip: Friday\n");
    const [open] = (await service.listFailures({ actor: member })).failures;
    expect(open).toMatchObject({ turnId: "t-clash", status: "conflict", canAct: true });

    // Once the other change is gone, the retry merges the turn's change in.
    await edit(member, USER, "plans.md", "Trip: Monday\n");
    const saved = await service.retryTurnSave({ actor: member, turnId: "t-clash" });
    expect(saved).toEqual({
      status: "settled",
      saveStatus: { ...WAITING, needsPerson: 0, conflicts: 0, resolved: 1, canRetry: false },
    });
    expect(await read(member, USER, "plans.md")).toBe("Trip: Tuesday\n");
    expect((await service.listFailures({ actor: member })).failures).toEqual([]);

    // A second click (another tab) applies nothing twice.
    const history = await service.listHistory({ actor: member, harnessDir: USER });
    expect(await service.retryTurnSave({ actor: member, turnId: "t-clash" })).toMatchObject({
      status: "settled",
      saveStatus: { resolved: 1, needsPerson: 0 },
    });
    expect((await service.listHistory({ actor: member, harnessDir: USER })).commits).toEqual(
      history.commits,
    );
  });

  it("follows a record settled on the failures page: discarded or kept theirs there reads so here, and a retry applies nothing", async () => {
    await edit(member, USER, "tide.md", "High at 6\n");
    const [failed] = await clashingTurn(member, "t-discard", [
      { harnessDir: USER, path: "tide.md", ours: "High at 7\n", theirs: "High at 8\n" },
    ]);
    expect(
      await service.turnSaveStatus({ actor: member, turnId: "t-discard", spooled: 0 }),
    ).toEqual(WAITING);

    await service.discardFailure({ actor: member, id: failed!.commitId! });
    const discarded = { ...WAITING, needsPerson: 0, conflicts: 0, discarded: 1, canRetry: false };
    expect(
      await service.turnSaveStatus({ actor: member, turnId: "t-discard", spooled: 0 }),
    ).toEqual(discarded);
    expect(await service.retryTurnSave({ actor: member, turnId: "t-discard" })).toEqual({
      status: "settled",
      saveStatus: discarded,
    });
    expect(await read(member, USER, "tide.md")).toBe("High at 8\n");

    // Keep theirs there: settled, but not with this turn's version.
    const [clash] = await clashingTurn(member, "t-theirs", [
      { harnessDir: USER, path: "tide.md", ours: "High at 9\n", theirs: "High at 10\n" },
    ]);
    await service.resolveFailure({ actor: member, id: clash!.commitId!, resolution: "theirs" });
    expect(await service.turnSaveStatus({ actor: member, turnId: "t-theirs", spooled: 0 })).toEqual(
      { ...discarded, discarded: 0, keptTheirs: 1 },
    );
    expect(await read(member, USER, "tide.md")).toBe("High at 10\n");
  });

  it("keeps the failures page's role rules: company knowledge needs an editor, and a refusal retries nothing", async () => {
    await edit(editor, USER, "mine.md", "draft 1\n");
    await edit(editor, COMPANY, "rules.md", "Rule: one\n");
    await clashingTurn(editor, "t-company", [
      { harnessDir: USER, path: "mine.md", ours: "draft 2\n", theirs: "draft 3\n" },
      { harnessDir: COMPANY, path: "rules.md", ours: "Rule: two\n", theirs: "Rule: three\n" },
    ]);
    // Put both files back so that a retry would apply cleanly.
    await edit(editor, USER, "mine.md", "draft 1\n");
    await edit(editor, COMPANY, "rules.md", "Rule: one\n");

    // The same person with a member's role (demoted since): may not act on company knowledge.
    const demoted: Actor = { ...editor, role: "member" };
    expect(
      await service.turnSaveStatus({ actor: demoted, turnId: "t-company", spooled: 0 }),
    ).toMatchObject({ needsPerson: 2, conflicts: 2, canRetry: false });
    await expect(
      service.retryTurnSave({ actor: demoted, turnId: "t-company" }),
    ).rejects.toMatchObject({ code: "forbidden:commit" });
    expect(await read(editor, USER, "mine.md")).toBe("draft 1\n");
    expect(await read(editor, COMPANY, "rules.md")).toBe("Rule: one\n");

    expect(
      await service.turnSaveStatus({ actor: editor, turnId: "t-company", spooled: 0 }),
    ).toMatchObject({ canRetry: true });
    expect(await service.retryTurnSave({ actor: editor, turnId: "t-company" })).toMatchObject({
      status: "settled",
      saveStatus: { needsPerson: 0, resolved: 2 },
    });
    expect(await read(editor, USER, "mine.md")).toBe("draft 2\n");
    expect(await read(editor, COMPANY, "rules.md")).toBe("Rule: two\n");
  });
});
