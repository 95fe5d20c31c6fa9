import { MockLanguageModelV4 } from "ai/test";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createAppTestWorld } from "@/lib/accounts/testing";
import type * as AiModule from "@/lib/ai";
import type { ModelReady } from "@/lib/ai";
import { testDatabaseProvider, type TestDatabase } from "@/lib/db/testing";
import type { Actor } from "@/lib/harness";
import type { RefineRequest } from "./index";

vi.hoisted(() => {
  process.env.CAIRN_BCRYPT_COST = "4";
});
vi.mock("server-only", () => ({}));

// A refine model that records its calls: a refused refinement must never reach it.
const model = new MockLanguageModelV4({
  doGenerate: async () => {
    throw new Error("the refine model must not be called for a refused refinement");
  },
});

vi.mock("@/lib/ai", async (importOriginal) => {
  const original = await importOriginal<typeof AiModule>();
  return {
    ...original,
    getRefineModel: () =>
      Promise.resolve({
        status: "ready",
        model,
        provider: "openai-compatible",
        modelId: "mock",
        contextWindow: 100_000,
        contextWindowSource: "configured",
      } as unknown as ModelReady),
  };
});

/**
 * Issue 14, finding 7: a queued refinement reads the person's role again when its job runs, not
 * the role they had when they asked. Requested by an editor, run after a demotion or a removal.
 */
describe(`a queued refinement re-reads the role when it runs (${testDatabaseProvider()})`, () => {
  let world: Awaited<ReturnType<typeof createAppTestWorld>>;
  let database: TestDatabase;
  let editor: Actor;
  let chatId: string;

  beforeAll(async () => {
    world = await createAppTestWorld({ role: "editor" });
    ({ database, actor: editor, chatId } = world);
  });
  afterAll(async () => {
    const { getJobQueue } = await import("@/lib/jobs");
    await getJobQueue().stop({ timeoutMs: 1_000 });
    await world.cleanup();
  });

  async function queueGlobalRefinement() {
    const { requestRefinement, REFINEMENT_JOB } = await import("./index");
    const id = await requestRefinement({
      actor: editor,
      chatId,
      request: { kind: "explicit", global: true, instructions: "remember the deploy window" },
    });
    expect(id).toBeTruthy();
    const row = await database.db.refinement.findUniqueOrThrow({ where: { id: id! } });
    expect(row.status).toBe("queued");
    // The job as the queue hands it to a worker (pg-boss on PostgreSQL, a table on SQLite).
    const request: RefineRequest = {
      kind: "explicit",
      global: true,
      instructions: "remember the deploy window",
    };
    const payload = {
      refinementId: id!,
      workspaceId: editor.workspaceId,
      userId: editor.userId,
      chatId,
      request,
    };
    return { id: id!, job: { id: `job-${id}`, name: REFINEMENT_JOB, payload, retryCount: 0 } };
  }

  it("refuses the global refinement of an editor demoted after asking, before any model call", async () => {
    const { runRefinementJob } = await import("./index");
    const { id, job } = await queueGlobalRefinement();
    await database.db.membership.update({
      where: { userId_workspaceId: { userId: editor.userId, workspaceId: editor.workspaceId } },
      data: { role: "member" },
    });

    await runRefinementJob(job);

    const row = await database.db.refinement.findUniqueOrThrow({ where: { id } });
    expect(row.status).toBe("failed");
    expect(row.error).toContain("forbidden:refinement");
    expect(model.doGenerateCalls).toHaveLength(0);
    expect(await database.db.harnessEntry.count({ where: { scope: "global" } })).toBe(0);
  });

  it("does not run the refinement of a person removed from the workspace", async () => {
    const { runRefinementJob } = await import("./index");
    await database.db.membership.update({
      where: { userId_workspaceId: { userId: editor.userId, workspaceId: editor.workspaceId } },
      data: { role: "editor" },
    });
    const { id, job } = await queueGlobalRefinement();
    await database.db.membership.delete({
      where: { userId_workspaceId: { userId: editor.userId, workspaceId: editor.workspaceId } },
    });

    expect(await runRefinementJob(job)).toBe("forbidden");

    const row = await database.db.refinement.findUniqueOrThrow({ where: { id } });
    expect(row.status).toBe("failed");
    expect(row.error).toContain("no longer a member");
    expect(model.doGenerateCalls).toHaveLength(0);
  });
});
