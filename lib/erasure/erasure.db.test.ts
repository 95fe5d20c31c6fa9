import JSZip from "jszip";
import { createHash } from "node:crypto";
import { describe, expect, it, vi } from "vitest";

import { createUserInWorkspace } from "@/lib/accounts";
import { registerAppTestWorld } from "@/lib/accounts/testing";
import { testDatabaseProvider } from "@/lib/db/testing";
import type { Actor } from "@/lib/harness";
import { sqlFor } from "@/lib/sql-storage/sql";
import { sqlForDb } from "@/lib/sql-storage/sql";
vi.mock("server-only", () => ({}));

const sha = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

/**
 * Issue 27, item 4: "Delete my memory" and an admin's "erase this person" leave no readable old
 * version — checked through every read path: the dir's history and one old commit, restore,
 * the Memory page's loader, the export, search, and the stored bodies themselves.
 */
describe(`erasure (${testDatabaseProvider()})`, () => {
  // Eve is an editor, so she also contributes to company knowledge (which must stay).
  const world = registerAppTestWorld({ role: "editor", email: "eve@example.com" });

  async function setUp() {
    const { getPersistentDirs, USER_DIR, COMPANY_DIR } = await import("@/lib/workspace-dirs");
    const { harnessFor } = await import("@/lib/harness-for-actor");
    const db = world.database.db;
    const dirs = getPersistentDirs();
    const eve = world.actor;
    const save = async (actor: Actor, harnessDir: string, path: string, content: string) => {
      const listing = await dirs.listFiles({ actor, harnessDir });
      const current = await dirs.readFile({ actor, harnessDir, path });
      const result = await dirs.saveFile({
        actor,
        harnessDir,
        path,
        content,
        baseCursor: listing.cursor,
        baseContent: current?.text ?? null,
      });
      expect(result.status).toBe("saved");
    };
    // Two versions of a private memory file: the first must not survive anywhere.
    await save(eve, USER_DIR, "secret.md", "zebraalpha plan\n");
    await save(eve, USER_DIR, "secret.md", "zebrabeta plan\n");
    // A body shared with company knowledge (same bytes): it must stay for the company file.
    await save(eve, USER_DIR, "shared.md", "Office hours are nine to five.\n");
    await save(eve, COMPANY_DIR, "hours.md", "Office hours are nine to five.\n");
    // A chat-local memory entry with two revisions.
    const harness = await harnessFor(eve, world.chatId);
    const entry = await harness.createEntry({
      kind: "memory",
      scope: "local",
      title: "Pet",
      content: "Eve's cat is called zebragamma.",
      source: "agent",
    });
    await harness.updateEntry({
      kind: "memory",
      id: entry.id,
      expectedVersion: entry.version,
      content: "Eve's cat is called zebradelta.",
    } as never);
    const history = await dirs.listHistory({ actor: eve, harnessDir: USER_DIR });
    const first = history.commits.at(-1)!;
    expect(first.created).toContain("secret.md");
    return { dirs, db, eve, first, USER_DIR, COMPANY_DIR, entry };
  }

  async function readPaths(actor: Actor, firstCommitId: string, options: { restore: boolean }) {
    const { getPersistentDirs, USER_DIR } = await import("@/lib/workspace-dirs");
    const { listMemories } = await import("@/lib/memory");
    const { buildPersonalExport } = await import("@/lib/data-export");
    const { searchPassages } = await import("@/lib/search");
    const dirs = getPersistentDirs();
    const sql = sqlFor(world.database.target);
    const history = await dirs.listHistory({ actor, harnessDir: USER_DIR });
    const commit = await dirs.readCommit({ actor, harnessDir: USER_DIR, id: firstCommitId });
    const memories = await listMemories(actor);
    const { zip } = await buildPersonalExport({ sql, actor });
    const archive = await JSZip.loadAsync(zip);
    let exported = "";
    for (const file of Object.values(archive.files)) {
      if (!file.dir && !file.name.startsWith("chats/"))
        exported += `${file.name}\n${await file.async("string")}\n`;
    }
    const hits = await searchPassages(sql, {
      actor,
      query: "zebraalpha OR zebrabeta OR zebragamma OR zebradelta",
    });
    const hitsEach = [];
    for (const word of ["zebraalpha", "zebrabeta", "zebragamma", "zebradelta"]) {
      hitsEach.push(...(await searchPassages(sql, { actor, query: word })));
    }
    const bodies = await world.database.db.fileBody.findMany({
      where: { sha256: { in: [sha("zebraalpha plan\n"), sha("zebrabeta plan\n")] } },
    });
    const revisions = await world.database.db.harnessRevision.findMany({
      where: { workspaceId: actor.workspaceId, scope: "local" },
    });
    // Last: a restore that worked would change what the others read.
    const restore = options.restore
      ? await dirs.restoreCommit({ actor, harnessDir: USER_DIR, id: firstCommitId }).then(
          (result) => result.status,
          (error: { code?: string }) => error.code ?? "error",
        )
      : null;
    return {
      history,
      commit,
      restore,
      memories,
      exported,
      hits: [...hits, ...hitsEach],
      bodies,
      revisions,
    };
  }

  it("'Delete my memory' leaves no readable old version, keeps shared bodies and the chats", async () => {
    const { deleteOwnMemory } = await import("./index");
    const { db, eve, first, COMPANY_DIR, dirs } = await setUp();

    const before = await readPaths(eve, first.id, { restore: false });
    // The paths do read the data before: the checks below are not vacuous.
    expect(before.history.commits.length).toBeGreaterThanOrEqual(3);
    expect(before.commit).not.toBeNull();
    expect(before.memories.files.map((file) => file.path).sort()).toEqual([
      "secret.md",
      "shared.md",
    ]);
    expect(before.exported).toContain("zebrabeta");
    expect(before.exported).toContain("zebradelta");
    expect(before.hits.length).toBeGreaterThan(0);
    expect(before.bodies).toHaveLength(2);

    const result = await deleteOwnMemory({ sql: sqlFor(world.database.target), actor: eve });
    expect(result).toMatchObject({ files: 2, entries: 1 });

    const after = await readPaths(eve, first.id, { restore: true });
    expect(after.history.commits).toEqual([]);
    expect(after.commit).toBeNull();
    expect(after.restore).toBe("not_found:commit");
    expect(after.memories.files).toEqual([]);
    expect(after.memories.entries.filter((entry) => entry.scope === "local")).toEqual([]);
    for (const word of ["zebraalpha", "zebrabeta", "zebragamma", "zebradelta"])
      expect(after.exported).not.toContain(word);
    expect(after.hits).toEqual([]);
    expect(after.bodies).toEqual([]);
    // No revision keeps the entry's words (a tombstone keeps its key only).
    expect(JSON.stringify(after.revisions)).not.toMatch(/zebra/);

    // The company file with the same bytes still reads; the chat is still there.
    const hours = await dirs.readFile({ actor: eve, harnessDir: COMPANY_DIR, path: "hours.md" });
    expect(hours?.text).toBe("Office hours are nine to five.\n");
    expect(await db.chat.count({ where: { id: world.chatId } })).toBe(1);
    // Recorded, in the same transaction as the deletion.
    expect(
      await db.auditEvent.count({ where: { kind: "memory.deleted", actorId: eve.userId } }),
    ).toBe(1);
  });

  it("an admin's erase removes the person's chats, memory and account; company knowledge stays, by 'a former member'", async () => {
    const { erasePerson } = await import("./index");
    const { listAuditEvents } = await import("@/lib/audit");
    const { db, eve, first, COMPANY_DIR, dirs } = await setUp();
    const admin = await createUserInWorkspace(sqlForDb(db), {
      email: "ada@example.com",
      password: "long-password",
      role: "admin",
      workspaceName: "Acme",
      name: "Ada",
    });
    const adminActor: Actor = {
      userId: admin.user.id,
      workspaceId: eve.workspaceId,
      role: "admin",
    };
    const sql = sqlFor(world.database.target);

    // An open suggestion of hers (her words, not yet the team's) and an approved one.
    const now = new Date();
    for (const status of ["open", "approved"]) {
      await db.suggestion.create({
        data: {
          id: `s-${status}`,
          workspaceId: eve.workspaceId,
          authorId: eve.userId,
          target: "company",
          source: "editor",
          status,
          title: "policy.md",
          payload: "{}",
          createdAt: now,
          updatedAt: now,
        },
      });
    }

    const result = await erasePerson({ sql, admin: adminActor, userId: eve.userId });
    expect(result).toMatchObject({ chats: 1, suggestions: 1, accountDeleted: true });
    expect((await db.suggestion.findMany()).map((row) => row.id)).toEqual(["s-approved"]);

    expect(await db.user.count({ where: { id: eve.userId } })).toBe(0);
    expect(await db.chat.count({ where: { userId: eve.userId } })).toBe(0);
    expect(await db.chatMessage.count({ where: { chatId: world.chatId } })).toBe(0);
    expect(await db.persistentFile.count({ where: { dirKey: `user:${eve.userId}` } })).toBe(0);
    expect(await db.dirCommit.count({ where: { dirKey: `user:${eve.userId}` } })).toBe(0);
    expect(await db.dirCommit.count({ where: { id: first.id } })).toBe(0);
    expect(
      await db.fileBody.count({
        where: { sha256: { in: [sha("zebraalpha plan\n"), sha("zebrabeta plan\n")] } },
      }),
    ).toBe(0);
    expect(await db.searchPassage.count({ where: { body: { contains: "zebra" } } })).toBe(0);
    expect(JSON.stringify(await db.harnessRevision.findMany())).not.toMatch(/zebra/);

    // Company knowledge stays, attributed to a former member, in its history too.
    const hours = await dirs.readFile({
      actor: adminActor,
      harnessDir: COMPANY_DIR,
      path: "hours.md",
    });
    expect(hours?.text).toBe("Office hours are nine to five.\n");
    const companyHistory = await dirs.listHistory({ actor: adminActor, harnessDir: COMPANY_DIR });
    expect(companyHistory.commits[0]?.actorName).toBe("a former member");

    const log = await listAuditEvents({ sql, workspaceId: eve.workspaceId, limit: 100 });
    const erased = log.events.find((event) => event.kind === "member.erased")!;
    expect(erased).toMatchObject({
      actorId: admin.user.id,
      targetId: eve.userId,
      targetName: "a former member",
    });
    const committed = log.events.find((event) => event.kind === "company.committed")!;
    expect(committed).toMatchObject({ actorId: eve.userId, actorName: "a former member" });
  });
});
