// A dir's cost as it grows, on SQLite and on PostgreSQL (issue 23, "Figures"): the app's backing
// (`createDirBacking`) with a dir of BENCH_SCALE_FILES files (comma-separated sizes, default
// "200,10000"; issue 23 asks for 100,000) of BENCH_SCALE_FILE_BYTES (default 5,000) each.
// Measures, per size:
//   - commit: one changed file stored (compare-and-swap, body by hash, manifest row, history);
//   - load, cached: a turn's load when the dir has not changed (its version read only);
//   - load, cold: a turn's load that reads every file (the snapshot cache off);
//   - index, cached / cold: the lazy capability's `loadIndex` (what a turn reads at its start);
//   - lazy turn: a whole turn through the core over the lazy dir (open the checkout, read one
//     file, write it back changed, commit) — what a chat turn pays for the dir;
//   - seed: the files written in commits of 1,000 (files/s), as a bulk import would.
//   npx tsx bench/dir-scale.ts
//   BENCH_SCALE_FILES=200,100000 BENCH_SCALE_DATABASES=sqlite npx tsx bench/dir-scale.ts
import { randomUUID } from "node:crypto";
import { pathToFileURL } from "node:url";

import type { DatabaseTarget } from "@/lib/db";
import { openTurnCheckout } from "@/lib/harness";
import { createInMemoryCommitLog } from "@/lib/harness/testing";
import { createDirBacking, sqlFor } from "@/lib/sql-storage";
import { freshDatabase } from "./databases";
import { loadLine, ms, summarize, table } from "./stats";

const SIZES = (process.env.BENCH_SCALE_FILES ?? "200,10000").split(",").map(Number);
const FILE_BYTES = Number(process.env.BENCH_SCALE_FILE_BYTES ?? 5_000);
const ITERATIONS = Number(process.env.BENCH_SCALE_ITERATIONS ?? 50);
const COLD_LOADS = Number(process.env.BENCH_SCALE_COLD_LOADS ?? 5);
const PROVIDERS = (process.env.BENCH_SCALE_DATABASES ?? "sqlite,postgresql").split(
  ",",
) as DatabaseTarget["provider"][];
const BATCH = 1_000;

const text = (index: number, version: number) =>
  `# note ${index} v${version}\n`.padEnd(FILE_BYTES, `${index % 10}`);

type Body = { dirKey: string };

