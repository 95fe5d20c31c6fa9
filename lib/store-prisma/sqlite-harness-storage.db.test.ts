import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, testDatabaseProvider, type TestDatabase } from "@/lib/db/testing";
import { createHarness, type HarnessStoragePort } from "@/lib/harness";
import { runHarnessStorageConformance } from "@/lib/harness/testing";
import { PrismaHarnessStorage } from "./harness-storage";
import { SqliteHarnessStorage } from "./sqlite-harness-storage";

// better-sqlite3 on the Prisma SQLite file: nothing to run against PostgreSQL.
const onSqlite = testDatabaseProvider() === "sqlite";

let database: TestDatabase;
let storage: SqliteHarnessStorage;
beforeAll(async () => {
  if (!onSqlite) return;
  database = await createTestDatabase();
  if (database.target.provider !== "sqlite") throw new Error("expected SQLite");
  storage = new SqliteHarnessStorage({ filePath: database.target.filePath });
});
afterAll(async () => {
  if (!onSqlite) return;
  storage.close();
  await database.cleanup();
});

/** Harness rows reference a real workspace: create it on first write, as the Prisma suite does. */
function withWorkspaces(port: HarnessStoragePort): HarnessStoragePort {
  const applyChanges: HarnessStoragePort["applyChanges"] = async (options) => {
    await database.db.workspace.upsert({
      where: { id: options.workspaceId },
      create: { id: options.workspaceId, name: options.workspaceId },
      update: {},
    });
    return Object.getPrototypeOf(port).applyChanges.call(port, options);
  };
  return Object.assign(Object.create(port) as HarnessStoragePort, { applyChanges });
}

if (onSqlite) {
  runHarnessStorageConformance("better-sqlite3 on the Prisma SQLite file", async () => ({
    storage: withWorkspaces(storage),
    cleanup: async () => {},
  }));

  describe("SqliteHarnessStorage next to PrismaHarnessStorage", () => {
    it("reads back what the other wrote, entries and revisions alike", async () => {
      const prisma = new PrismaHarnessStorage(database.db);
      const workspace = await database.db.workspace.create({ data: { name: "interop" } });
      const actor = { userId: "u", workspaceId: workspace.id, role: "admin" as const };
      const viaSqlite = createHarness({ storage, actor, chatId: "c" });
      const viaPrisma = createHarness({ storage: prisma, actor, chatId: "c" });

      const a = await viaSqlite.createEntry({
        kind: "memory",
        title: "Written by SQLite",
        content: "x",
        pinned: true,
      });
      const b = await viaPrisma.createEntry({
        kind: "memory",
        title: "Written by Prisma",
        content: "y",
      });
      await viaPrisma.updateEntry({ kind: "memory", id: a.id, expectedVersion: 1, content: "x2" });
      await viaSqlite.updateEntry({ kind: "memory", id: b.id, expectedVersion: 1, content: "y2" });

      for (const [left, right] of [
        [viaSqlite, viaPrisma],
        [viaPrisma, viaSqlite],
      ] as const) {
        expect(await left.listEntries({})).toEqual(await right.listEntries({}));
        expect(await left.snapshot()).toEqual(await right.snapshot());
        expect(await left.history({ kind: "memory", entryId: a.id })).toEqual(
          await right.history({ kind: "memory", entryId: a.id }),
        );
        expect(await left.listEntries({ text: "WRITTEN BY", limit: 1 })).toEqual(
          await right.listEntries({ text: "WRITTEN BY", limit: 1 }),
        );
      }
      expect(await storage.getHarnessVersion({ workspaceId: workspace.id })).toBe(4);
    });
  });
} else {
  describe.skip("SqliteHarnessStorage (SQLite only)", () => {
    it("runs on SQLite", () => {});
  });
}
