import { MockLanguageModelV4 } from "ai/test";
import { afterAll, describe, expect, it, vi } from "vitest";
import { registerAppTestWorld } from "@/lib/accounts/testing";
import type * as AiModule from "@/lib/ai";
import { testDatabaseProvider } from "@/lib/db/testing";
import { newRefinement } from "@/lib/harness";
import type { JobInfo } from "@/lib/jobs";
import { testJobQueues, waitFor } from "@/lib/jobs/testing";
import type { RefinementJobPayload } from "./index";
vi.mock("server-only", () => ({}));

/** What the refinement's row said while the planner was asked (the status /refinements showed). */
const statusWhilePlanning: string[] = [];
let rowToWatch: (() => Promise<string>) | null = null;

const planner = new MockLanguageModelV4({
  doGenerate: async () => {
    if (rowToWatch) statusWhilePlanning.push(await rowToWatch());
    return {
      content: [
        {
          type: "text",
          text: JSON.stringify({
            summary: "Remember the deploy window",
            rationale: "The user asked for it.",
            expectedOutcome: "Answers use the deploy window.",
            edits: [
              {
                action: "create",
                kind: "memory",
                title: "Deploy window",
                content: "Deploys happen on Tuesdays.",
                reason: "Asked",
              },
            ],
          }),
        },
      ],
      finishReason: { unified: "stop", raw: "stop" },
      usage: {
        inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: 10, text: 10, reasoning: undefined },
      },
      warnings: [],
    };
  },
});

vi.mock("@/lib/ai", async (importOriginal) => {
  const original = await importOriginal<typeof AiModule>();
  const { readyModel } = await import("@/lib/ai/testing");
  return { ...original, getRefineModel: () => readyModel(planner) };
});

/**
 * Issue 11: a refinement's state shows where users look (queued → running → applied/failed on
 * /refinements), and a row whose job's last attempt died without an outcome does not stay
 * `running` forever: the sweep marks it failed, with a reason.
 */
