import type { UIMessage } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { afterAll, describe, expect, it, vi } from "vitest";
import { registerAppTestWorld } from "@/lib/accounts/testing";
import type * as AiModule from "@/lib/ai";
import { idleRefineModel } from "@/lib/ai/testing";
import { testDatabaseProvider } from "@/lib/db/testing";
import type { Actor, Role } from "@/lib/harness";
import { streamOf, textReply, toolCallReply } from "@/lib/harness/testing";
vi.mock("server-only", () => ({}));

// Each turn: the model calls `refine` with global: true, then answers once it has the result.
let calls = 0;
const chatModel = new MockLanguageModelV4({
  doStream: async () =>
    streamOf(
      calls++ % 2 === 0
        ? toolCallReply(
            "refine",
            { global: true, instructions: "remember the deploy window" },
            `call-${calls}`,
          )
        : textReply("Done."),
    ),
});
// The refinement itself never runs here (no worker): the request is only stored and queued.
const refineModel = idleRefineModel();

vi.mock("@/lib/ai", async (importOriginal) => {
  const { chatAndRefineModels } = await import("@/lib/ai/testing");
  return chatAndRefineModels(await importOriginal<typeof AiModule>(), {
    chat: chatModel,
    refine: refineModel,
  });
});

/**
 * Issue 31, finding 9: a member could store a global refinement request through the agent's
 * `refine` tool (`/refine --global` was refused, the tool was not). The tool reads the role when
 * it is called.
 */
describe(`the refine tool's global requests follow the role (${testDatabaseProvider()})`, () => {
  const world = registerAppTestWorld({ role: "member" });

  afterAll(async () => {
    const { getJobQueue } = await import("@/lib/jobs");
    await getJobQueue().stop({ timeoutMs: 1_000 });
  });

  async function setRole(role: Role): Promise<Actor> {
    const { userId, workspaceId } = world.actor;
    await world.database.db.membership.update({
      where: { userId_workspaceId: { userId, workspaceId } },
      data: { role },
    });
    return { userId, workspaceId, role };
  }

  async function turn(actor: Actor, text: string): Promise<string> {
    const { startChatTurn } = await import("./run-chat-turn");
    const message: UIMessage = {
      id: globalThis.crypto.randomUUID(),
      role: "user",
      parts: [{ type: "text", text }],
    };
    const started = await startChatTurn({ actor, chatId: world.chatId, message });
    expect(started.status).toBe("started");
    if (started.status !== "started") return "";
    const body = await started.response.text();
    await started.finished;
    return body;
  }

  const globalRequests = () =>
    world.database.db.refinement.count({
      where: { workspaceId: world.actor.workspaceId, scope: "global" },
    });

  it("refuses a member's global request in the tool's result and stores nothing", async () => {
    const body = await turn(await setRole("member"), "keep the deploy window for everyone");
    expect(body).toContain("Refused: only editors and admins can refine company knowledge");
    expect(body).not.toContain("A refinement will run after this turn.");
    // A request would be stored right after the turn is recorded; give it the time to appear.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await globalRequests()).toBe(0);
    expect(refineModel.doGenerateCalls).toHaveLength(0);
  });

  it("reads the role when the tool is called: an editor demoted during the turn is refused", async () => {
    // The turn's actor says editor, but the membership says member now (demoted meanwhile).
    await setRole("member");
    const actor: Actor = { ...world.actor, role: "editor" };
    const body = await turn(actor, "and once more");
    expect(body).toContain("Refused: only editors and admins");
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await globalRequests()).toBe(0);
  });

  it("stores an editor's global request", async () => {
    const body = await turn(await setRole("editor"), "keep the deploy window for everyone");
    expect(body).toContain("A refinement will run after this turn.");
    await vi.waitFor(async () => expect(await globalRequests()).toBe(1), {
      timeout: 10_000,
      interval: 50,
    });
    const row = await world.database.db.refinement.findFirstOrThrow({
      where: { workspaceId: world.actor.workspaceId, scope: "global" },
    });
    expect(row).toMatchObject({
      trigger: "explicit",
      status: "queued",
      instructions: "remember the deploy window",
      actorId: world.actor.userId,
    });
    // Queued for a worker too (and the queue not stopped while that is under way).
    const { getJobQueue } = await import("@/lib/jobs");
    const { REFINEMENT_JOB } = await import("@/lib/refinement-runs");
    await vi.waitFor(
      async () => expect(await getJobQueue().getJob(REFINEMENT_JOB, row.id)).not.toBeNull(),
      { timeout: 10_000, interval: 50 },
    );
  });
});
