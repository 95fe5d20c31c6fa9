// Issue 26: a temporary chat's turn neither reads nor writes memory, company knowledge or the
// harness. The recording mock model shows what the request held: no memory, bash, harness,
// delegate, search or refine tool, and no harness, dirs or memory prompt sections — where a
// normal chat's turn in the same workspace has them all.
import type { LanguageModelV4CallOptions } from "@ai-sdk/provider";
import type { UIMessage } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { registerAppTestWorld } from "@/lib/accounts/testing";
import type * as AiModule from "@/lib/ai";
import { testDatabaseProvider } from "@/lib/db/testing";
import { streamOf, textReply } from "@/lib/harness/testing";
vi.mock("server-only", () => ({}));

const model = new MockLanguageModelV4({
  doStream: async () => streamOf(textReply("Noted for now.")),
});

vi.mock("@/lib/ai", async (importOriginal) => {
  const { chatModelOnly } = await import("@/lib/ai/testing");
  return chatModelOnly(await importOriginal<typeof AiModule>(), model);
});

function userMessage(id: string, text: string): UIMessage {
  return { id, role: "user", parts: [{ type: "text", text }] };
}

function toolNames(call: LanguageModelV4CallOptions): string[] {
  return (call.tools ?? []).map((tool) => tool.name).sort();
}

function systemText(call: LanguageModelV4CallOptions): string {
  return call.prompt
    .filter((message) => message.role === "system")
    .map((message) => message.content)
    .join("\n");
}

describe(`a temporary chat's turn (${testDatabaseProvider()})`, () => {
  const world = registerAppTestWorld({ role: "admin", email: "ada@example.com" });
  beforeAll(async () => {
    // Something the harness would show in every normal turn's prompt.
    const { harnessFor } = await import("@/lib/harness-for-actor");
    const harness = await harnessFor(world.actor, null);
    await harness.createMemory({
      title: "Deploy day",
      content: "We deploy on Fridays-harness-marker.",
      global: true,
    });
  });

  async function runTurn(chatId: string, id: string, text: string) {
    const { startChatTurn } = await import("./run-chat-turn");
    const started = await startChatTurn({
      actor: world.actor,
      chatId,
      message: userMessage(id, text),
    });
    expect(started.status).toBe("started");
    if (started.status !== "started") throw new Error(started.status);
    const body = await started.response.text();
    await started.finished;
    return body;
  }

  it("sends no memory, harness or search tools and no harness, dirs or memory sections; a normal chat's turn has them", async () => {
    const { database, actor } = world;
    const normal = await database.db.chat.create({
      data: { workspaceId: actor.workspaceId, userId: actor.userId, title: "Normal" },
    });
    const temporary = await database.db.chat.create({
      data: {
        workspaceId: actor.workspaceId,
        userId: actor.userId,
        title: "Temporary",
        temporary: true,
      },
    });

    await runTurn(normal.id, "n1", "When do we deploy?");
    const normalCall = model.doStreamCalls.at(-1)!;
    expect(toolNames(normalCall)).toEqual(
      expect.arrayContaining(["memory", "bash", "search", "refine", "delegate"]),
    );
    expect(systemText(normalCall)).toContain("Fridays-harness-marker");
    expect(systemText(normalCall)).toContain("/persistent");

    const body = await runTurn(temporary.id, "t1", "When do we deploy?");
    expect(body).toContain("Noted for now.");
    const temporaryCall = model.doStreamCalls.at(-1)!;
    expect(toolNames(temporaryCall)).toEqual([]);
    const system = systemText(temporaryCall);
    expect(system).toContain("This is a temporary chat");
    expect(system).not.toContain("Fridays-harness-marker");
    expect(system).not.toContain("/persistent");
    expect(system).not.toMatch(/memory tool|harness \(prompt notes/i);

    // The recorded turn lists only the base section, and stored the answer.
    const turn = await database.db.turn.findFirstOrThrow({
      where: { chatId: temporary.id },
      orderBy: { startedAt: "desc" },
    });
    expect(turn.status).toBe("completed");
    const sections = JSON.parse(turn.instructions ?? "[]") as { name: string }[];
    expect(sections.map((section) => section.name)).toEqual(["base"]);
    const messages = await database.db.chatMessage.findMany({ where: { chatId: temporary.id } });
    expect(messages.map((message) => message.role)).toEqual(["user", "assistant"]);
    // Nothing of memory was written: no commit, no entry.
    const persistence = JSON.parse(turn.persistence ?? "{}") as { status: string };
    expect(persistence.status).toBe("not-configured");
    // Its answers cannot be rated: ratings feed what Cairn remembers.
    const { rateTurn } = await import("@/lib/feedback");
    const { DEFAULT_WORKSPACE_SETTINGS } = await import("@/lib/workspace-settings");
    const rated = await rateTurn({
      actor,
      input: { turnId: turn.id, rating: "bad" },
      source: "chat",
      settings: DEFAULT_WORKSPACE_SETTINGS,
      requestRefinement: async () => null,
      waitForTurnMs: 0,
    });
    expect(rated.status).toBe("not_found");
    expect(await database.db.turnOutcome.count({ where: { chatId: temporary.id } })).toBe(0);
  });

  it("refuses /refine in a temporary chat, storing nothing", async () => {
    const { database, actor } = world;
    const temporary = await database.db.chat.create({
      data: {
        workspaceId: actor.workspaceId,
        userId: actor.userId,
        title: "Temporary refine",
        temporary: true,
      },
    });
    const { startChatTurn } = await import("./run-chat-turn");
    const started = await startChatTurn({
      actor,
      chatId: temporary.id,
      message: userMessage("r1", "/refine remember this"),
    });
    expect(started.status).toBe("forbidden");
    expect(await database.db.chatMessage.count({ where: { chatId: temporary.id } })).toBe(0);
    expect(await database.db.refinement.count({ where: { chatId: temporary.id } })).toBe(0);
  });
});
