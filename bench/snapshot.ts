// harness.snapshot() at 10,000 entries on SQLite (the app's storage): read afresh, served
// from the snapshot cache while nothing changed (one version read), and after one change
// (the version read plus the revisions since, applied to the remembered snapshot), with the
// prompt view rendered on top as a turn does.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createDb, migrateDatabase, type DatabaseTarget } from "@/lib/db";
import {
  createHarness,
  createPromptViewCache,
  formatHarnessStateForPrompt,
  SnapshotCache,
} from "@/lib/harness";
import { closeSql, harnessStorageFor } from "@/lib/sql-storage";
import { loadLine, ms, table, timeIt } from "./stats";

const COUNT = Number(process.env.BENCH_SNAPSHOT_COUNT ?? 10_000);
const QUERY = "how do we deploy the release after the schema migration?";

export async function benchSnapshot(): Promise<string> {
  const directory = mkdtempSync(path.join(tmpdir(), "cairn-bench-"));
  const filePath = path.join(directory, "bench.db");
  const target: DatabaseTarget = { provider: "sqlite", url: `file:${filePath}`, filePath };
  await migrateDatabase({ target });
  const db = createDb(target);
  const storage = harnessStorageFor({ target });
  try {
    const workspace = await db.workspace.create({ data: { name: "bench" } });
    const actor = { userId: "bench", workspaceId: workspace.id, role: "admin" as const };
    const writer = createHarness({ storage, actor, chatId: "chat-1", snapshotCache: null });
    const words = "deploy build release schema migration cache queue worker token review";
    const list = words.split(" ");
    await writer.applyEdits({
      edits: Array.from({ length: COUNT }, (_, index) => ({
        op: "create" as const,
        kind: "memory" as const,
        global: index % 3 === 0,
        id: `m-${index}`,
        title: `Memory ${index} about ${list[index % list.length]}`,
        content: `${list[(index * 7) % list.length]} ${words} ${index}`,
        path: `project-${index % 10}`,
      })),
    });
    const rows: Record<string, string>[] = [];
    const run = async (
      label: string,
      harness: ReturnType<typeof createHarness>,
      before?: () => Promise<void>,
    ) => {
      const viewCache = createPromptViewCache();
      const snapshotOnly = await timeIt(() => harness.snapshot(), {
        iterations: 20,
        warmup: 3,
        before,
      });
      const withView = await timeIt(
        async () =>
          formatHarnessStateForPrompt({
            state: await harness.snapshot(),
            tokenBudget: 4000,
            query: QUERY,
            cache: viewCache,
          }),
        { iterations: 20, warmup: 3, before },
      );
      rows.push({
        snapshot: label,
        "snapshot p50": ms(snapshotOnly.p50),
        "snapshot p95": ms(snapshotOnly.p95),
        "+ prompt view p50": ms(withView.p50),
        "+ prompt view p95": ms(withView.p95),
      });
    };
    await run(
      "read afresh",
      createHarness({ storage, actor, chatId: "chat-1", snapshotCache: null }),
    );
    const cache = new SnapshotCache();
    const cached = createHarness({ storage, actor, chatId: "chat-1", snapshotCache: cache });
    await run("remembered, unchanged", cached);
    let edits = 0;
    await run("remembered, after one change", cached, async () => {
      edits += 1;
      const index = (edits * 7919) % COUNT;
      const id = `m-${index}`;
      const scope = index % 3 === 0 ? ("global" as const) : ("local" as const);
      const current = await writer.getEntryOrThrow({ kind: "memory", id, scope });
      await writer.updateEntry({
        kind: "memory",
        id,
        global: current.scope === "global",
        expectedVersion: current.version,
        content: `${current.content} (edit ${edits})`,
      });
    });
    return `Harness snapshot at ${COUNT.toLocaleString("en")} entries (SQLite, the app's storage; prompt view with a query)\n${loadLine()}\n${table(rows)}`;
  } finally {
    await closeSql(target);
    await db.$disconnect();
    rmSync(directory, { recursive: true, force: true });
  }
}
