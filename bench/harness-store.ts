// Harness store throughput on SQLite: creates and updates through the public API
// (createHarness + a storage adapter), next to the floor — the same rows written with raw
// better-sqlite3 statements (entry row, revision row, counter) in one transaction per change,
// in the same run. Target: within 3× of the floor.
//
// Two adapters on the same schema: PrismaHarnessStorage (what the app uses) and
// SqliteHarnessStorage (better-sqlite3 prepared statements on the same file; not wired into
// the app).
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { createDb, migrateDatabase, type DatabaseTarget } from "@/lib/db";
import { createHarness } from "@/lib/harness";
import { entryKeyOf } from "@/lib/harness/spi";
import { PrismaHarnessStorage } from "@/lib/store-prisma";
import { SqliteHarnessStorage } from "@/lib/store-prisma/sqlite-harness-storage";
import { loadLine, table } from "./stats";

const COUNT = Number(process.env.BENCH_STORE_COUNT ?? 1000);

async function freshDatabase() {
  const directory = mkdtempSync(path.join(tmpdir(), "cairn-bench-"));
  const filePath = path.join(directory, "bench.db");
  const target: DatabaseTarget = { provider: "sqlite", url: `file:${filePath}`, filePath };
  await migrateDatabase({ target });
  return { directory, filePath, target };
}

async function throughputThroughApi(adapter: "prisma" | "sqlite") {
  const { directory, target, filePath } = await freshDatabase();
  const db = createDb(target);
  const sqlite = adapter === "sqlite" ? new SqliteHarnessStorage({ filePath }) : null;
  try {
    const workspace = await db.workspace.create({ data: { name: "bench" } });
    const harness = createHarness({
      storage: sqlite ?? new PrismaHarnessStorage(db),
      actor: { userId: "bench", workspaceId: workspace.id, role: "admin" },
      chatId: null,
    });
    let started = performance.now();
    for (let index = 0; index < COUNT; index++) {
      await harness.createEntry({
        kind: "memory",
        global: true,
        id: `m-${index}`,
        title: `Memory ${index}`,
        content: `Fact number ${index}.`,
        path: "bench",
      });
    }
    const createMs = performance.now() - started;
    started = performance.now();
    for (let index = 0; index < COUNT; index++) {
      await harness.updateEntry({
        kind: "memory",
        global: true,
        id: `m-${index}`,
        expectedVersion: 1,
        content: `Fact number ${index}, revised.`,
      });
    }
    const updateMs = performance.now() - started;
    return { createMs, updateMs };
  } finally {
    sqlite?.close();
    await db.$disconnect();
    rmSync(directory, { recursive: true, force: true });
  }
}

