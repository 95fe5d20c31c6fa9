import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createUserInWorkspace } from "@/lib/accounts";
import { registerTestDatabase, testDatabaseProvider } from "@/lib/db/testing";
import { appendMessage, loadChatMessages } from "./messages";
import { claimChat, holdChatClaim, releaseChatClaim, renewChatClaim } from "./turn-claim";

describe(`one turn at a time per chat (${testDatabaseProvider()})`, () => {
  const database = registerTestDatabase();
  let chatId: string;
  beforeAll(async () => {
    const { user, workspace } = await createUserInWorkspace(database.sql, {
      email: "ada@example.com",
      password: "long-password",
      role: "admin",
      workspaceName: "Acme",
    });
    const chat = await database.db.chat.create({
      data: { workspaceId: workspace.id, userId: user.id, title: "Notes" },
    });
    chatId = chat.id;
  });
  beforeEach(async () => {
    await database.db.chatTurnClaim.deleteMany();
    await database.db.chatMessage.deleteMany();
  });

  it("lets exactly one of 20 concurrent turns claim the chat", async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        claimChat(database.sql, { chatId, turnId: `turn-${index}` }),
      ),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    const winner = `turn-${results.indexOf(true)}`;
    const row = await database.db.chatTurnClaim.findUniqueOrThrow({ where: { chatId } });
    expect(row.turnId).toBe(winner);
    // Released, the chat can be claimed again.
    await releaseChatClaim(database.sql, { chatId, turnId: winner });
    expect(await claimChat(database.sql, { chatId, turnId: "next" })).toBe(true);
  });

  it("never releases or renews another turn's claim", async () => {
    expect(await claimChat(database.sql, { chatId, turnId: "mine" })).toBe(true);
    await releaseChatClaim(database.sql, { chatId, turnId: "other" });
    expect(await renewChatClaim(database.sql, { chatId, turnId: "other" })).toBe(false);
    expect(await claimChat(database.sql, { chatId, turnId: "other" })).toBe(false);
    expect(await renewChatClaim(database.sql, { chatId, turnId: "mine" })).toBe(true);
  });

  it("lets a turn take over a claim whose lease ran out (a dead process)", async () => {
    const now = Date.now();
    expect(await claimChat(database.sql, { chatId, turnId: "dead", now, leaseMs: 1000 })).toBe(
      true,
    );
    expect(await claimChat(database.sql, { chatId, turnId: "early", now: now + 999 })).toBe(false);
    const takeovers = await Promise.all(
      ["a", "b", "c", "d"].map((turnId) =>
        claimChat(database.sql, { chatId, turnId, now: now + 1000 }),
      ),
    );
    expect(takeovers.filter(Boolean)).toHaveLength(1);
    // The dead turn cannot renew what it lost.
    expect(await renewChatClaim(database.sql, { chatId, turnId: "dead" })).toBe(false);
  });

  it("holds until released, and release is idempotent", async () => {
    const held = await holdChatClaim(database.sql, { chatId, turnId: "held" });
    expect(held).not.toBeNull();
    expect(await holdChatClaim(database.sql, { chatId, turnId: "second" })).toBeNull();
    await held!.release();
    await held!.release();
    expect(await database.db.chatTurnClaim.count()).toBe(0);
  });

  it("appends 30 concurrent messages without losing or failing one", async () => {
    await Promise.all(
      Array.from({ length: 30 }, (_, index) =>
        appendMessage(database.sql, chatId, {
          id: `message-${index}`,
          role: "user",
          parts: [{ type: "text", text: `line ${index}` }],
        }),
      ),
    );
    const messages = await loadChatMessages(database.sql, chatId);
    expect(new Set(messages.map((message) => message.id)).size).toBe(30);
    const rows = await database.db.chatMessage.findMany({
      where: { chatId },
      orderBy: { seq: "asc" },
    });
    expect(rows.map((row) => row.seq)).toEqual(Array.from({ length: 30 }, (_, index) => index + 1));
  });
});
