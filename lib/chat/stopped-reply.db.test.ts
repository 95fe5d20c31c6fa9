// Issue 26: Stop during a reply. The server's turn runs on until the abort reaches the model, so
// it stores more than the browser showed; the browser then says how much it showed, and the
// stored answer is cut to exactly that, marked stopped.
import { simulateReadableStream, type UIMessage } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { describe, expect, it, vi } from "vitest";
import { registerAppTestWorld } from "@/lib/accounts/testing";
import type * as AiModule from "@/lib/ai";
import { testDatabaseProvider } from "@/lib/db/testing";
import { sqlFor } from "@/lib/sql-storage/sql";
import { cutToShown, keepShownPartOfStoppedReply } from "./stopped-reply";
vi.mock("server-only", () => ({}));

const WORDS = Array.from({ length: 40 }, (_, index) => `word${index} `);
const model = new MockLanguageModelV4({
  doStream: async () => ({
    stream: simulateReadableStream({
      chunks: [
        { type: "stream-start", warnings: [] },
        { type: "text-start", id: "t" },
        ...WORDS.map((delta) => ({ type: "text-delta" as const, id: "t", delta })),
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
      chunkDelayInMs: 20,
    }),
  }),
});

vi.mock("@/lib/ai", async (importOriginal) => {
  const { chatModelOnly } = await import("@/lib/ai/testing");
  return chatModelOnly(await importOriginal<typeof AiModule>(), model);
});

function userMessage(id: string, text: string): UIMessage {
  return { id, role: "user", parts: [{ type: "text", text }] };
}

describe("cutToShown", () => {
  it("cuts text parts to the lengths shown, drops the rest, keeps other parts and marks the turn stopped", () => {
    const parts = [
      { type: "step-start" },
      { type: "text", text: "Hello there, friend.", state: "done" },
      { type: "tool-search", toolCallId: "c", state: "output-available", input: {}, output: "x" },
      { type: "text", text: "Second part never shown." },
    ] as UIMessage["parts"];
    const kept = cutToShown(parts, [5], "turn-1");
    expect(kept.filter((part) => part.type === "text")).toEqual([
      { type: "text", text: "Hello", state: "done" },
    ]);
    expect(kept.some((part) => part.type === "tool-search")).toBe(true);
    expect(kept.at(-1)).toMatchObject({ type: "data-turn", data: { status: "aborted" } });
    // Never lengthened.
    const same = cutToShown(parts, [500, 3], "turn-1");
    expect(
      same.filter((part) => part.type === "text").map((part) => (part as { text: string }).text),
    ).toEqual(["Hello there, friend.", "Sec"]);
  });
});

describe(`a stopped reply (${testDatabaseProvider()})`, () => {
  const world = registerAppTestWorld({ role: "member", email: "ada@example.com" });

  it("stores what the browser showed when Stop was pressed, labelled stopped", async () => {
    const { database, actor } = world;
    const chat = await database.db.chat.create({
      data: { workspaceId: actor.workspaceId, userId: actor.userId, title: "Stop me" },
    });
    const { startChatTurn } = await import("./run-chat-turn");
    const abort = new AbortController();
    const started = await startChatTurn({
      actor,
      chatId: chat.id,
      message: userMessage("u1", "Count"),
      abortSignal: abort.signal,
    });
    if (started.status !== "started") throw new Error(started.status);
    // Read the stream as the browser does until a few words have arrived, then stop.
    const reader = started.response.body!.getReader();
    const decoder = new TextDecoder();
    let shown = "";
    while (!shown.includes("word3 ")) {
      const { value, done } = await reader.read();
      if (done) break;
      for (const match of decoder.decode(value).matchAll(/"delta":"([^"]*)"/g)) shown += match[1];
    }
    // The browser is behind the server (bytes in flight, the UI's batching): the turn streams
    // a few more words it never shows before the abort arrives.
    await new Promise((resolve) => setTimeout(resolve, 150));
    abort.abort();
    await reader.cancel().catch(() => undefined);
    // The browser asks right away; the cut waits for the turn to be recorded.
    const outcome = await keepShownPartOfStoppedReply(sqlFor(database.target), {
      chatId: chat.id,
      userMessageId: "u1",
      shownTextLengths: [shown.length],
    });
    await started.finished;
    expect(outcome).toBe("kept-shown");
    const turn = await database.db.turn.findFirstOrThrow({ where: { chatId: chat.id } });
    expect(turn.status).toBe("aborted");
    const stored = await database.db.chatMessage.findUniqueOrThrow({
      where: { id: turn.assistantMessageId! },
    });
    const parts = JSON.parse(stored.parts) as UIMessage["parts"];
    const text = parts.map((part) => (part.type === "text" ? part.text : "")).join("");
    expect(text).toBe(shown);
    expect(parts.find((part) => part.type === "data-turn")).toMatchObject({
      data: { status: "aborted" },
    });
  });

  it("leaves a reply that was not stopped whole, and says when no turn answered", async () => {
    const { database, actor } = world;
    const chat = await database.db.chat.create({
      data: { workspaceId: actor.workspaceId, userId: actor.userId, title: "Whole" },
    });
    const { startChatTurn } = await import("./run-chat-turn");
    const started = await startChatTurn({
      actor,
      chatId: chat.id,
      message: userMessage("u2", "Count"),
    });
    if (started.status !== "started") throw new Error(started.status);
    await started.response.text();
    await started.finished;
    const sql = sqlFor(database.target);
    expect(
      await keepShownPartOfStoppedReply(sql, {
        chatId: chat.id,
        userMessageId: "u2",
        shownTextLengths: [3],
      }),
    ).toBe("not-stopped");
    const stored = await database.db.chatMessage.findFirstOrThrow({
      where: { chatId: chat.id, role: "assistant" },
    });
    expect(stored.parts).toContain("word39");
    expect(
      await keepShownPartOfStoppedReply(sql, {
        chatId: chat.id,
        userMessageId: "nobody",
        shownTextLengths: [3],
      }),
    ).toBe("no-turn");
  });
});
