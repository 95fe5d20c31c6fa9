import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, testDatabaseProvider, type TestDatabase } from "@/lib/db/testing";
import { runRefinementStoreConformance } from "@/lib/harness/testing";
import { PrismaRefinementHistory } from "./refinement-history";
import { PrismaRefinementStore } from "./refinement-store";

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database.cleanup();
});

runRefinementStoreConformance(`Prisma on ${testDatabaseProvider()}`, async (workspaceIds) => {
  for (const id of workspaceIds) {
    await database.db.workspace.create({ data: { id, name: id } });
  }
  return { store: new PrismaRefinementStore(database.db), cleanup: async () => {} };
});

describe(`PrismaRefinementStore with imported history (${testDatabaseProvider()})`, () => {
  it("leaves rows written by PrismaRefinementHistory out of pipeline queries", async () => {
    const workspaceId = `ws-${globalThis.crypto.randomUUID()}`;
    await database.db.workspace.create({ data: { id: workspaceId, name: workspaceId } });
    const history = new PrismaRefinementHistory(database.db, workspaceId);
    await history.appendImported({
      records: [
        { key: "result:1", kind: "result", record: { id: "1", summary: "Old lesson" } },
        { key: "event:sha256:ab", kind: "event", record: { rationale: "why" } },
      ],
    });
    const store = new PrismaRefinementStore(database.db);
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
