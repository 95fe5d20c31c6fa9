import { beforeAll, describe, expect, it } from "vitest";
import { registerTestDatabase, testDatabaseProvider } from "@/lib/db/testing";
import { createHarness, type HarnessStoragePort } from "@/lib/harness";
import { entryKeyOf } from "@/lib/harness/spi";
import { runHarnessStorageConformance } from "@/lib/harness/testing";
import { SqlHarnessStorage, harnessStorageFor } from "./harness-storage";
import { sqlFor } from "./sql";

const database = registerTestDatabase();
let storage: SqlHarnessStorage;
beforeAll(() => {
  storage = new SqlHarnessStorage(sqlFor(database.target));
});

/** Harness rows reference a real workspace: the suite invents ids, so create them on first write. */
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

runHarnessStorageConformance(`SqlHarnessStorage on ${testDatabaseProvider()}`, async () => ({
  storage: withWorkspaces(storage),
  cleanup: async () => {},
}));

describe(`SqlHarnessStorage and rows Prisma reads and writes (${testDatabaseProvider()})`, () => {
  it("is one storage per database", () => {
    expect(harnessStorageFor({ sql: database.sql })).toBe(
      harnessStorageFor({ target: database.target }),
    );
  });

  it("writes rows Prisma reads back as written, and reads rows Prisma wrote", async () => {
    const workspace = await database.db.workspace.create({ data: { name: "interop" } });
    const actor = { userId: "u", workspaceId: workspace.id, role: "admin" as const };
    const harness = createHarness({ storage, actor, chatId: "c" });
    const a = await harness.createEntry({
      kind: "memory",
      title: "Written here",
      content: "x",
      pinned: true,
    });

    const row = await database.db.harnessEntry.findFirstOrThrow({
      where: { workspaceId: workspace.id, id: a.id },
    });
    expect(row.pinned).toBe(true);
    expect(row.createdAt.toISOString()).toBe(a.createdAt);
    expect(row.updatedAt.toISOString()).toBe(a.updatedAt);
    expect(JSON.parse(row.metadata)).toEqual(a.metadata);
    const revision = await database.db.harnessRevision.findFirstOrThrow({
      where: { workspaceId: workspace.id, entryId: a.id },
    });
    expect(revision.harnessVersion).toBe(1);

    // A row as Prisma writes it (Boolean, DateTime in Prisma's own format) reads back here.
    const at = new Date("2026-01-02T03:04:05.678Z");
    await database.db.harnessEntry.create({
      data: {
        ...row,
        entryKey: entryKeyOf({ kind: "memory", scope: "global", chatId: null, id: "from-prisma" }),
        id: "from-prisma",
        title: "Written by Prisma",
        pinned: false,
        createdAt: at,
        updatedAt: at,
        searchText: "written by prisma\nx",
      },
    });
    const viaPrisma = await storage.getEntry({
      workspaceId: workspace.id,
      ref: { kind: "memory", scope: "global", chatId: null, id: "from-prisma" },
    });
    expect(viaPrisma).toMatchObject({
      pinned: false,
      createdAt: at.toISOString(),
      updatedAt: at.toISOString(),
    });
    const listed = await storage.listEntries({
      workspaceId: workspace.id,
      filter: { pinned: false },
    });
    expect(listed.items.map((entry) => entry.id)).toEqual(["from-prisma"]);
    // Cursors compare a bound date with Prisma's stored dates.
    const first = await storage.listEntries({ workspaceId: workspace.id, limit: 1 });
    const second = await storage.listEntries({
      workspaceId: workspace.id,
      limit: 1,
      cursor: first.nextCursor,
    });
    expect([...first.items, ...second.items].map((entry) => entry.id).sort()).toEqual(
      [a.id, "from-prisma"].sort(),
    );
  });
});
