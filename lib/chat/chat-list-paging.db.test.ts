import { describe, expect, it, vi } from "vitest";
import { createUserInWorkspace } from "@/lib/accounts";
import { registerAppTestWorld } from "@/lib/accounts/testing";
import { testDatabaseProvider } from "@/lib/db/testing";
import type { Actor } from "@/lib/harness";
import { sqlForDb } from "@/lib/sql-storage/sql";
vi.mock("server-only", () => ({}));

const CHATS = 10_000;

/**
 * Issue 31, finding 10: with 3,000 chats the owner's /memory answered 500 (an `IN` list over
 * every chat id) and `listChats` had no limit. Everything that listed a person's chats must work
 * with 10,000 of them: paged, each page one bounded statement, no chat missed or repeated.
 */
describe(`a person with ${CHATS.toLocaleString("en")} chats (${testDatabaseProvider()})`, () => {
  const world = registerAppTestWorld({ role: "member" });
  let other: Actor;
  const budgetIds = new Set<string>();
  const memoryChats: string[] = [];

  it("are stored in bulk", async () => {
    const db = world.database.db;
    const base = Date.UTC(2025, 0, 1);
    const rows = [];
    // The world's own chat ("Notes") is the 10,000th. Times repeat in threes, so pages must
    // break ties by id.
    for (let index = 1; index < CHATS; index += 1) {
      const id = `chat-${String(index).padStart(5, "0")}`;
      const title = index % 500 === 0 ? `Budget ${index}` : `Chat ${index}`;
      if (title.startsWith("Budget")) budgetIds.add(id);
      rows.push({
        id,
        workspaceId: world.actor.workspaceId,
        userId: world.actor.userId,
        title,
        createdAt: new Date(base),
        updatedAt: new Date(base + Math.floor(index / 3) * 1000),
      });
    }
    for (let start = 0; start < rows.length; start += 1000) {
      await db.chat.createMany({ data: rows.slice(start, start + 1000) });
    }
    const { user } = await createUserInWorkspace(sqlForDb(db), {
      email: "olga@example.com",
      password: "long-password",
      role: "member",
      workspaceName: "Acme",
    });
    other = { userId: user.id, workspaceId: world.actor.workspaceId, role: "member" };
    await db.chat.create({
      data: {
        id: "olga-chat",
        workspaceId: other.workspaceId,
        userId: other.userId,
        title: "Budget Olga",
      },
    });
    expect(await db.chat.count({ where: { userId: world.actor.userId } })).toBe(CHATS);
  });

  it("page through the chat list newest first, each chat once", async () => {
    const { listChats, CHAT_PAGE_SIZE } = await import("./queries");
    const seen: string[] = [];
    let previous: { updatedAt: Date; id: string } | undefined;
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await listChats(world.actor, { cursor, limit: 200 });
      expect(page.items.length).toBeLessThanOrEqual(200);
      for (const chat of page.items) {
        if (previous) {
          const order =
            chat.updatedAt.getTime() - previous.updatedAt.getTime() ||
            (chat.id < previous.id ? -1 : 1);
          expect(order, `${previous.id} then ${chat.id}`).toBeLessThan(0);
        }
        previous = chat;
        seen.push(chat.id);
      }
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(CHATS / 200);
    expect(seen).toHaveLength(CHATS);
    expect(new Set(seen).size).toBe(CHATS);
    expect(seen).toContain(world.chatId);
    expect(seen).not.toContain("olga-chat");

    const first = await listChats(world.actor);
    expect(first.items).toHaveLength(CHAT_PAGE_SIZE);
    expect(first.items.map((chat) => chat.id)).toEqual(seen.slice(0, CHAT_PAGE_SIZE));
    const second = await listChats(world.actor, { cursor: first.nextCursor });
    expect(second.items.map((chat) => chat.id)).toEqual(
      seen.slice(CHAT_PAGE_SIZE, 2 * CHAT_PAGE_SIZE),
    );
    // No page is larger than the maximum, whatever is asked; a cursor it did not hand out
    // gives the first page.
    expect((await listChats(world.actor, { limit: 50_000 })).items).toHaveLength(200);
    expect((await listChats(world.actor, { cursor: "%7Bgarbage" })).items[0]?.id).toBe(seen[0]);
  });

  it("search every title, not only the loaded ones, a page at a time", async () => {
    const { listChats } = await import("./queries");
    const found: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await listChats(world.actor, { query: "  BUDGET ", cursor, limit: 7 });
      found.push(...page.items.map((chat) => chat.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(found.sort()).toEqual([...budgetIds].sort());
    expect((await listChats(world.actor, { query: "100%" })).items).toEqual([]);
  });

  it("load the Memory page with chat memories from old and new chats, not someone else's", async () => {
    const { harnessFor } = await import("@/lib/harness-for-actor");
    const { listMemories } = await import("@/lib/memory");
    memoryChats.push("chat-00001", "chat-05000", "chat-09999", world.chatId);
    for (const chatId of memoryChats) {
      await (
        await harnessFor(world.actor, chatId)
      ).createEntry({ kind: "memory", scope: "local", title: `In ${chatId}`, content: "Kept." });
    }
    await (
      await harnessFor(other, "olga-chat")
    ).createEntry({ kind: "memory", scope: "local", title: "Olga's", content: "Private." });

    const { observeSql } = await import("@/lib/sql-storage/sql");
    let statements = 0;
    const stop = observeSql(() => (statements += 1));
    const memories = await listMemories(world.actor).finally(stop);
    // Bounded by the memories shown, not by the chats: with 10,000 chats it ran 10,009 (one
    // query per chat) and, on SQLite, an `IN` list past the bound-parameter limit.
    expect(statements).toBeLessThan(100);
    expect(memories.hasChats).toBe(true);
    const local = memories.entries.filter((entry) => entry.scope === "local");
    expect(local.map((entry) => entry.chatId).sort()).toEqual([...memoryChats].sort());
    expect(local.find((entry) => entry.chatId === "chat-00001")).toMatchObject({
      chatTitle: "Chat 1",
      title: "In chat-00001",
      origin: { label: "You" },
    });
    expect(memories.entries.map((entry) => entry.title)).not.toContain("Olga's");
  });

  it("list the refinement timeline and chat titles in bounded statements", async () => {
    const { listVisibleRefinements } = await import("@/lib/refinement-runs/queries");
    const { ownChatTitles } = await import("./queries");

    await world.database.db.refinement.createMany({
      data: [
        { id: "r-old", chatId: "chat-00001", scope: "local" },
        { id: "r-global", chatId: null, scope: "global" },
        { id: "r-olga", chatId: "olga-chat", scope: "local" },
      ].map((row) => ({
        ...row,
        workspaceId: world.actor.workspaceId,
        trigger: "explicit",
        status: "applied",
      })),
    });
    const visible = async (filters: { scope?: "local" | "global"; chatId?: string }) =>
      (await listVisibleRefinements({ actor: world.actor, filters, limit: 50 })).items
        .map((refinement) => refinement.id)
        .sort();
    expect(await visible({})).toEqual(["r-global", "r-old"]);
    expect(await visible({ scope: "local" })).toEqual(["r-old"]);
    expect(await visible({ scope: "global" })).toEqual(["r-global"]);
    expect(await visible({ chatId: "chat-00001" })).toEqual(["r-old"]);
    expect(await visible({ chatId: "olga-chat" })).toEqual([]);
    const ids = Array.from(
      { length: CHATS },
      (_, index) => `chat-${String(index).padStart(5, "0")}`,
    );
    const titles = await ownChatTitles(world.actor, [...ids, "olga-chat"]);
    expect(titles.size).toBe(CHATS - 1);
    expect(titles.get("chat-00500")).toBe("Budget 500");
    expect(titles.has("olga-chat")).toBe(false);
  });
});
