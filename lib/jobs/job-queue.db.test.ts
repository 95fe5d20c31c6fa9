import { afterEach, describe, expect, it } from "vitest";
import { registerTestDatabase, testDatabaseProvider } from "@/lib/db/testing";
import type { JobInfo, JobQueue } from "./job-queue";
import { testJobQueues, waitFor } from "./testing";

// The job queue's contract, on the database the tests run on: the SQLite runner by default,
// pg-boss with CAIRN_TEST_DB=postgres. Each "instance" is a queue with its own connections.

const database = registerTestDatabase();
const queues = testJobQueues(() => database.target);
afterEach(() => queues.closeAll());
/** A queue as one app instance would open it. */
const instance = () => queues.open();

const settled = (queue: JobQueue, name: string, id: string) =>
  waitFor<JobInfo>(`job ${id} to settle`, async () => {
    const job = await queue.getJob(name, id);
    return job && (job.state === "completed" || job.state === "failed") ? job : null;
  });

describe(`job queue (${testDatabaseProvider()})`, () => {
  it("runs every job exactly once with two instances working the same queue", async () => {
    const name = "test-once";
    const producer = instance();
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push((await producer.enqueue(name, { i }))!);
    const runs = new Map<string, string[]>();
    for (const label of ["a", "b"]) {
      await instance().work<{ i: number }>(
        name,
        async (job) => {
          runs.set(job.id, [...(runs.get(job.id) ?? []), label]);
          await new Promise((resolve) => setTimeout(resolve, 20));
          return { doubled: job.payload.i * 2 };
        },
        { pollIntervalSeconds: 0.5, concurrency: 2 },
      );
    }
    for (const id of ids) expect((await settled(producer, name, id)).state).toBe("completed");
    expect([...runs.keys()].sort()).toEqual([...ids].sort());
    expect([...runs.values()].every((labels) => labels.length === 1)).toBe(true);
    expect((await producer.getJob(name, ids[3]!))?.output).toEqual({ doubled: 6 });
  });

  it("wakes this process's idle worker when it enqueues a job, now or when the job is due, without waiting for the next poll", async () => {
    const name = "test-wake";
    const queue = instance();
    const ran: string[] = [];
    // Polling once a minute: within the test's 25 s only a wake-up can start the jobs.
    await queue.work<{ label: string }>(
      name,
      async (job) => {
        ran.push(job.payload.label);
      },
      { pollIntervalSeconds: 60 },
    );
    // Let the worker's first poll pass (it finds nothing and goes to sleep).
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const now = (await queue.enqueue(name, { label: "now" }))!;
    expect((await settled(queue, name, now)).state).toBe("completed");
    const later = (await queue.enqueue(name, { label: "later" }, { startAfterSeconds: 1 }))!;
    expect(await queue.getJob(name, later)).toMatchObject({ state: "created" });
    expect((await settled(queue, name, later)).state).toBe("completed");
    expect(ran).toEqual(["now", "later"]);
  });

  it("retries a failing job with a growing delay, then completes it", async () => {
    const name = "test-retry";
    const queue = instance();
    const attempts: { retryCount: number; at: number }[] = [];
    const id = (await queue.enqueue(
      name,
      {},
      { retryLimit: 3, retryDelaySeconds: 1, retryBackoff: true },
    ))!;
    await queue.work(
      name,
      async (job) => {
        attempts.push({ retryCount: job.retryCount, at: Date.now() });
        if (attempts.length < 3) throw new Error(`attempt ${attempts.length} fails`);
      },
      { pollIntervalSeconds: 0.5 },
    );
    const job = await settled(queue, name, id);
    expect(job.state).toBe("completed");
    expect(attempts.map((attempt) => attempt.retryCount)).toEqual([0, 1, 2]);
    const [first, second, third] = attempts.map((attempt) => attempt.at);
    // Backoff: at least 1 s before the first retry, at least 2 s before the second.
    expect(second! - first!).toBeGreaterThanOrEqual(900);
    expect(third! - second!).toBeGreaterThanOrEqual(1_900);
  });

  it("marks a job failed once its retries are used up, with the last error", async () => {
    const name = "test-fail";
    const queue = instance();
    const id = (await queue.enqueue(name, {}, { retryLimit: 1, retryDelaySeconds: 0 }))!;
    let calls = 0;
    await queue.work(
      name,
      async () => {
        calls++;
        throw new Error("always broken");
      },
      { pollIntervalSeconds: 0.5 },
    );
    const job = await settled(queue, name, id);
    expect(job.state).toBe("failed");
    expect(calls).toBe(2);
    expect(JSON.stringify(job.output)).toContain("always broken");
  });

  it("keeps a job across a restart: enqueued by one instance that stops, run by the next", async () => {
    const name = "test-restart";
    const before = instance();
    const id = (await before.enqueue(name, { note: "survive" }))!;
    await before.stop();
    const after = instance();
    const seen: unknown[] = [];
    await after.work(name, async (job) => void seen.push(job.payload), {
      pollIntervalSeconds: 0.5,
    });
    expect((await settled(after, name, id)).state).toBe("completed");
    expect(seen).toEqual([{ note: "survive" }]);
  });

  it("hands a job whose worker hung or died to another attempt once its claim expires", async () => {
    const name = "test-expire";
    const dead = instance();
    const id = (await dead.enqueue(
      name,
      {},
      { expireInSeconds: 1, retryDelaySeconds: 0, retryLimit: 3 },
    ))!;
    const attempts: { worker: string; retryCount: number }[] = [];
    await dead.work(
      name,
      (job) => {
        attempts.push({ worker: "dead", retryCount: job.retryCount });
        // The first attempt never finishes: a process that froze or died. (pg-boss frees the
        // worker slot after the expiry, so this instance may take a later attempt itself.)
        return job.retryCount === 0 ? new Promise(() => undefined) : Promise.resolve();
      },
      { pollIntervalSeconds: 0.5 },
    );
    await waitFor("the first claim", async () => attempts.length > 0);
    const alive = instance();
    await alive.work(
      name,
      async (job) => void attempts.push({ worker: "alive", retryCount: job.retryCount }),
      { pollIntervalSeconds: 0.5 },
    );
    const job = await settled(alive, name, id);
    expect(job.state).toBe("completed");
    expect(attempts[0]).toEqual({ worker: "dead", retryCount: 0 });
    // Exactly one later attempt ran, and it completed the job.
    expect(attempts.slice(1)).toHaveLength(1);
    expect(attempts[1]!.retryCount).toBeGreaterThanOrEqual(1);
  });

  it("accepts one waiting job per singleton key", async () => {
    const name = "test-singleton";
    const queue = instance();
    const first = await queue.enqueue(name, { n: 1 }, { singletonKey: "chat-1" });
    const second = await queue.enqueue(name, { n: 2 }, { singletonKey: "chat-1" });
    const other = await queue.enqueue(name, { n: 3 }, { singletonKey: "chat-2" });
    const unkeyed = [await queue.enqueue(name, { n: 4 }), await queue.enqueue(name, { n: 5 })];
    expect(first).toBeTruthy();
    expect(second).toBeNull();
    expect(other).toBeTruthy();
    expect(unkeyed.every(Boolean)).toBe(true);
    expect((await queue.getJob(name, first!))?.state).toBe("created");
  });
  it("stores a job under the caller's id, once", async () => {
    const name = "test-own-id";
    const queue = instance();
    const id = globalThis.crypto.randomUUID();
    expect(await queue.enqueue(name, { n: 1 }, { id })).toBe(id);
    expect(await queue.enqueue(name, { n: 2 }, { id })).toBeNull();
    expect(await queue.getJob(name, id)).toMatchObject({ id, state: "created" });
  });
});
