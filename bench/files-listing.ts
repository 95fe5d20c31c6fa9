// What the Files page's listing costs the server as a dir grows (issue 23): `listDirPage` (a page
// at a time, what /files reads) beside `listDirFiles` (every file, what /files read before), on
// a dir of BENCH_LISTING_FILES files (comma-separated sizes, default "10000,100000") laid out as
// 10 areas × 10 topics. Measures, per size and database:
//   - top level: the dir's folders with their counts (what /files?dir=company reads);
//   - folder page: one topic's first 200 files (opening a folder in the tree);
//   - filter, 1 match / filter, many: a path filter on the whole dir (its first page);
//   - whole list: `listDirFiles`, every file of the dir.
//   npx tsx bench/files-listing.ts
//   BENCH_LISTING_FILES=100000 BENCH_LISTING_DATABASES=sqlite npx tsx bench/files-listing.ts
import { randomUUID } from "node:crypto";
import { pathToFileURL } from "node:url";

import type { DatabaseTarget } from "@/lib/db";
import { createDirBacking, listDirFiles, listDirPage, sqlFor, type Sql } from "@/lib/sql-storage";
import { freshDatabase } from "./databases";
import { loadLine, ms, summarize, table } from "./stats";

const SIZES = (process.env.BENCH_LISTING_FILES ?? "10000,100000").split(",").map(Number);
const ITERATIONS = Number(process.env.BENCH_LISTING_ITERATIONS ?? 20);
const PROVIDERS = (process.env.BENCH_LISTING_DATABASES ?? "sqlite,postgresql").split(
  ",",
) as DatabaseTarget["provider"][];
const BATCH = 1_000;

function pathOf(index: number, files: number): string {
  const perArea = Math.ceil(files / 10);
  const area = String(Math.floor(index / perArea)).padStart(2, "0");
  const topic = String(Math.floor((index % perArea) / Math.ceil(perArea / 10))).padStart(2, "0");
  return `area-${area}/topic-${topic}/note-${String(index).padStart(6, "0")}.md`;
}

async function p50(run: () => Promise<unknown>): Promise<string> {
  await run();
  const samples: number[] = [];
  for (let iteration = 0; iteration < ITERATIONS; iteration += 1) {
    const started = performance.now();
    await run();
    samples.push(performance.now() - started);
  }
  return ms(summarize(samples).p50);
}

async function seed(sql: Sql, dirKey: string, files: number): Promise<void> {
  const backing = createDirBacking<null>({ sql, dirKey: () => dirKey, snapshotCache: false });
  let cursor = 0;
  for (let start = 0; start < files; start += BATCH) {
    const created = [];
    for (let index = start; index < Math.min(files, start + BATCH); index += 1) {
      created.push({ path: pathOf(index, files), content: `# note ${index}\n` });
    }
    const result = await backing.store({
      extraBody: null,
      session: null,
      harnessDir: "/persistent/company",
      cursor,
      snapshot: {},
      changes: { created, updated: [], deleted: [] },
    });
    if (result.status !== "stored") throw new Error("seed lost its compare-and-swap");
    cursor = Number(result.cursor);
  }
}

async function measure(provider: DatabaseTarget["provider"], files: number) {
  const database = await freshDatabase(provider);
  try {
    const sql = sqlFor(database.target);
    const dirKey = `company:${randomUUID()}`;
    await seed(sql, dirKey, files);
    const one = pathOf(Math.floor(files / 2), files)
      .split("/")
      .pop()!;
    return {
      database: provider,
      files: files.toLocaleString("en-US"),
      "top level": await p50(() => listDirPage({ sql, dirKey })),
      "folder page": await p50(() => listDirPage({ sql, dirKey, folder: "area-04/topic-01" })),
      "filter, 1 match": await p50(() => listDirPage({ sql, dirKey, filter: one })),
      "filter, many": await p50(() => listDirPage({ sql, dirKey, filter: "topic-03" })),
      "whole list (before)": await p50(() => listDirFiles({ sql, dirKey })),
    };
  } finally {
    await database.drop();
  }
}

export async function benchFilesListing(): Promise<string> {
  const rows = [];
  for (const provider of PROVIDERS) {
    for (const files of SIZES) rows.push(await measure(provider, files));
  }
  return [
    `Files page listing: server time per request by dir size (p50 of ${ITERATIONS})`,
    loadLine(),
    "",
    table(rows),
  ].join("\n");
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(await benchFilesListing());
}
