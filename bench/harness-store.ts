// Harness store throughput on SQLite and on PostgreSQL: creates and updates through the public
// API (createHarness + the app's storage, `harnessStorageFor`), next to the floor — the same rows
// written with raw statements (counter bump, version read, entry row, revision row; raw
// better-sqlite3, or one `pg` connection with named statements) in one transaction per change,
// in the same run. Target: within 3× of the floor on both databases.
import { randomUUID } from "node:crypto";

import { createDb, type DatabaseTarget } from "@/lib/db";
import { createHarness } from "@/lib/harness";
import { entryKeyOf } from "@/lib/harness/spi";
import { harnessStorageFor } from "@/lib/sql-storage";
import { freshDatabase, rawDriver } from "./databases";
import { loadLine, table } from "./stats";

const COUNT = {
  sqlite: Number(process.env.BENCH_STORE_COUNT ?? 1000),
  postgresql: Number(process.env.BENCH_STORE_COUNT_PG ?? process.env.BENCH_STORE_COUNT ?? 300),
};

/** Wall time of all creates / updates, and the process CPU time they took. */
type Timing = { createMs: number; updateMs: number; createCpuMs: number; updateCpuMs: number };

const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

async function throughputThroughApi(provider: DatabaseTarget["provider"]): Promise<Timing> {
  const database = await freshDatabase(provider);
  const db = createDb(database.target);
  const count = COUNT[provider];
  try {
    const workspace = await db.workspace.create({ data: { name: "bench" } });
    const harness = createHarness({
      storage: harnessStorageFor({ target: database.target }),
      actor: { userId: "bench", workspaceId: workspace.id, role: "admin" },
      chatId: null,
    });
    let cpu = process.cpuUsage();
    let started = performance.now();
    for (let index = 0; index < count; index++) {
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
    const createCpuMs = cpuMs(cpu);
    cpu = process.cpuUsage();
    started = performance.now();
    for (let index = 0; index < count; index++) {
      await harness.updateEntry({
        kind: "memory",
        global: true,
        id: `m-${index}`,
        expectedVersion: 1,
        content: `Fact number ${index}, revised.`,
      });
    }
    const updateMs = performance.now() - started;
    return { createMs, updateMs, createCpuMs, updateCpuMs: cpuMs(cpu) };
  } finally {
    await db.$disconnect();
    await database.drop();
  }
}

async function throughputFloor(provider: DatabaseTarget["provider"]): Promise<Timing> {
  const database = await freshDatabase(provider);
  const raw = await rawDriver(database.target);
  const count = COUNT[provider];
  try {
    const workspaceId = randomUUID();
    await raw.run(`INSERT INTO "Workspace" ("id", "name", "createdAt") VALUES (?, ?, ?)`, [
      workspaceId,
      "bench",
      new Date().toISOString(),
    ]);
    const bump = `INSERT INTO "HarnessCounter" ("workspaceId", "version") VALUES (?, 1)
      ON CONFLICT ("workspaceId") DO UPDATE SET "version" = "HarnessCounter"."version" + 1 RETURNING "version"`;
    const readVersion = `SELECT "version" FROM "HarnessEntry" WHERE "workspaceId" = ? AND "entryKey" = ?`;
    const insertEntry = `INSERT INTO "HarnessEntry" ("workspaceId", "entryKey", "id", "kind", "scope", "chatId", "title", "content", "path", "metadata", "pinned", "source", "version", "createdAt", "updatedAt", "createdBy", "updatedBy", "searchText")
       VALUES (?, ?, ?, 'memory', 'global', NULL, ?, ?, 'bench', '{}', false, 'user', 1, ?, ?, 'bench', 'bench', ?)`;
    const updateEntry = `UPDATE "HarnessEntry" SET "content" = ?, "version" = "version" + 1, "updatedAt" = ?, "searchText" = ? WHERE "workspaceId" = ? AND "entryKey" = ?`;
    const insertRevision = `INSERT INTO "HarnessRevision" ("id", "workspaceId", "entryKey", "entryId", "kind", "scope", "chatId", "action", "before", "after", "actorId", "reason", "cause", "harnessVersion", "createdAt")
       VALUES (?, ?, ?, ?, 'memory', 'global', NULL, ?, ?, ?, 'bench', '', 'manual', ?, ?)`;
    const change = (index: number, action: "create" | "update") =>
      raw.transaction(async () => {
        const key = entryKeyOf({ scope: "global", chatId: null, kind: "memory", id: `m-${index}` });
        const [counter] = await raw.all(bump, [workspaceId]);
        await raw.all(readVersion, [workspaceId, key]);
        const now = new Date().toISOString();
        const content =
          action === "create" ? `Fact number ${index}.` : `Fact number ${index}, revised.`;
        if (action === "create") {
          await raw.run(insertEntry, [
            workspaceId,
            key,
            `m-${index}`,
            `Memory ${index}`,
            content,
            now,
            now,
            content.toLowerCase(),
          ]);
        } else {
          await raw.run(updateEntry, [content, now, content.toLowerCase(), workspaceId, key]);
        }
        await raw.run(insertRevision, [
          randomUUID(),
          workspaceId,
          key,
          `m-${index}`,
          action,
          action === "create" ? null : JSON.stringify({}),
          JSON.stringify({ content }),
          Number(counter!.version),
          now,
        ]);
      });
    let cpu = process.cpuUsage();
    let started = performance.now();
    for (let index = 0; index < count; index++) await change(index, "create");
    const createMs = performance.now() - started;
    const createCpuMs = cpuMs(cpu);
    cpu = process.cpuUsage();
    started = performance.now();
    for (let index = 0; index < count; index++) await change(index, "update");
    const updateMs = performance.now() - started;
    return { createMs, updateMs, createCpuMs, updateCpuMs: cpuMs(cpu) };
  } finally {
    await raw.close();
    await database.drop();
  }
}

const ROUNDS = Math.max(1, Number(process.env.BENCH_STORE_ROUNDS ?? 3));
const PROVIDERS = (process.env.BENCH_STORE_DATABASES ?? "sqlite,postgresql").split(
  ",",
) as DatabaseTarget["provider"][];

export async function benchHarnessStore(): Promise<string> {
  const rows: Record<string, string | number>[] = [];
  for (const provider of PROVIDERS) {
    // The machine is shared: run every contender once per round, in a rotating order, and keep
    // each one's best round, so a burst of outside load does not decide the ratio.
    const contenders = {
      floor: () => throughputFloor(provider),
      harnessStorageFor: () => throughputThroughApi(provider),
    };
    const names = Object.keys(contenders) as (keyof typeof contenders)[];
    const best = Object.fromEntries(
      names.map((name) => [
        name,
        { createMs: Infinity, updateMs: Infinity, createCpuMs: Infinity, updateCpuMs: Infinity },
      ]),
    ) as Record<keyof typeof contenders, Timing>;
    for (let round = 0; round < ROUNDS; round++) {
      for (let offset = 0; offset < names.length; offset++) {
        const name = names[(round + offset) % names.length]!;
        const result = await contenders[name]();
        best[name].createMs = Math.min(best[name].createMs, result.createMs);
        best[name].updateMs = Math.min(best[name].updateMs, result.updateMs);
        best[name].createCpuMs = Math.min(best[name].createCpuMs, result.createCpuMs);
        best[name].updateCpuMs = Math.min(best[name].updateCpuMs, result.updateCpuMs);
      }
    }
    const perSecond = (milliseconds: number) => Math.round((COUNT[provider] / milliseconds) * 1000);
    for (const operation of ["create", "update"] as const) {
      const key = operation === "create" ? "createMs" : "updateMs";
      const cpuKey = operation === "create" ? "createCpuMs" : "updateCpuMs";
      const perChange = (milliseconds: number) =>
        `${(milliseconds / COUNT[provider]).toFixed(3)} ms`;
      rows.push({
        database: provider === "sqlite" ? "SQLite" : "PostgreSQL",
        operation,
        changes: COUNT[provider],
        "Cairn ops/s": perSecond(best.harnessStorageFor[key]),
        "floor ops/s": perSecond(best.floor[key]),
        "ratio (floor = 1)": (best.harnessStorageFor[key] / best.floor[key]).toFixed(2),
        "Cairn cpu/change": perChange(best.harnessStorageFor[cpuKey]),
        "floor cpu/change": perChange(best.floor[cpuKey]),
        "cpu ratio": (best.harnessStorageFor[cpuKey] / best.floor[cpuKey]).toFixed(2),
      });
    }
  }
  return `Harness store (the app's storage vs a raw floor), best of ${ROUNDS} rounds (target ratio ≤ 3)\n${loadLine()}\n${table(rows)}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchHarnessStore());
}
