import { installTestCairn } from "@/lib/cairn/testing";
import { simulateReadableStream, type UIMessage } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createUserInWorkspace } from "@/lib/accounts";
import type * as AiModule from "@/lib/ai";
import { createTestDatabase, testDatabaseProvider, type TestDatabase } from "@/lib/db/testing";
import type { Actor } from "@/lib/harness";

vi.hoisted(() => {
  process.env.CAIRN_BCRYPT_COST = "4";
});
vi.mock("server-only", () => ({}));

// The chat model is a recording mock whose first answer waits until the test lets it go.
let releaseFirst: () => void = () => undefined;
const firstMayAnswer = new Promise<void>((resolve) => (releaseFirst = resolve));
let calls = 0;
const model = new MockLanguageModelV4({
  doStream: async () => {
    if (calls++ === 0) await firstMayAnswer;
    return {
      stream: simulateReadableStream({
        chunks: [
          { type: "stream-start", warnings: [] },
          { type: "text-start", id: "t" },
          { type: "text-delta", id: "t", delta: `answer ${calls}` },
          { type: "text-end", id: "t" },
          {
            type: "finish",
            usage: {
              inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
              outputTokens: { total: 5, text: 5, reasoning: undefined },
            },
            finishReason: { unified: "stop", raw: "stop" },
          },
        ],
        initialDelayInMs: null,
        chunkDelayInMs: null,
      }),
    };
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
  let database: TestDatabase;
  let actor: Actor;
  let chatId: string;
  let app: ReturnType<typeof installTestCairn>;
  beforeAll(async () => {
    database = await createTestDatabase();
    app = installTestCairn({ database: database.target });
    const { user, workspace } = await createUserInWorkspace(database.db, {
      email: "ada@example.com",
      password: "long-password",
      role: "admin",
      workspaceName: "Acme",
    });
    actor = { userId: user.id, workspaceId: workspace.id, role: "admin" };
    chatId = (
      await database.db.chat.create({
        data: { workspaceId: workspace.id, userId: user.id, title: "Notes" },
      })
    ).id;
  });
  afterAll(async () => {
    await app.cleanup();
    await database.cleanup();
  });

  it("runs one turn, refuses the others as busy, and keeps each prompt to its own chat", async () => {
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
