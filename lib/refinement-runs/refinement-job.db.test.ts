import { MockLanguageModelV4 } from "ai/test";
import { afterAll, describe, expect, it, vi } from "vitest";
import { registerAppTestWorld } from "@/lib/accounts/testing";
import type * as AiModule from "@/lib/ai";
import { testDatabaseProvider } from "@/lib/db/testing";
import type { RefineRequest } from "./index";
vi.mock("server-only", () => ({}));

// A refine model that records its calls: a refused refinement must never reach it.
const model = new MockLanguageModelV4({
  doGenerate: async () => {
    throw new Error("the refine model must not be called for a refused refinement");
  },
});

vi.mock("@/lib/ai", async (importOriginal) => {
  const original = await importOriginal<typeof AiModule>();
  const { readyModel } = await import("@/lib/ai/testing");
  return { ...original, getRefineModel: () => readyModel(model) };
});

/**
 * Issue 14, finding 7: a queued refinement reads the person's role again when its job runs, not
 * the role they had when they asked. Requested by an editor, run after a demotion or a removal.
 */
describe(`a queued refinement re-reads the role when it runs (${testDatabaseProvider()})`, () => {
  const world = registerAppTestWorld({ role: "editor" });

  afterAll(async () => {
    const { getJobQueue } = await import("@/lib/jobs");
    await getJobQueue().stop({ timeoutMs: 1_000 });
  });

  async function queueGlobalRefinement() {
    const { requestRefinement, REFINEMENT_JOB } = await import("./index");
    const id = await requestRefinement({
      actor: world.actor,
      chatId: world.chatId,
      request: { kind: "explicit", global: true, instructions: "remember the deploy window" },
    });
    expect(id).toBeTruthy();
    const row = await world.database.db.refinement.findUniqueOrThrow({ where: { id: id! } });
    expect(row.status).toBe("queued");
    // The job as the queue hands it to a worker (pg-boss on PostgreSQL, a table on SQLite).
    const request: RefineRequest = {
      kind: "explicit",
      global: true,
      instructions: "remember the deploy window",
    };
    const payload = {
      refinementId: id!,
      workspaceId: world.actor.workspaceId,
      userId: world.actor.userId,
      chatId: world.chatId,
      request,
    };
    return { id: id!, job: { id: `job-${id}`, name: REFINEMENT_JOB, payload, retryCount: 0 } };
  }

  it("refuses the global refinement of an editor demoted after asking, before any model call", async () => {
    const { runRefinementJob } = await import("./index");
    const { id, job } = await queueGlobalRefinement();
    await world.database.db.membership.update({
      where: {
        userId_workspaceId: { userId: world.actor.userId, workspaceId: world.actor.workspaceId },
      },
      data: { role: "member" },
    });

    await runRefinementJob(job);

    const row = await world.database.db.refinement.findUniqueOrThrow({ where: { id } });
    expect(row.status).toBe("failed");
    expect(row.error).toContain("forbidden:refinement");
    expect(model.doGenerateCalls).toHaveLength(0);
    expect(await world.database.db.harnessEntry.count({ where: { scope: "global" } })).toBe(0);
  });

  it("does not run the refinement of a person removed from the workspace", async () => {
    const { runRefinementJob } = await import("./index");
    await world.database.db.membership.update({
      where: {
        userId_workspaceId: { userId: world.actor.userId, workspaceId: world.actor.workspaceId },
      },
      data: { role: "editor" },
    });
    const { id, job } = await queueGlobalRefinement();
    await world.database.db.membership.delete({
      where: {
        userId_workspaceId: { userId: world.actor.userId, workspaceId: world.actor.workspaceId },
      },
    });

    expect(await runRefinementJob(job)).toBe("forbidden");

    const row = await world.database.db.refinement.findUniqueOrThrow({ where: { id } });
    expect(row.status).toBe("failed");
    expect(row.error).toContain("no longer a member");
    expect(model.doGenerateCalls).toHaveLength(0);
  });
});
