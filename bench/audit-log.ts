// What the admin audit page costs as the log grows (issue 27): `listAuditEvents`, one page of 50
// newest first by keyset, on a workspace with BENCH_AUDIT_ROWS events (default 100,000; another
// workspace holds a tenth as many beside it), 20 people, every kind, a year of times.
// Measures, per database (p50 of BENCH_AUDIT_ITERATIONS):
//   - first page, unfiltered (what /admin/audit opens on);
//   - deep page: the page after row 90,000 (following "Older events" that far);
//   - person: one person's events; kind: one kind's; month: a 30-day window;
//   - person + kind + month together.
//   npx tsx bench/audit-log.ts
//   BENCH_AUDIT_DATABASES=sqlite npx tsx bench/audit-log.ts
import { randomUUID } from "node:crypto";
import { pathToFileURL } from "node:url";

import { AUDIT_KINDS, encodeAuditCursor, listAuditEvents, type AuditFilters } from "@/lib/audit";
import type { DatabaseTarget } from "@/lib/db";
import { sqlFor, type Sql, type SqlValue } from "@/lib/sql-storage/sql";
import { freshDatabase } from "./databases";
import { loadLine, ms, summarize, table } from "./stats";

const ROWS = Number(process.env.BENCH_AUDIT_ROWS ?? 100_000);
const ITERATIONS = Number(process.env.BENCH_AUDIT_ITERATIONS ?? 30);
const PROVIDERS = (process.env.BENCH_AUDIT_DATABASES ?? "sqlite,postgresql").split(
  ",",
) as DatabaseTarget["provider"][];
const BATCH = 500;
const KINDS = Object.keys(AUDIT_KINDS);
const PEOPLE = Array.from({ length: 20 }, (_, index) => `person-${index}`);
const START = Date.UTC(2026, 0, 1);
const YEAR_MS = 365 * 24 * 60 * 60 * 1000;

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

async function seed(sql: Sql, workspaceId: string, rows: number): Promise<void> {
  for (let start = 0; start < rows; start += BATCH) {
    const count = Math.min(BATCH, rows - start);
    const values: SqlValue[] = [];
    for (let index = start; index < start + count; index += 1) {
      values.push(
        randomUUID(),
        workspaceId,
        PEOPLE[index % PEOPLE.length],
        KINDS[(index * 7) % KINDS.length],
        "user",
        PEOPLE[(index + 3) % PEOPLE.length],
        `{"n":${index}}`,
        index % 3 === 0 ? "chat" : "web",
        new Date(START + Math.floor((index / rows) * YEAR_MS)),
      );
    }
    await sql.transaction((tx) =>
      tx.run(
        `INSERT INTO "AuditEvent" ("id", "workspaceId", "actorId", "kind", "targetType", "targetId", "details", "via", "createdAt")
         VALUES ${Array.from({ length: count }, () => "(?, ?, ?, ?, ?, ?, ?, ?, ?)").join(", ")}`,
        values,
      ),
    );
  }
}

async function measure(provider: DatabaseTarget["provider"]) {
  const database = await freshDatabase(provider);
  try {
    const sql = sqlFor(database.target);
    const workspaceId = randomUUID();
    await seed(sql, workspaceId, ROWS);
    await seed(sql, randomUUID(), Math.ceil(ROWS / 10));
    if (provider === "postgresql") await sql.run(`ANALYZE "AuditEvent"`);
    else await sql.run(`ANALYZE`);
    const deep = await sql.get<{ id: string; createdAt: unknown }>(
      `SELECT "id", "createdAt" FROM "AuditEvent" WHERE "workspaceId" = ?
       ORDER BY "createdAt" DESC, "id" DESC LIMIT 1 OFFSET ?`,
      [workspaceId, Math.floor(ROWS * 0.9)],
    );
    const deepCursor = encodeAuditCursor(
      new Date(
        String(deep!.createdAt instanceof Date ? deep!.createdAt.toISOString() : deep!.createdAt),
      ),
      deep!.id,
    );
    const month: AuditFilters = {
      from: new Date(START + YEAR_MS / 2),
      to: new Date(START + YEAR_MS / 2 + 30 * 24 * 60 * 60 * 1000),
    };
    const page = (filters: AuditFilters, cursor?: string) => () =>
      listAuditEvents({ sql, workspaceId, filters, cursor });
    return {
      database: provider,
      rows: ROWS.toLocaleString("en-US"),
      "first page": await p50(page({})),
      "page after 90%": await p50(page({}, deepCursor)),
      person: await p50(page({ actorId: PEOPLE[5] })),
      kind: await p50(page({ kind: "company.committed" })),
      "30 days": await p50(page(month)),
      "person+kind+30 days": await p50(
        page({ ...month, actorId: PEOPLE[5], kind: KINDS[(5 * 7) % KINDS.length] as never }),
      ),
    };
  } finally {
    await database.drop();
  }
}

export async function benchAuditLog(): Promise<string> {
  const rows = [];
  for (const provider of PROVIDERS) rows.push(await measure(provider));
  return [
    `Audit log page (50 events, names joined): server time per request (p50 of ${ITERATIONS})`,
    loadLine(),
    "",
    table(rows),
  ].join("\n");
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(await benchAuditLog());
}
