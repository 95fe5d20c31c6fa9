import { createDb, type Db } from "@/lib/db";
import type { DatabaseTarget } from "@/lib/db/database-url";
import { testDatabaseProvider } from "@/lib/db/testing";
import type { JobQueue } from "./job-queue";
import { createPgBossJobQueue } from "./pg-boss-job-queue";
import { createTableJobQueue } from "./table-job-queue";

/**
 * Job queues on the test database as separate app instances open them: pg-boss on PostgreSQL,
 * the `Job` table on SQLite (through `db` when given, else a client of the queue's own).
 * `closeAll` stops every queue opened and disconnects the clients it made (and those handed to
 * `disconnectLater`); call it in an `afterEach` or `afterAll`.
 */
export function testJobQueues(target: () => DatabaseTarget) {
  const opened: { queue?: JobQueue; db?: Db }[] = [];
  return {
    open(options: { db?: Db; now?: () => number } = {}): JobQueue {
      if (testDatabaseProvider() === "postgresql") {
        const queue = createPgBossJobQueue({ url: target().url, maintenanceIntervalSeconds: 1 });
        opened.push({ queue });
        return queue;
      }
      const db = options.db ?? createDb(target());
      const queue = createTableJobQueue(db, { now: options.now });
      opened.push({ queue, db: options.db ? undefined : db });
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
