import { afterAll, beforeAll } from "vitest";
import { createTestDatabase, testDatabaseProvider, type TestDatabase } from "@/lib/db/testing";
import { runHarnessStorageConformance } from "@/lib/harness/testing";
import { PrismaHarnessStorage } from "./harness-storage";

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database.cleanup();
});

runHarnessStorageConformance(`Prisma on ${testDatabaseProvider()}`, async () => {
  const storage = new PrismaHarnessStorage(database.db);
  // The suite invents a workspace id per test; harness rows reference a real workspace, so
  // create it on first write.
  const applyChanges: PrismaHarnessStorage["applyChanges"] = async (options) => {
    await database.db.workspace.upsert({
      where: { id: options.workspaceId },
      create: { id: options.workspaceId, name: options.workspaceId },
      update: {},
    });
    return PrismaHarnessStorage.prototype.applyChanges.call(storage, options);
  };
  return { storage: Object.assign(storage, { applyChanges }), cleanup: async () => {} };
});
