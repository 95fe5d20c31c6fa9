import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { GET as metricsRoute } from "@/app/api/metrics/route";
import { GET as readyRoute } from "@/app/api/ready/route";
import { installTestCairn, recordingLogger } from "@/lib/cairn/testing";
import { createTestDatabase, testDatabaseProvider, type TestDatabase } from "@/lib/db/testing";
import { operationsOverviewOf } from "./operations-overview";

const TOKEN = "metrics-token-for-tests-0123";

describe(`/api/metrics and /api/ready (${testDatabaseProvider()})`, () => {
  let database: TestDatabase;
  let cleanup: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterEach(async () => {
    await cleanup?.();
    cleanup = undefined;
  });
  afterAll(async () => {
    await database.cleanup();
  });

  const install = (env: Record<string, string> = {}) => {
    const logger = recordingLogger();
    const installed = installTestCairn({
      database: database.target,
      env: { CAIRN_DATA_DIR: mkdtempSync(path.join(tmpdir(), "cairn-ops-")), ...env },
      logger,
    });
    cleanup = installed.cleanup;
    return { ...installed, logger };
  };
  const scrape = (authorization?: string) =>
    metricsRoute(
      new Request("http://localhost/api/metrics", {
        headers: authorization ? { authorization } : {},
      }),
    );

  it("metrics answer 404 while no token is configured", async () => {
    install();
    expect((await scrape(`Bearer ${TOKEN}`)).status).toBe(404);
  });

  it("metrics need the bearer token, then answer Prometheus text", async () => {
    const { cairn } = install({ CAIRN_METRICS_TOKEN: TOKEN });
    expect((await scrape()).status).toBe(401);
    expect((await scrape("Bearer wrong")).status).toBe(401);
    expect((await scrape(TOKEN)).status).toBe(401);
    cairn.metrics.turnsStarted.inc();
    const response = await scrape(`Bearer ${TOKEN}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/plain");
    const text = await response.text();
    expect(text).toContain("cairn_chat_turns_started_total 1");
    expect(text).toContain("cairn_job_queue_depth");
  });

  it("ready: 200 when the database, migrations, queue and spool are usable", async () => {
    const { cairn } = install();
    // On PostgreSQL the queue's tables exist once pg-boss started (the workers start it at boot).
    await cairn.jobQueue.enqueue("readiness-probe", {});
    const response = await readyRoute();
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      status: "ready",
      checks: {
        database: { ok: true },
        migrations: { ok: true },
        queue: { ok: true },
        spool: { ok: true },
      },
    });
  });

  it("ready: 503 naming a pending migration and an unwritable spool, causes only in the log", async () => {
    // A data dir that is a file: the spool folder cannot be made in it.
    const notAFolder = path.join(mkdtempSync(path.join(tmpdir(), "cairn-ops-")), "file");
    writeFileSync(notAFolder, "");
    const { cairn, logger } = install({ CAIRN_DATA_DIR: notAFolder });
    const [last] = await cairn.sql.all<{ migration_name: string }>(
      `SELECT "migration_name" FROM "_prisma_migrations" ORDER BY "migration_name" DESC LIMIT 1`,
    );
    await cairn.sql.run(`DELETE FROM "_prisma_migrations" WHERE "migration_name" = ?`, [
      last!.migration_name,
    ]);
    try {
      const response = await readyRoute();
      expect(response.status).toBe(503);
      const body = (await response.json()) as { status: string; checks: Record<string, unknown> };
      expect(body.status).toBe("not ready");
      expect(body.checks.migrations).toEqual({ ok: false, detail: "1 migration pending" });
      expect(body.checks.spool).toEqual({ ok: false, detail: "unavailable" });
      expect(JSON.stringify(body)).not.toContain(notAFolder);
      expect(logger.lines.map((line) => line.fields.check)).toEqual(
        expect.arrayContaining(["migrations", "spool"]),
      );
    } finally {
      await cairn.sql.run(
        `INSERT INTO "_prisma_migrations" ("id", "checksum", "finished_at", "migration_name", "applied_steps_count", "started_at")
         VALUES (?, ?, ?, ?, 1, ?)`,
        ["restored", "x", new Date().toISOString(), last!.migration_name, new Date().toISOString()],
      );
    }
  });

  it("the admin overview names settings but never a secret", async () => {
    const { cairn } = install({
      CAIRN_METRICS_TOKEN: TOKEN,
      CAIRN_OIDC_ISSUER: "https://id.example.com",
      CAIRN_OIDC_CLIENT_ID: "cairn",
      CAIRN_OIDC_CLIENT_SECRET: "very-secret-client-secret",
    });
    const overview = operationsOverviewOf(cairn.config);
    expect(overview).toMatchObject({ metrics: true, oidc: { issuer: "https://id.example.com" } });
    expect(JSON.stringify(overview)).not.toMatch(/very-secret-client-secret|metrics-token/);
  });
});