async function measure(provider: DatabaseTarget["provider"], files: number) {
  const database = await freshDatabase(provider);
  try {
    const sql = sqlFor(database.target);
    const dirKey = `company:${randomUUID()}`;
    const extraBody = { dirKey };
    const backing = createDirBacking<Body>({ sql, dirKey: ({ extraBody: body }) => body.dirKey });
    const cold = createDirBacking<Body>({
      sql,
      dirKey: ({ extraBody: body }) => body.dirKey,
      snapshotCache: false,
    });
    const store = (cursor: number, changes: Parameters<typeof backing.store>[0]["changes"]) =>
      backing.store({
        extraBody,
        session: null,
        harnessDir: "/persistent/company",
        cursor,
        snapshot: {},
        changes,
      });
    let cursor = 0;
    const seedStarted = performance.now();
    for (let start = 0; start < files; start += BATCH) {
      const created = [];
      for (let index = start; index < Math.min(files, start + BATCH); index += 1) {
        created.push({ path: `docs/${index % 97}/note-${index}.md`, content: text(index, 0) });
      }
      const result = await store(cursor, { created, updated: [], deleted: [] });
      if (result.status !== "stored") throw new Error("seed lost its compare-and-swap");
      cursor = Number(result.cursor);
    }
    const seedSeconds = (performance.now() - seedStarted) / 1000;

    const commits: number[] = [];
    for (let iteration = 1; iteration <= ITERATIONS; iteration += 1) {
      const index = iteration % files;
      const started = performance.now();
      const result = await store(cursor, {
        created: [],
        updated: [{ path: `docs/${index % 97}/note-${index}.md`, content: text(index, iteration) }],
        deleted: [],
      });
      commits.push(performance.now() - started);
      cursor = Number(result.status === "stored" ? result.cursor : cursor);
    }
    await backing.load({ extraBody, session: null });
    const cached: number[] = [];
    for (let iteration = 0; iteration < ITERATIONS; iteration += 1) {
      const started = performance.now();
      await backing.load({ extraBody, session: null });
      cached.push(performance.now() - started);
    }
    const coldLoads: number[] = [];
    for (let iteration = 0; iteration < COLD_LOADS; iteration += 1) {
      const started = performance.now();
      await cold.load({ extraBody, session: null });
      coldLoads.push(performance.now() - started);
    }
    const coldIndex = createDirBacking<Body>({
      sql,
      dirKey: ({ extraBody: body }) => body.dirKey,
      indexCache: false,
    });
    const indexCold: number[] = [];
    for (let iteration = 0; iteration < COLD_LOADS; iteration += 1) {
      const started = performance.now();
      await coldIndex.loadIndex({ extraBody, session: null });
      indexCold.push(performance.now() - started);
    }
    await backing.loadIndex({ extraBody, session: null });
    const indexCached: number[] = [];
    for (let iteration = 0; iteration < ITERATIONS; iteration += 1) {
      const started = performance.now();
      await backing.loadIndex({ extraBody, session: null });
      indexCached.push(performance.now() - started);
    }
    // Whole turns over the lazy dir: the cost a chat turn pays for it, commit included.
    const dirs = [
      {
        harnessDir: "/persistent/company",
        load: backing.load,
        store: backing.store,
        loadIndex: backing.loadIndex,
        readBodies: backing.readBodies,
      },
    ];
    const commitLog = createInMemoryCommitLog();
    const turns: number[] = [];
    const rssBefore = process.memoryUsage().rss;
    for (let iteration = 1; iteration <= ITERATIONS; iteration += 1) {
      const index = (iteration * 7919) % files;
      const path = `/persistent/company/docs/${index % 97}/note-${index}.md`;
      const started = performance.now();
      const turn = await openTurnCheckout({ dirs, extraBody, session: null, commitLog });
      const before = await turn.checkout.readFile({ path });
      turn.checkout.writeFile({ path, content: `${String(before)}\nturn ${iteration}` });
      const persistence = await turn.finishTurn({ status: "completed" });
      turns.push(performance.now() - started);
      if (persistence.status !== "succeeded")
        throw new Error(`turn ${iteration}: ${persistence.status}`);
    }
    const rssAfter = process.memoryUsage().rss;
    return {
      database: provider,
      files: files.toLocaleString("en-US"),
      MB: ((files * FILE_BYTES) / 1e6).toFixed(0),
      "seed files/s": Math.round(files / seedSeconds).toLocaleString("en-US"),
      "commit p50": ms(summarize(commits).p50),
      "commit p95": ms(summarize(commits).p95),
      "load cached p50": ms(summarize(cached).p50),
      "load cold p50": ms(summarize(coldLoads).p50),
      "index cached p50": ms(summarize(indexCached).p50),
      "index cold p50": ms(summarize(indexCold).p50),
      "lazy turn p50": ms(summarize(turns).p50),
      "lazy turn p95": ms(summarize(turns).p95),
      "RSS MB": `${Math.round(rssAfter / 1e6)} (${rssAfter >= rssBefore ? "+" : ""}${Math.round((rssAfter - rssBefore) / 1e6)})`,
    };
  } finally {
    await database.drop();
  }
}

export async function benchDirScale(): Promise<string> {
  const rows = [];
  for (const provider of PROVIDERS) {
    for (const files of SIZES) rows.push(await measure(provider, files));
  }
  return [
    `Dir scale: one-file commits and loads by dir size (${FILE_BYTES} B files, ${ITERATIONS} commits, ${COLD_LOADS} cold loads)`,
    loadLine(),
    "",
    table(rows),
  ].join("\n");
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(await benchDirScale());
}
