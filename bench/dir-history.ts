// A commit's cost with the dir history quota (decision 0030) on a dir with much history, on
// SQLite and on PostgreSQL: the app's backing (`createDirBacking`) storing one changed 4 KB file,
// with the quota off (counters kept, nothing checked, no shared key) and on (the dir's counter
// checked in the compare-and-swap statement, the workspace's counter upserted and checked), on a
// dir with little history and on one with BENCH_HISTORY_ROWS (20,000) earlier versions. Target:
// the commit stays O(changed files) — the same time whatever the history holds, and the quota
// within noise of no quota. Also times one compaction of the long history.
import { createHash, randomUUID } from "node:crypto";
import { pathToFileURL } from "node:url";

import type { DatabaseTarget } from "@/lib/db";
import { compactDirHistory, createDirBacking, sqlFor, type Sql } from "@/lib/sql-storage";
import { freshDatabase } from "./databases";
import { loadLine, ms, summarize, table } from "./stats";

const ITERATIONS = Number(process.env.BENCH_HISTORY_ITERATIONS ?? 200);
const HISTORY_ROWS = Number(process.env.BENCH_HISTORY_ROWS ?? 20_000);
const PROVIDERS = (process.env.BENCH_HISTORY_DATABASES ?? "sqlite,postgresql").split(
  ",",
) as DatabaseTarget["provider"][];
const FILE_BYTES = 4096;
const DAY = 86_400_000;

const text = (tag: number) => `# version ${tag}\n`.padEnd(FILE_BYTES, "x");

/**
 * `rows` earlier versions of `dirKey`, 40 days old, each rewriting one of 50 files, with the
 * counters as commits would have left them (inserted directly: a commit each would take minutes).
 */
async function seedHistory(sql: Sql, dirKey: string, rows: number): Promise<void> {
  const created = new Date(Date.now() - 40 * DAY);
  let bytes = 0;
  await sql.transaction(async (tx) => {
    for (let version = 1; version <= rows; version += 1) {
      const path = `notes/${version % 50}.md`;
      const contents = JSON.stringify({ [path]: text(version) });
      const updated = JSON.stringify([path]);
      const rowBytes = Buffer.byteLength(contents) + Buffer.byteLength(updated) + 4;
      bytes += rowBytes;
      await tx.run(
        `INSERT INTO "DirCommit" ("id", "dirKey", "version", "actorId", "source", "via", "created",
           "updated", "deleted", "contents", "createdAt", "historyBytes", "quotaKey")
         VALUES (?, ?, ?, NULL, 'turn', NULL, '[]', ?, '[]', ?, ?, ?, 'workspace:bench')`,
        [randomUUID(), dirKey, version, updated, contents, created, rowBytes],
      );
    }
    for (let index = 0; index < 50; index += 1) {
      const content = Buffer.from(text(rows - ((rows - index) % 50)));
      const hash = createHash("sha256").update(content).digest("hex");
      await tx.run(
        `INSERT INTO "FileBody" ("sha256", "content", "size", "touchedAt") VALUES (?, ?, ?, ?)
         ON CONFLICT ("sha256") DO NOTHING`,
        [hash, content, content.byteLength, created],
      );
      await tx.run(
        `INSERT INTO "PersistentFile" ("dirKey", "path", "isText", "size", "sha256", "updatedAt", "updatedBy")
         VALUES (?, ?, ?, ?, ?, ?, NULL)`,
        [dirKey, `notes/${index}.md`, true, content.byteLength, hash, created],
      );
    }
    await tx.run(
      `INSERT INTO "PersistentDirState" ("dirKey", "version", "updatedAt", "historyBytes") VALUES (?, ?, ?, ?)`,
      [dirKey, rows, created, bytes],
    );
    await tx.run(
      `INSERT INTO "DirHistoryUsage" ("quotaKey", "bytes", "updatedAt") VALUES ('workspace:bench', ?, ?)
       ON CONFLICT ("quotaKey") DO UPDATE SET "bytes" = "DirHistoryUsage"."bytes" + excluded."bytes"`,
      [bytes, created],
    );
  });
}

/** Times ITERATIONS commits of one changed file after 5 untimed ones. */
async function timeCommits(sql: Sql, dirKey: string, quota: boolean) {
  const backing = createDirBacking<null, null>({
    sql,
    dirKey: () => dirKey,
    history: quota
      ? {
          maxDirBytes: 1024 ** 4,
          maxSharedBytes: 1024 ** 4,
          retentionDays: 30,
          quotaKey: () => "workspace:bench",
        }
      : undefined,
  });
  let cursor = (await backing.load({ extraBody: null, session: null })).cursor;
  const samples: number[] = [];
  for (let index = 1; index <= ITERATIONS + 5; index += 1) {
    const path = `notes/${index % 50}.md`;
    const started = performance.now();
    const result = await backing.store({
      extraBody: null,
      session: null,
      harnessDir: "/persistent/user",
      changes: { created: [], updated: [{ path, content: text(-index) }], deleted: [] },
      snapshot: {},
      cursor,
    });
    if (index > 5) samples.push(performance.now() - started);
    if (result.status !== "stored") throw new Error(`commit ${index}: ${result.status}`);
    cursor = result.cursor;
  }
  return summarize(samples);
}

export async function benchDirHistory(): Promise<string> {
  const rows: Record<string, string | number>[] = [];
  const compactions: Record<string, string | number>[] = [];
  for (const provider of PROVIDERS) {
    const database = await freshDatabase(provider);
    try {
      const sql = sqlFor(database.target);
      const small = `user:small-${randomUUID()}`;
      const large = `user:large-${randomUUID()}`;
      await seedHistory(sql, small, 100);
      const seeded = performance.now();
      await seedHistory(sql, large, HISTORY_ROWS);
      const seedMs = performance.now() - seeded;
      // Alternate the runs so load changes on the shared machine hit both alike.
      for (const round of [1, 2]) {
        for (const [label, dirKey] of [
          ["100", small],
          [String(HISTORY_ROWS), large],
        ] as const) {
          for (const quota of [false, true]) {
            const summary = await timeCommits(sql, dirKey, quota);
            rows.push({
              database: provider,
              round,
              "history rows": label,
              quota: quota ? "on" : "off",
              p50: ms(summary.p50),
              p95: ms(summary.p95),
              min: ms(summary.min),
              commits: ITERATIONS,
            });
          }
        }
      }
      const started = performance.now();
      const result = await compactDirHistory({
        sql,
        dirKey: large,
        before: new Date(Date.now() - 30 * DAY),
      });
      compactions.push({
        database: provider,
        "history rows": HISTORY_ROWS,
        "versions cut down": result.rowsCompacted,
        freed: `${(result.bytesFreed / 1024 / 1024).toFixed(1)} MiB`,
        time: ms(performance.now() - started),
        "seeding (not a commit)": ms(seedMs),
      });
    } finally {
      await database.drop();
    }
  }
  return [
    `## Dir history quota: one commit of one 4 KB file (${loadLine()})`,
    table(rows),
    "",
    "Compacting the long history (versions 40 days old, 30-day window):",
    table(compactions),
  ].join("\n");
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(await benchDirHistory());
}
