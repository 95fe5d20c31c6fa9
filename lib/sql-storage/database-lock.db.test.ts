import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerTestDatabase } from "@/lib/db/testing";
import type { RefinementLock } from "@/lib/harness";
import { createAdvisoryLock, createDatabaseLock, createRowLock } from "./database-lock";
import { sqlFor, type Sql } from "./sql";
import { PgSql } from "./sql/pg-sql";
import { SqliteSql } from "./sql/sqlite-sql";

const database = registerTestDatabase();
/** The process's SQL client on the test database. */
const mine = (): Sql => sqlFor(database.target);
/** A second client on its own connection: another process, as far as the database can tell. */
let other: Sql;
let closeOther: () => Promise<void>;

beforeAll(() => {
  const target = database.target;
  if (target.provider === "sqlite") {
    const handle = new Database(target.filePath);
    handle.pragma("busy_timeout = 5000");
    other = new SqliteSql(target, handle);
    closeOther = async () => void handle.close();
  } else {
    const pool = new pg.Pool({ connectionString: target.url });
    // An idle connection the server ends (the database is dropped after the file) is no failure.
    pool.on("error", () => undefined);
    other = new PgSql(target, pool);
    closeOther = () => pool.end();
  }
});

afterAll(async () => {
  await closeOther?.();
});

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** Runs `rounds` tasks per lock on one key, all at once; returns the most that ever ran together. */
async function contend(locks: RefinementLock[], key: string, rounds: number) {
  let running = 0;
  let most = 0;
  const order: string[] = [];
  await Promise.all(
    locks.flatMap((lock, index) =>
      Array.from({ length: rounds }, (_, round) =>
        lock.runExclusive(key, async () => {
          running++;
          most = Math.max(most, running);
          // Yield to the event loop and the database a few times while holding the lock.
          for (let i = 0; i < 3; i++) await new Promise((r) => setTimeout(r, 2));
          order.push(`${index}:${round}`);
          running--;
        }),
      ),
    ),
  );
  return { most, order };
}

function lockSuite(name: string, make: (sql: Sql) => RefinementLock) {
  describe(name, () => {
    it("lets one task at a time hold a key across two clients of the database", async () => {
      const result = await contend([make(mine()), make(other)], `test:one:${name}`, 6);
      expect(result.most).toBe(1);
      expect(result.order).toHaveLength(12);
    });

    it("lets different keys be held at the same time", async () => {
      const first = make(mine());
      const second = make(other);
      const holding = deferred();
      const release = deferred();
      const outer = first.runExclusive(`test:a:${name}`, async () => {
        holding.resolve();
        await release.promise;
      });
      await holding.promise;
      const inner = await second.runExclusive(`test:b:${name}`, async () => "ran");
      release.resolve();
      await outer;
      expect(inner).toBe("ran");
    });

    it("releases the key when the task throws", async () => {
      const lock = make(mine());
      await expect(
        lock.runExclusive(`test:throw:${name}`, async () => {
          throw new Error("boom");
        }),
      ).rejects.toThrow("boom");
      expect(await make(other).runExclusive(`test:throw:${name}`, async () => 1)).toBe(1);
    });

    it("rejects a waiter that is aborted, without running its task", async () => {
      const key = `test:abort:${name}`;
      const holding = deferred();
      const release = deferred();
      const holder = make(mine()).runExclusive(key, async () => {
        holding.resolve();
        await release.promise;
      });
      await holding.promise;
      const controller = new AbortController();
      let ran = false;
      const waiter = make(other).runExclusive(
        key,
        async () => {
          ran = true;
        },
        { abortSignal: controller.signal },
      );
      setTimeout(() => controller.abort(new Error("gave up")), 50);
      await expect(waiter).rejects.toThrow("gave up");
      release.resolve();
      await holder;
      expect(ran).toBe(false);
      expect(await make(other).runExclusive(key, async () => "free")).toBe("free");
    });
  });
}

lockSuite("lock row", (sql) => createRowLock(sql, { ttlMs: 5_000 }));

describe("lock row: a holder that died", () => {
  it("is taken over once the dead holder's claim expires, and not before", async () => {
    const key = "test:dead-holder";
    // A process that claimed the lock and died: its row stays, nobody renews it.
    await mine().run(`INSERT INTO "ResourceLock" ("key", "owner", "expiresAt") VALUES (?, ?, ?)`, [
      "cairn:" + key,
      "dead",
      Date.now() + 400,
    ]);
    const lock = createRowLock(other, { ttlMs: 5_000, maxPollMs: 50 });
    let ranAt = 0;
    const started = Date.now();
    await lock.runExclusive(key, async () => {
      ranAt = Date.now();
    });
    expect(ranAt - started).toBeGreaterThanOrEqual(300);
    const row = await mine().get<{ n: number }>(
      `SELECT COUNT(*) AS "n" FROM "ResourceLock" WHERE "key" = ?`,
      ["cairn:" + key],
    );
    expect(Number(row!.n)).toBe(0);
  });

  it("is renewed while held, so a long task keeps it past the ttl", async () => {
    const key = "test:renewed";
    const lock = createRowLock(mine(), { ttlMs: 300, renewEveryMs: 50 });
    const holding = deferred();
    const release = deferred();
    const holder = lock.runExclusive(key, async () => {
      holding.resolve();
      await release.promise;
    });
    await holding.promise;
    await new Promise((r) => setTimeout(r, 700));
    let stolen = false;
    const thief = createRowLock(other, { ttlMs: 300, maxPollMs: 20 }).runExclusive(
      key,
      async () => {
        stolen = true;
      },
    );
    await new Promise((r) => setTimeout(r, 200));
    expect(stolen).toBe(false);
    release.resolve();
    await holder;
    await thief;
    expect(stolen).toBe(true);
  });
});

describe.runIf(process.env.CAIRN_TEST_DB === "postgres")("advisory lock (PostgreSQL)", () => {
  const url = () => database.target.url;
  lockSuite("advisory lock", () => createAdvisoryLock({ url: url() }));

  it("is the database lock chosen for PostgreSQL", () => {
    expect(database.target.provider).toBe("postgresql");
    expect(createDatabaseLock({ sql: mine(), target: database.target })).toBeTruthy();
  });

  it("is released by the server when the holding connection dies", async () => {
    const key = "test:advisory-dead";
    const { default: pg } = await import("pg");
    const holder = new pg.Client({ connectionString: url() });
    holder.on("error", () => undefined);
    await holder.connect();
    await holder.query("SELECT pg_advisory_lock(hashtextextended($1, 0))", ["cairn:" + key]);
    const pid = (await holder.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!
      .pid;
    let ran = false;
    const waiter = createAdvisoryLock({ url: url() }).runExclusive(key, async () => {
      ran = true;
    });
    await new Promise((r) => setTimeout(r, 200));
    expect(ran).toBe(false);
    // The holding process dies: its backend goes away, and with it the lock.
    const admin = new pg.Client({ connectionString: url() });
    await admin.connect();
    await admin.query("SELECT pg_terminate_backend($1)", [pid]);
    await admin.end();
    await waiter;
    expect(ran).toBe(true);
    await holder.end().catch(() => undefined);
  });
});
