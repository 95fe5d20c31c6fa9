// Refinement rollback and restore-to-version on SQLite, through the app's storages: rollback of
// a refinement of 20 edits (target under 100 ms) and restoring a harness of 1,000 entries to an
// earlier version (target under 1 s).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createDb, migrateDatabase, type DatabaseTarget } from "@/lib/db";
import {
  createHarness,
  restoreHarnessToVersion,
  rollbackRefinement,
  runRefinement,
  type Actor,
  type Harness,
} from "@/lib/harness";
import { SqlRefinementStore, harnessStorageFor, sqlFor } from "@/lib/sql-storage";
import {
  refinementReply as reply,
  scriptedRefinementModel as scriptedModel,
} from "@/lib/harness/testing";
import { ms, summarize, table } from "./stats";

const ROUNDS = Number(process.env.BENCH_REFINE_ROUNDS ?? 10);

async function fresh() {
  const directory = mkdtempSync(path.join(tmpdir(), "cairn-bench-refine-"));
  const filePath = path.join(directory, "bench.db");
  const target: DatabaseTarget = { provider: "sqlite", url: `file:${filePath}`, filePath };
  await migrateDatabase({ target });
  const db = createDb(target);
  const workspace = await db.workspace.create({ data: { name: "bench" } });
  const actor: Actor = { userId: "bench", workspaceId: workspace.id, role: "admin" };
  const harness: Harness = createHarness({
    storage: harnessStorageFor({ target }),
    actor,
    chatId: null,
  });
  return { directory, db, actor, harness, store: new SqlRefinementStore(sqlFor(target)) };
}

export async function benchRefinement(): Promise<string> {
  const rows: Record<string, string | number>[] = [];
  // Rollback of a 20-edit refinement (10 updates, 10 creates).
  {
    const { directory, db, actor, harness, store } = await fresh();
    try {
      const samples: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        for (let index = 0; index < 10; index++) {
          await harness.createEntry({
            kind: "memory",
            global: true,
            id: `r${round}-base-${index}`,
            title: `Base ${index}`,
            content: `Base fact ${index}.`,
          });
        }
        const entries = (await harness.listEntries({ scope: "global", limit: 500 })).items.filter(
          (entry) => entry.id.startsWith(`r${round}-base-`),
        );
        const plan = {
          summary: `Round ${round}`,
          rationale: "bench",
          expectedOutcome: "bench",
          edits: [
            ...entries.map((entry) => ({
              action: "update",
              kind: "memory",
              id: entry.id,
              content: `${entry.content} Revised.`,
              reason: "bench",
            })),
            ...Array.from({ length: 10 }, (_, index) => ({
              action: "create",
              kind: "memory",
              title: `R${round} new ${index}`,
              content: `New fact ${index}.`,
              reason: "bench",
            })),
          ],
        };
        const model = scriptedModel([reply(plan)]);
        const refinement = await runRefinement({
          trigger: { kind: "explicit", global: true },
          harness,
          store,
          models: { review: model, plan: model },
          actor,
          chatId: null,
          conversation: [{ role: "user", text: "bench" }],
          now: new Date(),
        });
        if (refinement.edits.filter((edit) => edit.result === "applied").length !== 20) {
          throw new Error(
            `expected 20 applied edits, got ${JSON.stringify(refinement.edits.map((edit) => edit.result))}`,
          );
        }
        const started = performance.now();
        const result = await rollbackRefinement({
          id: refinement.id,
          actor,
          harness,
          store,
          now: new Date(),
        });
        samples.push(performance.now() - started);
        if (result.conflicts.length > 0) throw new Error("unexpected rollback conflicts");
      }
      const summary = summarize(samples);
      rows.push({
        operation: "rollback, 20 edits",
        p50: ms(summary.p50),
        p95: ms(summary.p95),
        target: "< 100 ms",
      });
    } finally {
      await db.$disconnect();
      rmSync(directory, { recursive: true, force: true });
    }
  }
  // Restore a 1,000-entry harness to a version before 200 of them changed and 100 were added.
  {
    const { directory, db, actor, harness, store } = await fresh();
    try {
      for (let batch = 0; batch < 2; batch++) {
        await harness.applyEdits({
          edits: Array.from({ length: 500 }, (_, index) => ({
            op: "create" as const,
            kind: "memory" as const,
            global: true,
            id: `m-${batch * 500 + index}`,
            title: `Memory ${batch * 500 + index}`,
            content: `Fact ${batch * 500 + index}.`,
          })),
        });
      }
      const samples: number[] = [];
      for (let round = 0; round < Math.max(3, Math.floor(ROUNDS / 3)); round++) {
        const version = await harness.getHarnessVersion();
        const current = (await harness.snapshot()).entries
          .filter((entry) => entry.id.startsWith("m-"))
          .slice(0, 200);
        await harness.applyEdits({
          edits: [
            ...current.map((entry) => ({
              op: "update" as const,
              kind: "memory" as const,
              global: true,
              id: entry.id,
              expectedVersion: entry.version,
              content: `${entry.content} (round ${round})`,
            })),
            ...Array.from({ length: 100 }, (_, index) => ({
              op: "create" as const,
              kind: "memory" as const,
              global: true,
              id: `x-${round}-${index}`,
              title: `Extra ${index}`,
              content: "Extra.",
            })),
          ],
        });
        const started = performance.now();
        await restoreHarnessToVersion({ harness, store, version, actor, now: new Date() });
        samples.push(performance.now() - started);
      }
      const summary = summarize(samples);
      rows.push({
        operation: "restore to version, 1,000 entries (300 changed)",
        p50: ms(summary.p50),
        p95: ms(summary.p95),
        target: "< 1 s",
      });
    } finally {
      await db.$disconnect();
      rmSync(directory, { recursive: true, force: true });
    }
  }
  return `Refinement rollback and restore on SQLite\n${table(rows)}`;
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await benchRefinement());