async function throughputFloor() {
  const { directory, filePath } = await freshDatabase();
  const db = new Database(filePath);
  try {
    db.pragma("journal_mode = WAL");
    const workspaceId = randomUUID();
    db.prepare(`INSERT INTO "Workspace" (id, name, createdAt) VALUES (?, ?, ?)`).run(
      workspaceId,
      "bench",
      new Date().toISOString(),
    );
    const bump = db.prepare(
      `INSERT INTO "HarnessCounter" (workspaceId, version) VALUES (?, 1) ON CONFLICT(workspaceId) DO UPDATE SET version = version + 1 RETURNING version`,
    );
    const readVersion = db.prepare(
      `SELECT version FROM "HarnessEntry" WHERE workspaceId = ? AND entryKey = ?`,
    );
    const insertEntry = db.prepare(
      `INSERT INTO "HarnessEntry" (workspaceId, entryKey, id, kind, scope, chatId, title, content, path, metadata, pinned, source, version, createdAt, updatedAt, createdBy, updatedBy, searchText)
       VALUES (?, ?, ?, 'memory', 'global', NULL, ?, ?, 'bench', '{}', 0, 'user', 1, ?, ?, 'bench', 'bench', ?)`,
    );
    const updateEntry = db.prepare(
      `UPDATE "HarnessEntry" SET content = ?, version = version + 1, updatedAt = ?, searchText = ? WHERE workspaceId = ? AND entryKey = ?`,
    );
    const insertRevision = db.prepare(
      `INSERT INTO "HarnessRevision" (id, workspaceId, entryKey, entryId, kind, scope, chatId, action, before, after, actorId, reason, cause, harnessVersion, createdAt)
       VALUES (?, ?, ?, ?, 'memory', 'global', NULL, ?, ?, ?, 'bench', '', 'manual', ?, ?)`,
    );
    const create = db.transaction((index: number) => {
      const key = entryKeyOf({ scope: "global", chatId: null, kind: "memory", id: `m-${index}` });
      const { version } = bump.get(workspaceId) as { version: number };
      readVersion.get(workspaceId, key);
      const now = new Date().toISOString();
      const content = `Fact number ${index}.`;
      insertEntry.run(
        workspaceId,
        key,
        `m-${index}`,
        `Memory ${index}`,
        content,
        now,
        now,
        content.toLowerCase(),
      );
      insertRevision.run(
        randomUUID(),
        workspaceId,
        key,
        `m-${index}`,
        "create",
        null,
        JSON.stringify({ content }),
        version,
        now,
      );
    });
    const update = db.transaction((index: number) => {
      const key = entryKeyOf({ scope: "global", chatId: null, kind: "memory", id: `m-${index}` });
      const { version } = bump.get(workspaceId) as { version: number };
      readVersion.get(workspaceId, key);
      const now = new Date().toISOString();
      const content = `Fact number ${index}, revised.`;
      updateEntry.run(content, now, content.toLowerCase(), workspaceId, key);
      insertRevision.run(
        randomUUID(),
        workspaceId,
        key,
        `m-${index}`,
        "update",
        JSON.stringify({}),
        JSON.stringify({ content }),
        version,
        now,
      );
    });
    let started = performance.now();
    for (let index = 0; index < COUNT; index++) create(index);
    const createMs = performance.now() - started;
    started = performance.now();
    for (let index = 0; index < COUNT; index++) update(index);
    const updateMs = performance.now() - started;
    return { createMs, updateMs };
  } finally {
    db.close();
    rmSync(directory, { recursive: true, force: true });
  }
}

const ROUNDS = Math.max(1, Number(process.env.BENCH_STORE_ROUNDS ?? 3));

export async function benchHarnessStore(): Promise<string> {
  // The machine is shared: run every contender once per round, in a rotating order, and keep
  // each one's best round, so a burst of outside load does not decide the ratio.
  const contenders = {
    floor: throughputFloor,
    PrismaHarnessStorage: () => throughputThroughApi("prisma"),
    SqliteHarnessStorage: () => throughputThroughApi("sqlite"),
  };
  const names = Object.keys(contenders) as (keyof typeof contenders)[];
  const best = Object.fromEntries(
    names.map((name) => [name, { createMs: Infinity, updateMs: Infinity }]),
  ) as Record<keyof typeof contenders, { createMs: number; updateMs: number }>;
  for (let round = 0; round < ROUNDS; round++) {
    for (let offset = 0; offset < names.length; offset++) {
      const name = names[(round + offset) % names.length]!;
      const result = await contenders[name]();
      best[name].createMs = Math.min(best[name].createMs, result.createMs);
      best[name].updateMs = Math.min(best[name].updateMs, result.updateMs);
    }
  }
  const perSecond = (milliseconds: number) => Math.round((COUNT / milliseconds) * 1000);
  const rows = (["create", "update"] as const).flatMap((operation) => {
    const key = operation === "create" ? "createMs" : "updateMs";
    const floorMs = best.floor[key];
    return (["PrismaHarnessStorage", "SqliteHarnessStorage"] as const).map((adapter) => ({
      operation,
      adapter,
      "Cairn ops/s": perSecond(best[adapter][key]),
      "floor ops/s": perSecond(floorMs),
      "ratio (floor = 1)": (best[adapter][key] / floorMs).toFixed(2),
    }));
  });
  return `Harness store on SQLite, ${COUNT} changes each, best of ${ROUNDS} rounds (target ratio ≤ 3)\n${loadLine()}\n${table(rows)}`;
}
