import { describe, expect, it, vi } from "vitest";
import { registerAppTestWorld } from "@/lib/accounts/testing";
import { createUserInWorkspace } from "@/lib/accounts";
import { testDatabaseProvider } from "@/lib/db/testing";
import type { Actor } from "@/lib/harness";
import { sqlForDb } from "@/lib/sql-storage/sql";
vi.mock("server-only", () => ({}));

/** Issue 15, item 7: one list of what Cairn remembers about a person, with where each came from. */
describe(`the Memory page's list (${testDatabaseProvider()})`, () => {
  const world = registerAppTestWorld({ role: "member" });

  it("is empty for a fresh person", async () => {
    const { listMemories } = await import("./index");
    const memories = await listMemories(world.actor);
    expect(memories.files).toEqual([]);
    expect(memories.entries).toEqual([]);
    expect(memories.hasChats).toBe(true);
    expect(memories.canWriteGlobal).toBe(false);
  });

  it("lists own chats' local memories, global ones and memory files, each with its origin; not others' chats", async () => {
    const { harnessFor } = await import("@/lib/harness-for-actor");
    const { getPersistentDirs, USER_DIR } = await import("@/lib/workspace-dirs");
    const { listMemories } = await import("./index");
    const db = world.database.db;

    // A turn of the member's chat writes a local memory.
    await db.turn.create({
      data: {
        chatId: world.chatId,
        userId: world.actor.userId,
        status: "completed",
        instructions: "[]",
        startedAt: new Date(),
      },
    });
    const local = await (
      await harnessFor(world.actor, world.chatId)
    ).createEntry({
      kind: "memory",
      scope: "local",
      title: "Tea",
      content: "Eve likes tea.",
      source: "agent",
    });
    // An editor of the same workspace writes a global memory by hand.
    const other = await createUserInWorkspace(sqlForDb(db), {
      email: "ed@example.com",
      password: "long-password",
      role: "editor",
      workspaceName: "Acme",
      name: "Ed",
    });
    const editor: Actor = {
      userId: other.user.id,
      workspaceId: world.actor.workspaceId,
      role: "editor",
    };
    await (
      await harnessFor(editor, null)
    ).createEntry({ kind: "memory", global: true, title: "Office", content: "Office is in Oslo." });
    // The editor's own chat has a local memory the member must not see.
    const editorChat = await db.chat.create({
      data: { workspaceId: world.actor.workspaceId, userId: editor.userId, title: "Ed's" },
    });
    await (
      await harnessFor(editor, editorChat.id)
    ).createEntry({ kind: "memory", scope: "local", title: "Secret", content: "Ed's own." });
    // A memory file saved from the Files page.
    const dirs = getPersistentDirs();
    const listing = await dirs.listFiles({ actor: world.actor, harnessDir: USER_DIR });
    const saved = await dirs.saveFile({
      actor: world.actor,
      harnessDir: USER_DIR,
      path: "preferences.md",
      content: "Short answers.\n",
      baseCursor: listing.cursor,
      baseContent: null,
    });
    expect(saved.status).toBe("saved");

    const memories = await listMemories(world.actor);
    expect(memories.entries.map((entry) => entry.title).sort()).toEqual(["Office", "Tea"]);
    const tea = memories.entries.find((entry) => entry.id === local.id)!;
    expect(tea).toMatchObject({
      scope: "local",
      chatId: world.chatId,
      chatTitle: "Notes",
      editable: true,
      origin: { label: "A chat turn", detail: "Notes", href: `/chat/${world.chatId}` },
      lastChange: null,
    });
    const office = memories.entries.find((entry) => entry.title === "Office")!;
    expect(office).toMatchObject({ scope: "global", editable: false, origin: { label: "Ed" } });
    expect(memories.files).toEqual([
      expect.objectContaining({
        path: "preferences.md",
        text: "Short answers.\n",
        lastChange: expect.objectContaining({ label: "You, by hand" }),
      }),
    ]);
    // The editor may edit the global one.
    const editorView = await listMemories(editor);
    expect(editorView.entries.find((entry) => entry.title === "Office")?.editable).toBe(true);
    expect(editorView.entries.map((entry) => entry.title)).not.toContain("Tea");
  });
});