describe(`refinement jobs and the stuck-row sweep (${testDatabaseProvider()})`, () => {
  const world = registerAppTestWorld({ role: "editor" });
  /** Queues as other app instances open them. */
  const queues = testJobQueues(() => world.database.target);
  const openQueue = () => queues.open();

  afterAll(async () => {
    await queues.closeAll();
    const { getJobQueue } = await import("@/lib/jobs");
    await getJobQueue()
      .stop({ timeoutMs: 1_000 })
      .catch(() => undefined);
  });

  const statusOf = async (id: string) =>
    (await world.database.db.refinement.findUniqueOrThrow({ where: { id } })).status;

  it("shows a requested refinement as queued, running while it plans, then applied; its job is found by the row's id", async () => {
    const { requestRefinement, runRefinementJob, REFINEMENT_JOB } = await import("./index");
    const { getJobQueue } = await import("@/lib/jobs");
    const id = (await requestRefinement({
      actor: world.actor,
      chatId: world.chatId,
      request: { kind: "explicit", instructions: "remember the deploy window" },
    }))!;
    // What /refinements lists for the person (the page's own query) right after the request.
    const { listVisibleRefinements } = await import("./queries");
    const listed = async () =>
      (
        await listVisibleRefinements({
          actor: world.actor,
          filters: {},
          limit: 20,
        })
      ).items
        .filter((row) => row.id === id)
        .map((row) => row.status);
    expect(await listed()).toEqual(["queued"]);
    const job = await getJobQueue().getJob(REFINEMENT_JOB, id);
    expect(job).toMatchObject({ id, state: "created" });

    rowToWatch = () => statusOf(id);
    // A worker runs it (here in this process, as `startJobWorkers` would).
    await getJobQueue().work<RefinementJobPayload>(REFINEMENT_JOB, runRefinementJob, {
      pollIntervalSeconds: 0.5,
    });
    await waitFor("the refinement to be applied", async () => (await statusOf(id)) === "applied");
    rowToWatch = null;
    expect(statusWhilePlanning).toEqual(["running"]);
    expect(await listed()).toEqual(["applied"]);
    await waitFor(
      "its job to complete",
      async () => (await getJobQueue().getJob(REFINEMENT_JOB, id))?.state === "completed",
    );
    // A finished row is never swept.
    const { sweepStuckRefinements } = await import("./index");
    expect((await sweepStuckRefinements()).failed).toEqual([]);
    expect(await statusOf(id)).toBe("applied");
    // This process's worker stops: the next test plays the instances itself.
    await getJobQueue().stop({ timeoutMs: 1_000 });
  });

  it("marks failed, with a reason, a row left running when its job's last attempt died; leaves live ones alone", async () => {
    const { REFINEMENT_JOB, refinementStore, sweepStuckRefinements } = await import("./index");
    const store = refinementStore();
    const row = (id: string, status: "queued" | "running") =>
      store.createRefinement({
        refinement: newRefinement({
          id,
          workspaceId: world.actor.workspaceId,
          chatId: world.chatId,
          scope: "local",
          trigger: "explicit",
          status,
          actorId: world.actor.userId,
          createdAt: new Date().toISOString(),
        }),
      });
    const payload = (id: string): RefinementJobPayload => ({
      refinementId: id,
      workspaceId: world.actor.workspaceId,
      userId: world.actor.userId,
      chatId: world.chatId,
      request: { kind: "explicit" },
    });
    const dyingId = globalThis.crypto.randomUUID();
    const waitingId = globalThis.crypto.randomUUID();
    const orphanId = globalThis.crypto.randomUUID();
    await row(dyingId, "queued");
    await row(waitingId, "queued");
    await row(orphanId, "running");

    // An instance takes the dying job on its last attempt, marks the row running, and dies
    // mid-run (its handler never returns); its claim expires and the queue fails the job.
    const doomed = openQueue();
    await doomed.enqueue(REFINEMENT_JOB, payload(dyingId), {
      id: dyingId,
      retryLimit: 0,
      expireInSeconds: 1,
    });
    await doomed.work<RefinementJobPayload>(
      REFINEMENT_JOB,
      async (job) => {
        if (job.payload.refinementId !== dyingId) throw new Error("only the dying job here");
        await world.database.db.refinement.update({
          where: { id: dyingId },
          data: { status: "running" },
        });
        return new Promise(() => undefined);
      },
      { pollIntervalSeconds: 0.5 },
    );
    // Another one waits for a worker far in the future: the queue still owns it.
    const survivor = openQueue();
    await survivor.enqueue(REFINEMENT_JOB, payload(waitingId), {
      id: waitingId,
      startAfterSeconds: 3_600,
    });
    await waitFor(
      "the dying attempt to start",
      async () => (await statusOf(dyingId)) === "running",
    );
    // On SQLite a live worker's next poll turns the expired claim into a failed attempt (pg-boss
    // does it in its maintenance); this one never gets a job (the other is not due for an hour).
    if (testDatabaseProvider() !== "postgresql")
      await survivor.work(
        REFINEMENT_JOB,
        async () => {
          throw new Error("no job is due");
        },
        { pollIntervalSeconds: 0.5 },
      );
    const failedJob = await waitFor<JobInfo>("the dying job to be failed", async () => {
      const job = await survivor.getJob(REFINEMENT_JOB, dyingId);
      return job?.state === "failed" ? job : null;
    });
    expect(failedJob.retryCount).toBe(0);
    expect(await statusOf(dyingId)).toBe("running");

    // The sweep: the dying row is failed with a reason; the waiting one stays queued; the row
    // with no job at all is left alone while recent, and failed as lost once it is old.
    const first = await sweepStuckRefinements({ queue: survivor });
    expect(first.failed).toEqual([dyingId]);
    const failed = (await store.getRefinement({
      workspaceId: world.actor.workspaceId,
      id: dyingId,
    }))!;
    expect(failed.status).toBe("failed");
    expect(failed.summary).toBe("Stopped before it finished");
    expect(failed.error?.code).toBe("refine:job");
    expect(failed.error?.message).toMatch(/stopped before it finished.*ask again with \/refine/i);
    expect(await statusOf(waitingId)).toBe("queued");
    expect(await statusOf(orphanId)).toBe("running");

    const later = () => new Date(Date.now() + 2 * 60 * 60 * 1000);
    const second = await sweepStuckRefinements({ queue: survivor, now: later });
    expect(second.failed).toEqual([orphanId]);
    const lost = (await store.getRefinement({
      workspaceId: world.actor.workspaceId,
      id: orphanId,
    }))!;
    expect(lost.error?.code).toBe("refine:lost");
    expect(await statusOf(waitingId)).toBe("queued");
    // Idempotent: nothing more to do.
    expect((await sweepStuckRefinements({ queue: survivor, now: later })).failed).toEqual([]);
  });
});
