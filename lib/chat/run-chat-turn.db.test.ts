import type { UIMessage } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { describe, expect, it, vi } from "vitest";
import { registerAppTestWorld } from "@/lib/accounts/testing";
import type * as AiModule from "@/lib/ai";
import { testDatabaseProvider } from "@/lib/db/testing";
import { streamOf, textReply } from "@/lib/harness/testing";
vi.mock("server-only", () => ({}));

// The chat model is a recording mock whose first answer waits until the test lets it go.
let releaseFirst: () => void = () => undefined;
const firstMayAnswer = new Promise<void>((resolve) => (releaseFirst = resolve));
let calls = 0;
const model = new MockLanguageModelV4({
  doStream: async () => {
    if (calls++ === 0) await firstMayAnswer;
    return streamOf(textReply(`answer ${calls}`));
  },
});

vi.mock("@/lib/ai", async (importOriginal) => {
  const { chatModelOnly } = await import("@/lib/ai/testing");
  return chatModelOnly(await importOriginal<typeof AiModule>(), model);
});

function userMessage(id: string, text: string): UIMessage {
  return { id, role: "user", parts: [{ type: "text", text }] };
}

function promptText(index: number): string {
  return JSON.stringify(model.doStreamCalls[index]!.prompt);
}

describe(`concurrent turns in one chat (${testDatabaseProvider()})`, () => {
  const world = registerAppTestWorld({ role: "admin", email: "ada@example.com" });

  it("runs one turn, refuses the others as busy, and keeps each prompt to its own chat", async () => {
    const { database, actor, chatId } = world;
    const { startChatTurn } = await import("./run-chat-turn");
    const first = await startChatTurn({ actor, chatId, message: userMessage("m1", "first") });
    expect(first.status).toBe("started");
    const firstBody = first.status === "started" ? first.response.text() : Promise.resolve("");

    const others = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        startChatTurn({ actor, chatId, message: userMessage(`x${index}`, `intruder ${index}`) }),
      ),
    );
    expect(others.map((result) => result.status)).toEqual(Array(8).fill("busy"));

    releaseFirst();
    expect(await firstBody).toContain("answer 1");
    await vi.waitFor(async () => expect(await database.db.chatTurnClaim.count()).toBe(0), {
      timeout: 20_000,
      interval: 50,
    });

    const second = await startChatTurn({ actor, chatId, message: userMessage("m2", "second") });
    expect(second.status).toBe("started");
    if (second.status === "started") await second.response.text();
    await vi.waitFor(async () => expect(await database.db.chatTurnClaim.count()).toBe(0), {
      timeout: 20_000,
      interval: 50,
    });

    expect(model.doStreamCalls).toHaveLength(2);
    expect(promptText(0)).toContain("first");
    expect(promptText(0)).not.toContain("intruder");
    expect(promptText(1)).toContain("first");
    expect(promptText(1)).toContain("answer 1");
    expect(promptText(1)).toContain("second");
    expect(promptText(1)).not.toContain("intruder");

    const stored = await database.db.chatMessage.findMany({
      where: { chatId },
      orderBy: { seq: "asc" },
    });
    expect(stored.map((row) => row.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(stored.some((row) => row.parts.includes("intruder"))).toBe(false);
    expect(await database.db.turn.count({ where: { chatId } })).toBe(2);
  });
});
