import { describe, expect, it } from "vitest";
import { registerTestDatabase, testDatabaseProvider } from "@/lib/db/testing";
import { runRefinementStoreConformance } from "@/lib/harness/testing";
import { SqlRefinementHistory } from "./sql-refinement-history";
import { SqlRefinementStore } from "./sql-refinement-store";
import { sqlFor } from "./sql";

const database = registerTestDatabase();

runRefinementStoreConformance(`SQL on ${testDatabaseProvider()}`, async (workspaceIds) => {
  for (const id of workspaceIds) {
    await database.db.workspace.create({ data: { id, name: id } });
  }
  return { store: new SqlRefinementStore(sqlFor(database.target)), cleanup: async () => {} };
});

describe(`SqlRefinementStore with imported history (${testDatabaseProvider()})`, () => {
  it("leaves rows written by SqlRefinementHistory out of pipeline queries", async () => {
    const workspaceId = `ws-${globalThis.crypto.randomUUID()}`;
    await database.db.workspace.create({ data: { id: workspaceId, name: workspaceId } });
    const history = new SqlRefinementHistory(sqlFor(database.target), workspaceId);
    await history.appendImported({
      records: [
        { key: "result:1", kind: "result", record: { id: "1", summary: "Old lesson" } },
        { key: "event:sha256:ab", kind: "event", record: { rationale: "why" } },
      ],
    });
    const store = new SqlRefinementStore(sqlFor(database.target));
    expect((await store.listRefinements({ workspaceId })).items).toEqual([]);
    const imported = await store.listRefinements({
      workspaceId,
      filter: { includeImported: true },
    });
    expect(imported.items.map((item) => [item.status, item.trigger, item.summary]).sort()).toEqual([
      ["imported", "import", ""],
      ["imported", "import", "Old lesson"],
    ]);
    expect(imported.items.every((item) => item.edits.length === 0 && item.review === null)).toBe(
      true,
    );
    expect(await store.getLastReviewAt({ workspaceId })).toBeNull();
  });
});

describe(`SqlRefinementStore.getChatReviewProgress (${testDatabaseProvider()})`, () => {
  it("answers the chat's last automatic review and the turns completed since, in one statement", async () => {
    const { db } = database;
    const workspaceId = `ws-${globalThis.crypto.randomUUID()}`;
    await db.workspace.create({ data: { id: workspaceId, name: workspaceId } });
    const user = await db.user.create({
      data: { email: `${workspaceId}@example.com`, name: "Ada", passwordHash: "x" },
    });
    const chat = await db.chat.create({
      data: { workspaceId, userId: user.id, title: "Notes" },
    });
    const other = await db.chat.create({
      data: { workspaceId, userId: user.id, title: "Other" },
    });
    const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 12, minute));
    const turn = (chatId: string, minute: number, status = "completed") =>
      db.turn.create({ data: { chatId, userId: user.id, status, startedAt: at(minute) } });
    const refinement = (chatId: string, minute: number, trigger: string) =>
      db.refinement.create({
        data: {
          workspaceId,
          chatId,
          scope: "local",
          trigger,
          status: "completed",
          createdAt: at(minute),
        },
      });
    const store = new SqlRefinementStore(sqlFor(database.target));
    const progress = () => store.getChatReviewProgress({ workspaceId, chatId: chat.id });

    await turn(chat.id, 1);
    await turn(chat.id, 2);
    await turn(chat.id, 3, "failed");
    await turn(other.id, 4);
    // No review yet: every completed turn of this chat counts.
    expect(await progress()).toEqual({ lastReviewAt: null, turnsSince: 2 });

    await refinement(chat.id, 5, "every-n-turns");
    await turn(chat.id, 6);
    // Neither an explicit request nor another chat's review is an automatic review of this chat.
    await refinement(chat.id, 7, "explicit");
    await refinement(other.id, 8, "compaction");
    await turn(chat.id, 9);
    expect(await progress()).toEqual({ lastReviewAt: at(5).toISOString(), turnsSince: 2 });
    expect(await store.getLastReviewAt({ workspaceId, chatId: chat.id })).toBe(at(5).toISOString());

    await refinement(chat.id, 10, "compaction");
    expect(await progress()).toEqual({ lastReviewAt: at(10).toISOString(), turnsSince: 0 });
  });
});
