import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerTestDatabase, testDatabaseProvider } from "@/lib/db/testing";
import { openTurnCheckout, type Actor } from "@/lib/harness";
import { createPersistentDirsService } from "@/lib/workspace-dirs";
import { searchPassages } from "@/lib/search";
import { sqlFor } from "@/lib/sql-storage";
import { main } from "./main";
import { capture } from "./testing";

describe(`cairn search reindex (${testDatabaseProvider()})`, () => {
  const database = registerTestDatabase();
  const previousUrl = process.env.DATABASE_URL;
  const actor: Actor = { userId: "u-search", workspaceId: "w-search", role: "editor" };

  beforeAll(async () => {
    process.env.DATABASE_URL = database.target.url;
    await database.db.workspace.create({ data: { id: actor.workspaceId, name: "Search" } });
    await database.db.user.create({
      data: { id: actor.userId, email: "search@example.com", name: "S" },
    });
    await database.db.membership.create({
      data: { userId: actor.userId, workspaceId: actor.workspaceId, role: actor.role },
    });
    const service = createPersistentDirsService({ sql: database.sql });
    const turn = await openTurnCheckout({
      dirs: service.dirs,
      extraBody: { actor },
      session: null,
      commitLog: service.commitLog,
    });
    turn.checkout.writeFile({
      path: "/persistent/company/a.md",
      content: "# A\n\nthe obsidian rule",
    });
    expect((await turn.finishTurn({ status: "completed" })).status).toBe("succeeded");
  });
  afterAll(() => {
    process.env.DATABASE_URL = previousUrl;
  });

  it("rebuilds a lost index and says what it holds", async () => {
    const sql = sqlFor(database.target);
    await sql.run(`DELETE FROM "SearchPassage"`);
    expect(await searchPassages(sql, { actor, query: "obsidian" })).toEqual([]);
    const { io, out } = capture();
    expect(await main(["search", "reindex"], io)).toBe(0);
    expect(out.join("\n")).toMatch(
      /^reindexed 1 passage\(s\) in \d+ ms: memory 0, company 1, docs 0, harness 0, chat 0$/,
    );
    expect((await searchPassages(sql, { actor, query: "obsidian" }))[0]).toMatchObject({
      location: "/persistent/company/a.md",
      lineStart: 1,
      lineEnd: 3,
    });
  });
});
