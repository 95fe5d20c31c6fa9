import { describe, expect, it, vi } from "vitest";

import { registerAppTestWorld } from "@/lib/accounts/testing";
import { testDatabaseProvider } from "@/lib/db/testing";
vi.mock("server-only", () => ({}));

/**
 * Issue 27, item 3: company-knowledge commits and global harness changes are recorded by the
 * writes themselves (every door), with their via; memory and local entries are not.
 */
describe(`what the dirs and the harness record (${testDatabaseProvider()})`, () => {
  const world = registerAppTestWorld({ role: "editor" });

  it("records a company commit and a global entry, and nothing for memory or a local entry", async () => {
    const { getPersistentDirs, USER_DIR, COMPANY_DIR } = await import("@/lib/workspace-dirs");
    const { harnessFor } = await import("@/lib/harness-for-actor");
    const dirs = getPersistentDirs();
    const actor = world.actor;
    const db = world.database.db;
    for (const harnessDir of [USER_DIR, COMPANY_DIR]) {
      const listing = await dirs.listFiles({ actor, harnessDir });
      const saved = await dirs.saveFile({
        actor,
        harnessDir,
        path: "note.md",
        content: "hello\n",
        baseCursor: listing.cursor,
        baseContent: null,
      });
      expect(saved.status).toBe("saved");
    }
    await (
      await harnessFor(actor, world.chatId)
    ).createEntry({ kind: "memory", scope: "local", title: "Local", content: "only here" });
    await (
      await harnessFor(actor, null)
    ).createEntry({ kind: "memory", global: true, title: "Team", content: "for all" });

    const events = await db.auditEvent.findMany({ where: { workspaceId: actor.workspaceId } });
    expect(events.map((event) => event.kind).sort()).toEqual([
      "company.committed",
      "harness.global_changed",
    ]);
    const commit = events.find((event) => event.kind === "company.committed")!;
    expect(commit).toMatchObject({
      actorId: actor.userId,
      via: "web",
      targetType: "dir",
      targetId: `company:${actor.workspaceId}`,
    });
    expect(JSON.parse(commit.details)).toMatchObject({ created: ["note.md"], source: "editor" });
    const global = events.find((event) => event.kind === "harness.global_changed")!;
    expect(global).toMatchObject({ actorId: actor.userId, via: "web", targetType: "entry" });
    expect(JSON.parse(global.details)).toMatchObject({
      changes: [expect.objectContaining({ action: "create", title: "Team" })],
    });
  });
});
