import type { UIMessage } from "ai";
import { beforeAll, describe, expect, it } from "vitest";
import { registerTestDatabase, testDatabaseProvider } from "@/lib/db/testing";
import { observeSql, type SqlStatementEvent } from "@/lib/sql-storage/sql";
import { appendMessage, listMessageTimes, loadChatMessages, truncateChatAt } from "./messages";

const text = (id: string, role: "user" | "assistant", body: string): UIMessage => ({
  id,
  role,
  parts: [{ type: "text", text: body }],
});

describe(`chat messages: edit and regenerate (${testDatabaseProvider()})`, () => {
  const database = registerTestDatabase();
  let chatId: string;
  beforeAll(async () => {
    const db = database.db;
    const workspace = await db.workspace.create({ data: { name: "Acme" } });
    const user = await db.user.create({ data: { email: "ada@example.com", name: "Ada" } });
    chatId = (
      await db.chat.create({ data: { workspaceId: workspace.id, userId: user.id, title: "T" } })
    ).id;
  });
  async function reset(ids: string[]) {
    const db = database.db;
    await db.chatMessage.deleteMany({ where: { chatId } });
    for (const [index, id] of ids.entries())
      await appendMessage(
        database.sql,
        chatId,
        text(id, index % 2 === 0 ? "user" : "assistant", id),
      );
  }

  it("regenerate removes what follows the user's message and keeps the message", async () => {
    await reset(["u1", "a1", "u2", "a2"]);
    expect(await truncateChatAt(database.sql, { chatId, messageId: "u2", inclusive: false })).toBe(
      true,
    );
    expect((await loadChatMessages(database.sql, chatId)).map((m) => m.id)).toEqual([
      "u1",
      "a1",
      "u2",
    ]);
  });

  it("edit removes the user's message and everything after it", async () => {
    await reset(["u1", "a1", "u2", "a2"]);
    await truncateChatAt(database.sql, { chatId, messageId: "u1", inclusive: true });
    expect(await loadChatMessages(database.sql, chatId)).toEqual([]);
    await appendMessage(database.sql, chatId, text("u1", "user", "edited"));
    const [only] = await loadChatMessages(database.sql, chatId);
    expect(only?.parts).toEqual([{ type: "text", text: "edited" }]);
    expect(Object.keys(await listMessageTimes(database.sql, chatId))).toEqual(["u1"]);
  });

  it("refuses an assistant message or a message of another chat, changing nothing", async () => {
    await reset(["u1", "a1"]);
    expect(await truncateChatAt(database.sql, { chatId, messageId: "a1", inclusive: true })).toBe(
      false,
    );
    expect(
      await truncateChatAt(database.sql, { chatId: "other", messageId: "u1", inclusive: true }),
    ).toBe(false);
    expect(await loadChatMessages(database.sql, chatId)).toHaveLength(2);
  });

  it("drops a compaction that covered a removed message", async () => {
    await reset(["u1", "a1", "u2", "a2"]);
    await database.db.chat.update({
      where: { id: chatId },
      data: { compactionSummary: "earlier talk", compactedThroughId: "a1" },
    });
    await truncateChatAt(database.sql, { chatId, messageId: "u1", inclusive: false });
    const chat = await database.db.chat.findUniqueOrThrow({ where: { id: chatId } });
    expect(chat.compactionSummary).toBeNull();
    expect(chat.compactedThroughId).toBeNull();
  });

  it("removes the messages and the compaction in one transaction", async () => {
    await reset(["u1", "a1", "u2", "a2"]);
    await database.db.chat.update({
      where: { id: chatId },
      data: { compactionSummary: "earlier talk", compactedThroughId: "a1" },
    });
    const seen: SqlStatementEvent[] = [];
    const stop = observeSql((event) => seen.push(event));
    try {
      await truncateChatAt(database.sql, { chatId, messageId: "u1", inclusive: false });
    } finally {
      stop();
    }
    const writes = seen.filter((event) => /^\s*(DELETE|UPDATE)/.test(event.text));
    expect(writes.map((event) => event.text.trim().split(" ")[0])).toEqual(["DELETE", "UPDATE"]);
    expect(seen.every((event) => event.inTransaction)).toBe(true);
  });
});
