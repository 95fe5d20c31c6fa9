import { describe, expect, it } from "vitest";
import { registerTestDatabase, testDatabaseProvider } from "@/lib/db/testing";
import { runRefinementStoreConformance } from "@/lib/harness/testing";
import { SqlRefinementHistory } from "./refinement-history";
import { SqlRefinementStore } from "./refinement-store";
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
