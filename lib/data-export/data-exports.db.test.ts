import JSZip from "jszip";
import { describe, expect, it, vi } from "vitest";
import { createUserInWorkspace } from "@/lib/accounts";
import { registerAppTestWorld } from "@/lib/accounts/testing";
import { testDatabaseProvider } from "@/lib/db/testing";
import type { Actor } from "@/lib/harness";
import type { JobQueue } from "@/lib/jobs/job-queue";
import { sqlForDb } from "@/lib/sql-storage/sql";
vi.mock("server-only", () => ({}));

/** Issue 27, item 4: "Download my data" — a person's chats, memory and chat notes, nobody else's. */
/** A queue that only records what was enqueued: the tests run the job themselves. */
function recordingQueue(): JobQueue & { enqueued: { name: string; payload: unknown }[] } {
  const enqueued: { name: string; payload: unknown }[] = [];
  return {
    enqueued,
    enqueue(name, payload) {
      enqueued.push({ name, payload });
      return Promise.resolve(`job-${enqueued.length}`);
    },
    work: () => Promise.resolve(),
    getJob: () => Promise.resolve(null),
    stop: () => Promise.resolve(),
  };
}

describe(`a person's data export (${testDatabaseProvider()})`, () => {
  const world = registerAppTestWorld({ role: "member" });

  it("holds the person's chats, memory files byte for byte and chat notes, and nothing of anyone else", async () => {
    const { harnessFor } = await import("@/lib/harness-for-actor");
    const { getPersistentDirs, USER_DIR } = await import("@/lib/workspace-dirs");
    const { appendMessage } = await import("@/lib/chat/messages");
    const { getSql } = await import("@/lib/sql-storage");
    const { dataExportJob, listDataExports, readDataExport, requestDataExport } =
      await import("./index");
    const db = world.database.db;
    const sql = getSql();

    await appendMessage(world.database.sql, world.chatId, {
      id: "m1",
      role: "user",
      parts: [{ type: "text", text: "What is our deploy day?" }],
    });
    await appendMessage(world.database.sql, world.chatId, {
      id: "m2",
      role: "assistant",
      parts: [{ type: "text", text: "Tuesdays." }],
    });
    await (
      await harnessFor(world.actor, world.chatId)
    ).createEntry({ kind: "memory", title: "Deploys", content: "Deploy on Tuesdays." });
    const dirs = getPersistentDirs();
    const pdfBytes = new Uint8Array([0x25, 0x50, 0x44, 0x46, 0x00, 0xff, 0x10, 0x80]);
    for (const [path, content] of [
      ["preferences.md", "Short answers.\n"],
      ["uploads/report.pdf", pdfBytes],
    ] as const) {
      const listing = await dirs.listFiles({ actor: world.actor, harnessDir: USER_DIR });
      const saved = await dirs.saveFile({
        actor: world.actor,
        harnessDir: USER_DIR,
        path,
        content,
        baseCursor: listing.cursor,
        baseContent: null,
      });
      expect(saved.status).toBe("saved");
    }

    // Someone else in the same workspace, with a chat, a note and a memory file of their own.
    const other = await createUserInWorkspace(sqlForDb(db), {
      email: "ole@example.com",
      password: "long-password",
      role: "member",
      workspaceName: "Acme",
    });
    const otherActor: Actor = {
      userId: other.user.id,
      workspaceId: world.actor.workspaceId,
      role: "member",
    };
    const otherChat = await db.chat.create({
      data: { workspaceId: otherActor.workspaceId, userId: otherActor.userId, title: "Ole's" },
    });
    await appendMessage(world.database.sql, otherChat.id, {
      id: "o1",
      role: "user",
      parts: [{ type: "text", text: "Ole's secret question" }],
    });
    await (
      await harnessFor(otherActor, otherChat.id)
    ).createEntry({ kind: "memory", title: "Ole", content: "Ole's own note." });
    const otherListing = await dirs.listFiles({ actor: otherActor, harnessDir: USER_DIR });
    await dirs.saveFile({
      actor: otherActor,
      harnessDir: USER_DIR,
      path: "ole.md",
      content: "Ole's memory.\n",
      baseCursor: otherListing.cursor,
      baseContent: null,
    });

    const queue = recordingQueue();
    const requested = await requestDataExport({ sql, queue, actor: world.actor });
    expect(requested.status).toBe("queued");
    expect(queue.enqueued).toEqual([{ name: "data-export", payload: { exportId: requested.id } }]);
    // One at a time per person.
    await expect(requestDataExport({ sql, queue, actor: world.actor })).rejects.toMatchObject({
      code: "conflict:export",
    });
    await dataExportJob({ sql: () => sql })({
      payload: { exportId: requested.id },
      retryCount: 0,
    });
    const [listed] = await listDataExports({ sql, actor: world.actor });
    expect(listed).toMatchObject({ id: requested.id, status: "ready" });

    const read = await readDataExport({ sql, actor: world.actor, id: requested.id });
    expect(read?.zip.length).toBe(listed!.bytes);
    const zip = await JSZip.loadAsync(read!.zip);
    const names = Object.keys(zip.files).filter((name) => !zip.files[name]!.dir);
    expect(names.sort()).toEqual([
      "README.md",
      "chat-notes/001-notes/memory-deploys.md",
      "chats/001-notes.json",
      "chats/001-notes.md",
      "memory/preferences.md",
      "memory/uploads/report.pdf",
    ]);
    expect(await zip.file("memory/uploads/report.pdf")!.async("uint8array")).toEqual(pdfBytes);
    expect(await zip.file("memory/preferences.md")!.async("string")).toBe("Short answers.\n");
    const chat = JSON.parse(await zip.file("chats/001-notes.json")!.async("string")) as {
      messages: { id: string; parts: { text: string }[] }[];
    };
    expect(chat.messages.map((message) => message.parts[0]!.text)).toEqual([
      "What is our deploy day?",
      "Tuesdays.",
    ]);
    expect(await zip.file("chats/001-notes.md")!.async("string")).toContain("Tuesdays.");
    expect(await zip.file("chat-notes/001-notes/memory-deploys.md")!.async("string")).toContain(
      "Deploy on Tuesdays.",
    );
    const everything = (
      await Promise.all(names.map((name) => zip.file(name)!.async("string")))
    ).join("\n");
    expect(everything).not.toMatch(/Ole/);

    // Nobody else can read it: another person, or the same person in another workspace.
    expect(await readDataExport({ sql, actor: otherActor, id: requested.id })).toBeNull();
    expect(
      await readDataExport({
        sql,
        actor: { ...world.actor, workspaceId: "another-workspace" },
        id: requested.id,
      }),
    ).toBeNull();
    expect(await listDataExports({ sql, actor: otherActor })).toEqual([]);
  });

  it("is removed with its bytes once it expires, and a retried build replaces a half-stored one", async () => {
    const { getSql } = await import("@/lib/sql-storage");
    const {
      dataExportJob,
      listDataExports,
      readDataExport,
      removeExpiredExports,
      requestDataExport,
    } = await import("./index");
    const sql = getSql();
    const queue = recordingQueue();
    const requested = await requestDataExport({ sql, queue, actor: world.actor });
    // A crashed attempt left a stray chunk behind.
    await sql.run(`INSERT INTO "DataExportChunk" ("exportId", "seq", "bytes") VALUES (?, ?, ?)`, [
      requested.id,
      7,
      Buffer.from("stale"),
    ]);
    await dataExportJob({ sql: () => sql })({ payload: { exportId: requested.id }, retryCount: 1 });
    const read = await readDataExport({ sql, actor: world.actor, id: requested.id });
    expect(read).not.toBeNull();
    await expect(JSZip.loadAsync(read!.zip)).resolves.toBeDefined();

    const later = new Date(Date.now() + 8 * 24 * 60 * 60 * 1000);
    expect(await removeExpiredExports({ sql, now: later })).toBeGreaterThanOrEqual(1);
    expect(await readDataExport({ sql, actor: world.actor, id: requested.id })).toBeNull();
    expect(await listDataExports({ sql, actor: world.actor, now: later })).toEqual([]);
    const chunks = await sql.all(`SELECT 1 FROM "DataExportChunk" WHERE "exportId" = ?`, [
      requested.id,
    ]);
    expect(chunks).toEqual([]);
  });
});
