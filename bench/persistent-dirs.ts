// One turn's persistence on SQLite: load a dir of 200 files of 4 KB, change 2, diff and commit
// through the public API (openTurnCheckout + the Prisma dir backing, and the SQLite dir backing the
// app uses on SQLite), next to the floor: the same reads and writes with raw better-sqlite3
// statements, in the same run.
// Target: p50 under 10 ms, within 3× of the floor.
import { createHash, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { createDb, migrateDatabase, type DatabaseTarget } from "@/lib/db";
import { openTurnCheckout, type PersistentDir } from "@/lib/harness";
import { createInMemoryCommitLog } from "@/lib/harness/testing";
import { createPrismaDirBacking, createSqliteDirBacking } from "@/lib/store-prisma";
import { loadLine, ms, summarize, table } from "./stats";

const FILES = 200;
const FILE_BYTES = 4096;
const ITERATIONS = Number(process.env.BENCH_DIR_ITERATIONS ?? 100);

function fileContent(index: number, turn: number): string {
  const head = `# note ${index} (turn ${turn})\n`;
  return head + "x".repeat(FILE_BYTES - head.length);
}

async function freshDatabase() {
  const directory = mkdtempSync(path.join(tmpdir(), "cairn-bench-dirs-"));
  const filePath = path.join(directory, "bench.db");
  const target: DatabaseTarget = { provider: "sqlite", url: `file:${filePath}`, filePath };
  await migrateDatabase({ target });
  return { directory, filePath, target };
}

/**
 * `cached`: the default backing, whose snapshot cache makes a load read only the version while
 * nothing else committed. `false`: every load reads all files (what a turn pays when another
 * instance committed since, or on the first turn after a restart).
 */
async function throughApi(options: { cached: boolean; backing?: "prisma" | "sqlite" }) {
  const { directory, filePath, target } = await freshDatabase();
  const db = createDb(target);
  const backingOptions = {
    dirKey: ({ extraBody }: { extraBody: { userId: string } }) => `user:${extraBody.userId}`,
    ...(options.cached ? {} : { snapshotCache: false as const }),
  };
  const sqlite =
    options.backing === "sqlite"
      ? createSqliteDirBacking<{ userId: string }, null>({ filePath, ...backingOptions })
      : null;
  try {
    const backing = sqlite
      ? { load: sqlite.load, store: sqlite.store }
      : createPrismaDirBacking<{ userId: string }, null>({ db, ...backingOptions });
    const dir: PersistentDir<{ userId: string }, null> = {
      harnessDir: "/persistent/user",
      ...backing,
    };
    const extraBody = { userId: "bench" };
    const seed = Object.fromEntries(
      Array.from({ length: FILES }, (_, index) => [`notes/${index}.md`, fileContent(index, 0)]),
    );
    await backing.store({
      extraBody,
      session: null,
      harnessDir: dir.harnessDir,
      changes: {
        created: Object.entries(seed).map(([file, content]) => ({ path: file, content })),
        updated: [],
        deleted: [],
      },
      snapshot: seed,
      cursor: 0,
    });
    const commitLog = createInMemoryCommitLog();
    const samples: number[] = [];
    const cpuSamples: number[] = [];
    for (let turn = 1; turn <= ITERATIONS + 5; turn++) {
      const cpuStarted = process.cpuUsage();
      const started = performance.now();
      const checkout = await openTurnCheckout({ dirs: [dir], extraBody, session: null, commitLog });
      for (const index of [turn % FILES, (turn * 7 + 3) % FILES]) {
        checkout.checkout.writeFile({
          path: `/persistent/user/notes/${index}.md`,
          content: fileContent(index, turn),
        });
      }
      const result = await checkout.finishTurn({ status: "completed" });
      if (result.status !== "succeeded")
        throw new Error(`commit did not succeed: ${JSON.stringify(result)}`);
      if (turn > 5) {
        samples.push(performance.now() - started);
        const cpu = process.cpuUsage(cpuStarted);
        cpuSamples.push((cpu.user + cpu.system) / 1000);
      }
    }
    return { ...summarize(samples), cpu: summarize(cpuSamples) };
  } finally {
    sqlite?.close();
    await db.$disconnect();
    rmSync(directory, { recursive: true, force: true });
  }
}

async function floor() {
  const { directory, filePath } = await freshDatabase();
  const db = new Database(filePath);
  try {
    db.pragma("journal_mode = WAL");
    const dirKey = "user:bench";
    const now = () => new Date().toISOString();
    const sha = (text: string) => createHash("sha256").update(text).digest("hex");
    const insert = db.prepare(
      `INSERT INTO "PersistentFile" (dirKey, path, content, isText, size, sha256, updatedAt, updatedBy) VALUES (?, ?, ?, 1, ?, ?, ?, NULL)
       ON CONFLICT(dirKey, path) DO UPDATE SET content = excluded.content, size = excluded.size, sha256 = excluded.sha256, updatedAt = excluded.updatedAt`,
    );
    db.prepare(
      `INSERT INTO "PersistentDirState" (dirKey, version, updatedAt) VALUES (?, 1, ?)`,
    ).run(dirKey, now());
    db.transaction(() => {
      for (let index = 0; index < FILES; index++) {
        const content = fileContent(index, 0);
        insert.run(
          dirKey,
          `notes/${index}.md`,
          Buffer.from(content),
          content.length,
          sha(content),
          now(),
        );
      }
    })();
    const readVersion = db.prepare(`SELECT version FROM "PersistentDirState" WHERE dirKey = ?`);
    const readFiles = db.prepare(
      `SELECT path, content, isText, updatedAt FROM "PersistentFile" WHERE dirKey = ? ORDER BY path`,
    );
    const swap = db.prepare(
      `UPDATE "PersistentDirState" SET version = version + 1, updatedAt = ? WHERE dirKey = ? AND version = ?`,
    );
    const history = db.prepare(
      `INSERT INTO "DirCommit" (id, dirKey, version, actorId, source, created, updated, deleted, createdAt) VALUES (?, ?, ?, NULL, 'turn', '[]', ?, '[]', ?)`,
    );
    const samples: number[] = [];
    const cpuSamples: number[] = [];
    for (let turn = 1; turn <= ITERATIONS + 5; turn++) {
      const cpuStarted = process.cpuUsage();
      const started = performance.now();
      const { version } = readVersion.get(dirKey) as { version: number };
      const rows = readFiles.all(dirKey) as { path: string; content: Buffer }[];
      const files = new Map(rows.map((row) => [row.path, row.content.toString("utf8")]));
      readVersion.get(dirKey);
      const changed = [turn % FILES, (turn * 7 + 3) % FILES].map(
        (index) => [`notes/${index}.md`, fileContent(index, turn)] as const,
      );
      const real = changed.filter(([file, content]) => files.get(file) !== content);
      db.transaction(() => {
        if (swap.run(now(), dirKey, version).changes !== 1) throw new Error("conflict");
        for (const [file, content] of real)
          insert.run(dirKey, file, Buffer.from(content), content.length, sha(content), now());
        history.run(
          randomUUID(),
          dirKey,
          version + 1,
          JSON.stringify(real.map(([file]) => file)),
          now(),
        );
      })();
      if (turn > 5) {
        samples.push(performance.now() - started);
        const cpu = process.cpuUsage(cpuStarted);
        cpuSamples.push((cpu.user + cpu.system) / 1000);
      }
    }
    return { ...summarize(samples), cpu: summarize(cpuSamples) };
  } finally {
    db.close();
    rmSync(directory, { recursive: true, force: true });
  }
}

export async function benchPersistentDirs(): Promise<string> {
  const raw = await floor();
  const api = await throughApi({ cached: true });
  const uncached = await throughApi({ cached: false });
  const viaSqlite = await throughApi({ cached: true, backing: "sqlite" });
  const viaSqliteUncached = await throughApi({ cached: false, backing: "sqlite" });
  const rows = [
    {
      path: "Cairn (openTurnCheckout + Prisma backing)",
      p50: ms(api.p50),
      p95: ms(api.p95),
      "p50 vs floor": (api.p50 / raw.p50).toFixed(2),
      "cpu p50": ms(api.cpu.p50),
      "cpu p50 vs floor": (api.cpu.p50 / raw.cpu.p50).toFixed(2),
    },
    {
      path: "Cairn, snapshot cache off (every load reads all files)",
      p50: ms(uncached.p50),
      p95: ms(uncached.p95),
      "p50 vs floor": (uncached.p50 / raw.p50).toFixed(2),
      "cpu p50": ms(uncached.cpu.p50),
      "cpu p50 vs floor": (uncached.cpu.p50 / raw.cpu.p50).toFixed(2),
    },
    {
      path: "Cairn (openTurnCheckout + SQLite backing, what the app uses on SQLite)",
      p50: ms(viaSqlite.p50),
      p95: ms(viaSqlite.p95),
      "p50 vs floor": (viaSqlite.p50 / raw.p50).toFixed(2),
      "cpu p50": ms(viaSqlite.cpu.p50),
      "cpu p50 vs floor": (viaSqlite.cpu.p50 / raw.cpu.p50).toFixed(2),
    },
    {
      path: "Cairn, SQLite backing, snapshot cache off",
      p50: ms(viaSqliteUncached.p50),
      p95: ms(viaSqliteUncached.p95),
      "p50 vs floor": (viaSqliteUncached.p50 / raw.p50).toFixed(2),
      "cpu p50": ms(viaSqliteUncached.cpu.p50),
      "cpu p50 vs floor": (viaSqliteUncached.cpu.p50 / raw.cpu.p50).toFixed(2),
    },
    {
      path: "floor (raw better-sqlite3)",
      p50: ms(raw.p50),
      p95: ms(raw.p95),
      "p50 vs floor": "1.00",
      "cpu p50": ms(raw.cpu.p50),
      "cpu p50 vs floor": "1.00",
    },
  ];
  return `Persistent dir turn on SQLite: load ${FILES} files × 4 KB, change 2, diff, commit; ${ITERATIONS} turns (target p50 < 10 ms, ≤ 3× floor; ${loadLine()})\n${table(rows)}`;
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await benchPersistentDirs());
