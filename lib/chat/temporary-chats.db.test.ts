// Issue 26: temporary chats are never listed and are deleted 24 hours after they started, by a
// job on the durable queue (the `Job` table on SQLite, pg-boss on PostgreSQL).
import { afterEach, describe, expect, it, vi } from "vitest";
import { registerAppTestWorld } from "@/lib/accounts/testing";
import { testDatabaseProvider } from "@/lib/db/testing";
import { testJobQueues } from "@/lib/jobs/testing";
import { searchPassages } from "@/lib/search";
import { sqlFor } from "@/lib/sql-storage/sql";
import { listChats } from "./queries";
import {
  deleteExpiredTemporaryChats,
  scheduleTemporaryChatDeletion,
  TEMPORARY_CHAT_DELETE_JOB,
  TEMPORARY_CHAT_LIFETIME_SECONDS,
  temporaryChatDeletionJob,
} from "./temporary-chats";
vi.mock("server-only", () => ({}));

const HOUR = 60 * 60 * 1000;

describe(`temporary chats (${testDatabaseProvider()})`, () => {
  const world = registerAppTestWorld({ role: "member", email: "ada@example.com" });
  const queues = testJobQueues(() => world.database.target);
  afterEach(() => queues.closeAll());

  async function chat(title: string, options: { temporary?: boolean; ageHours?: number } = {}) {
    const { database, actor } = world;
    const createdAt = new Date(Date.now() - (options.ageHours ?? 0) * HOUR);
    const row = await database.db.chat.create({
      data: {
        workspaceId: actor.workspaceId,
        userId: actor.userId,
        title,
        temporary: options.temporary ?? false,
        createdAt,
      },
    });
    await database.db.chatMessage.create({
      data: {
        id: `${row.id}-m1`,
        chatId: row.id,
        role: "user",
        parts: JSON.stringify([{ type: "text", text: `hello from ${title}` }]),
        seq: 1,
      },
    });
    await database.db.turn.create({
      data: { chatId: row.id, userId: actor.userId, status: "completed" },
    });
    return row.id;
  }

  it("lists permanent chats only, also when searching", async () => {
    const { database, actor } = world;
    const kept = await chat("Kept plans");
    const temporary = await chat("Secret plans", { temporary: true });
    const page = await listChats(actor, { sql: database.sql });
    expect(page.items.map((item) => item.id)).toContain(kept);
    expect(page.items.map((item) => item.id)).not.toContain(temporary);
    const searched = await listChats(actor, { sql: database.sql, query: "plans" });
    expect(searched.items.map((item) => item.id)).toEqual([kept]);
    // ⌘K and the agent's search find the permanent chat's message, never the temporary one's.
    const hits = await searchPassages(sqlFor(database.target), {
      actor,
      query: "hello",
      kinds: ["chat"],
      limit: 20,
    });
    expect(hits.map((hit) => hit.chatId)).toContain(kept);
    expect(hits.map((hit) => hit.chatId)).not.toContain(temporary);
  });

  it("deletes temporary chats 24 hours old with their messages and turns, and nothing else", async () => {
    const { database } = world;
    const old = await chat("Old temporary", { temporary: true, ageHours: 25 });
    const young = await chat("Young temporary", { temporary: true, ageHours: 23 });
    const permanent = await chat("Old permanent", { ageHours: 48 });
    const deleted = await deleteExpiredTemporaryChats({ sql: sqlFor(database.target) });
    expect(deleted).toBeGreaterThanOrEqual(1);
    const left = (await database.db.chat.findMany({ select: { id: true } })).map((c) => c.id);
    expect(left).not.toContain(old);
    expect(left).toEqual(expect.arrayContaining([young, permanent]));
    expect(await database.db.chatMessage.count({ where: { chatId: old } })).toBe(0);
    expect(await database.db.turn.count({ where: { chatId: old } })).toBe(0);
    expect(await database.db.chatMessage.count({ where: { chatId: young } })).toBe(1);
    // 24 hours later the young one goes too.
    await deleteExpiredTemporaryChats({
      sql: sqlFor(database.target),
      now: new Date(Date.now() + 2 * HOUR),
    });
    expect(await database.db.chat.count({ where: { id: young } })).toBe(0);
    expect(await database.db.chat.count({ where: { id: permanent } })).toBe(1);
  });

  it("the deletion job, enqueued when the chat starts, deletes it once its 24 hours are up", async () => {
    const { database } = world;
    const due = await chat("Due temporary", { temporary: true, ageHours: 24.5 });
    const queue = queues.open();
    // Enqueued as the app does at creation, with a day's delay…
    const later = await scheduleTemporaryChatDeletion({ queue, chatId: "not-yet" });
    expect(later).not.toBeNull();
    expect((await queue.getJob(TEMPORARY_CHAT_DELETE_JOB, later!))?.state).toBe("created");
    // …and one already due (the chat is older than a day).
    const id = await scheduleTemporaryChatDeletion({ queue, chatId: due, startAfterSeconds: 0 });
    expect(id).not.toBeNull();
    await queue.work(
      TEMPORARY_CHAT_DELETE_JOB,
      temporaryChatDeletionJob({ sql: () => sqlFor(database.target) }),
      {
        pollIntervalSeconds: 0.5,
      },
    );
    await vi.waitFor(
      async () =>
        expect((await queue.getJob(TEMPORARY_CHAT_DELETE_JOB, id!))?.state).toBe("completed"),
      { timeout: 25_000, interval: 200 },
    );
    expect(await database.db.chat.count({ where: { id: due } })).toBe(0);
    expect(TEMPORARY_CHAT_LIFETIME_SECONDS).toBe(86_400);
  });
});
