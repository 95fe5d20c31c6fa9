// One turn's persistence on SQLite and on PostgreSQL: load a dir of 200 files of 4 KB, change
// 2, diff and commit through the public API (openTurnCheckout + the app's dir backing,
// `createDirBacking`, with and without its snapshot cache), next to the floor: the same reads and
// writes with raw statements (better-sqlite3, or one `pg` connection with named statements) in
// the same run. Target: p50 under 10 ms, within 3× of the floor on both databases.
import { createHash, randomUUID } from "node:crypto";

import type { DatabaseTarget } from "@/lib/db";
import { openTurnCheckout, type PersistentDir } from "@/lib/harness";
import { createInMemoryCommitLog } from "@/lib/harness/testing";
import { createDirBacking, sqlFor } from "@/lib/sql-storage";
import { freshDatabase, rawDriver } from "./databases";
import { loadLine, ms, summarize, table } from "./stats";

const FILES = 200;
const FILE_BYTES = 4096;
const ITERATIONS = Number(process.env.BENCH_DIR_ITERATIONS ?? 100);
const PROVIDERS = (process.env.BENCH_DIR_DATABASES ?? "sqlite,postgresql").split(
  ",",
) as DatabaseTarget["provider"][];

function fileContent(index: number, turn: number): string {
  const head = `# note ${index} (turn ${turn})\n`;
  return head + "x".repeat(FILE_BYTES - head.length);
}

type Result = ReturnType<typeof summarize> & { cpu: ReturnType<typeof summarize> };

/** Times `turn` ITERATIONS times after 5 untimed turns. */
async function timeTurns(turn: (index: number) => Promise<void>): Promise<Result> {
  const samples: number[] = [];
  const cpuSamples: number[] = [];
  for (let index = 1; index <= ITERATIONS + 5; index++) {
    const cpuStarted = process.cpuUsage();
    const started = performance.now();
    await turn(index);
    if (index > 5) {
      samples.push(performance.now() - started);
      const cpu = process.cpuUsage(cpuStarted);
      cpuSamples.push((cpu.user + cpu.system) / 1000);
    }
  }
  return { ...summarize(samples), cpu: summarize(cpuSamples) };
}

/**
 * `cached`: the default backing, whose snapshot cache makes a load read only the version while
 * nothing else committed. `false`: every load reads all files (what a turn pays when another
 * instance committed since, or on the first turn after a restart).
 */
async function throughApi(provider: DatabaseTarget["provider"], cached: boolean): Promise<Result> {
  const database = await freshDatabase(provider);
  try {
    const backing = createDirBacking<{ userId: string }, null>({
      sql: sqlFor(database.target),
      dirKey: ({ extraBody }) => `user:${extraBody.userId}`,
      ...(cached ? {} : { snapshotCache: false as const }),
    });
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
    return await timeTurns(async (turn) => {
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
    });
  } finally {
    await database.drop();
  }
}

async function floor(provider: DatabaseTarget["provider"]): Promise<Result> {
  const database = await freshDatabase(provider);
  const raw = await rawDriver(database.target);
  try {
    const dirKey = "user:bench";
    const now = () => new Date().toISOString();
    const sha = (text: string) => createHash("sha256").update(text).digest("hex");
    // The body once by hash, then the manifest row (decision 0035).
    const body = `INSERT INTO "FileBody" ("sha256", "content", "size", "touchedAt") VALUES (?, ?, ?, ?)
       ON CONFLICT ("sha256") DO UPDATE SET "touchedAt" = excluded."touchedAt"`;
    const manifest = `INSERT INTO "PersistentFile" ("dirKey", "path", "isText", "size", "sha256", "updatedAt", "updatedBy") VALUES (?, ?, true, ?, ?, ?, NULL)
       ON CONFLICT ("dirKey", "path") DO UPDATE SET "size" = excluded."size", "sha256" = excluded."sha256", "updatedAt" = excluded."updatedAt"`;
    const upsertFile = async (path: string, content: string) => {
      const hash = sha(content);
      await raw.run(body, [hash, Buffer.from(content), content.length, now()]);
      await raw.run(manifest, [dirKey, path, content.length, hash, now()]);
    };
    await raw.run(
      `INSERT INTO "PersistentDirState" ("dirKey", "version", "updatedAt") VALUES (?, 1, ?)`,
      [dirKey, now()],
    );
    await raw.transaction(async () => {
      for (let index = 0; index < FILES; index++) {
        await upsertFile(`notes/${index}.md`, fileContent(index, 0));
      }
    });
    const readVersion = `SELECT "version" FROM "PersistentDirState" WHERE "dirKey" = ?`;
    const readFiles = `SELECT f."path", b."content", f."isText", f."updatedAt" FROM "PersistentFile" f JOIN "FileBody" b ON b."sha256" = f."sha256" WHERE f."dirKey" = ? ORDER BY f."path"`;
    const swap = `UPDATE "PersistentDirState" SET "version" = "version" + 1, "updatedAt" = ? WHERE "dirKey" = ? AND "version" = ?`;
    const history = `INSERT INTO "DirCommit" ("id", "dirKey", "version", "actorId", "source", "created", "updated", "deleted", "createdAt") VALUES (?, ?, ?, NULL, 'turn', '[]', ?, '[]', ?)`;
    return await timeTurns(async (turn) => {
      const [state] = await raw.all(readVersion, [dirKey]);
      const version = Number(state!.version);
      const rows = await raw.all(readFiles, [dirKey]);
      const files = new Map(
        rows.map((row) => [row.path, (row.content as Buffer).toString("utf8")]),
      );
      await raw.all(readVersion, [dirKey]);
      const changed = [turn % FILES, (turn * 7 + 3) % FILES].map(
        (index) => [`notes/${index}.md`, fileContent(index, turn)] as const,
      );
      const real = changed.filter(([file, content]) => files.get(file) !== content);
      await raw.transaction(async () => {
        await raw.run(swap, [now(), dirKey, version]);
        for (const [file, content] of real) await upsertFile(file, content);
        await raw.run(history, [
          randomUUID(),
          dirKey,
          version + 1,
          JSON.stringify(real.map(([file]) => file)),
          now(),
        ]);
      });
    });
  } finally {
    await raw.close();
    await database.drop();
  }
}

export async function benchPersistentDirs(): Promise<string> {
  const rows: Record<string, string>[] = [];
  for (const provider of PROVIDERS) {
    const raw = await floor(provider);
    const cached = await throughApi(provider, true);
    const uncached = await throughApi(provider, false);
    const database = provider === "sqlite" ? "SQLite" : "PostgreSQL";
    const row = (path: string, result: Result) => ({
      database,
      path,
      p50: ms(result.p50),
      p95: ms(result.p95),
      "p50 vs floor": (result.p50 / raw.p50).toFixed(2),
      "cpu p50": ms(result.cpu.p50),
      "cpu p50 vs floor": (result.cpu.p50 / raw.cpu.p50).toFixed(2),
    });
    rows.push(
      row("Cairn (openTurnCheckout + createDirBacking)", cached),
      row("Cairn, snapshot cache off (every load reads all files)", uncached),
      row("floor (raw statements, reads all files)", raw),
    );
  }
  return `Persistent dir turn: ${FILES} files × ${FILE_BYTES / 1024} KB, 2 changed, ${ITERATIONS} turns (target p50 < 10 ms, ≤ 3× floor)\n${loadLine()}\n${table(rows)}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchPersistentDirs());
}
