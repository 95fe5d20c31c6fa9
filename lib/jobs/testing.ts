import type { Db } from "@/lib/db";
import type { DatabaseTarget } from "@/lib/db/database-url";
import { testDatabaseProvider } from "@/lib/db/testing";
import { sqlFor, type Sql } from "@/lib/sql-storage/sql";
import type { JobQueue } from "./job-queue";
import { createPgBossJobQueue } from "./pg-boss-job-queue";
import { createTableJobQueue } from "./table-job-queue";

/**
 * Job queues on the test database as separate app instances open them: pg-boss on PostgreSQL,
 * the `Job` table on SQLite (through `sql` when given, else the process's client of the
 * database). `closeAll` stops every queue opened and disconnects the Prisma clients handed to
 * `disconnectLater`; call it in an `afterEach` or `afterAll`.
 */
export function testJobQueues(target: () => DatabaseTarget) {
  const opened: { queue?: JobQueue; db?: Db }[] = [];
  return {
    open(options: { sql?: Sql; now?: () => number } = {}): JobQueue {
      if (testDatabaseProvider() === "postgresql") {
        const queue = createPgBossJobQueue({ url: target().url, maintenanceIntervalSeconds: 1 });
        opened.push({ queue });
        return queue;
      }
      const queue = createTableJobQueue(options.sql ?? sqlFor(target()), { now: options.now });
      opened.push({ queue });
      return queue;
    },
    disconnectLater(db: Db): void {
      opened.push({ db });
    },
    async closeAll(): Promise<void> {
      for (const { queue, db } of opened.splice(0)) {
        await queue?.stop({ timeoutMs: 0 }).catch(() => undefined);
        await db?.$disconnect();
      }
    },
  };
}

/** Polls `probe` every 100 ms until it returns something truthy (returned), or fails after 25 s. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | null | undefined | false>,
): Promise<T> {
  const deadline = Date.now() + 25_000;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
