import { randomUUID } from "node:crypto";

import { afterAll, describe, expect, it } from "vitest";

import { registerTestDatabase, testDatabaseProvider } from "@/lib/db/testing";
import type { Actor } from "@/lib/harness";
import { testJobQueues, waitFor } from "@/lib/jobs/testing";
import { getDirHistoryUsage, sqlFor } from "@/lib/sql-storage";
import {
  DIR_HISTORY_COMPACT_JOB,
  historyCompactionJob,
  scheduleHistoryCompaction,
} from "./history-compaction";
import { createPersistentDirsService } from "./dirs-service";
import { writeAgedMemoryHistory } from "./testing";

const database = registerTestDatabase();
const queues = testJobQueues(() => database.target);
afterAll(() => queues.closeAll());

describe(`the dir history compaction job on ${testDatabaseProvider()}`, () => {
  it("runs on the job queue, compacts what is past the window and schedules the next run once", async () => {
    const actor: Actor = { userId: `u-${randomUUID()}`, workspaceId: "w1", role: "member" };
    const service = createPersistentDirsService({ sql: database.sql });
    const sql = sqlFor(database.target);
    const dirKey = `user:${actor.userId}`;
    await writeAgedMemoryHistory(service, sql, actor);

    const queue = queues.open();
    const enqueued: Array<{ startAfterSeconds?: number }> = [];
    // The queue the handler schedules on, watched: each run puts the next one 6 h out.
    const watched = {
      ...queue,
      enqueue: (name: string, payload: unknown, options?: { startAfterSeconds?: number }) => {
        enqueued.push({ startAfterSeconds: options?.startAfterSeconds });
        return queue.enqueue(name, payload, options);
      },
    };
    await queue.work(
      DIR_HISTORY_COMPACT_JOB,
      historyCompactionJob({
        sql: () => sql,
        queue: () => watched,
        settings: () => ({ maxDirBytes: null, maxSharedBytes: null, retentionDays: 30 }),
      }),
      { pollIntervalSeconds: 0.5 },
    );
    expect(await scheduleHistoryCompaction({ queue, startAfterSeconds: 0 })).not.toBeNull();
    await waitFor("the compaction job", async () => {
      const usage = await getDirHistoryUsage({ sql, dirKey });
      return usage.compactedBelow === 3 ? usage : null;
    });
    await waitFor("the next run to be scheduled", async () => enqueued.length > 0);
    expect(enqueued[0]).toEqual({ startAfterSeconds: 6 * 60 * 60 });
    // One waiting run at a time: instances that start meanwhile add none.
    expect(await scheduleHistoryCompaction({ queue, startAfterSeconds: 60 })).toBeNull();
  });
});
