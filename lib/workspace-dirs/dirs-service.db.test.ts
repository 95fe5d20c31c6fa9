import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { registerTestDatabase, testDatabaseProvider } from "@/lib/db/testing";
import { openTurnCheckout, type Actor } from "@/lib/harness";
import { parseFaultInjection } from "./fault-injection";
import {
  createPersistentDirsService,
  type OpenedFile,
  type PersistentDirsService,
} from "./dirs-service";
import { createTestWorkspaces, saveOverCurrent } from "./testing";

const database = registerTestDatabase();
let docsFolder: string;
let service: PersistentDirsService;

const editor: Actor = { userId: "u-editor", workspaceId: "w1", role: "editor" };
const member: Actor = { userId: "u-member", workspaceId: "w1", role: "member" };
const admin: Actor = { userId: "u-admin", workspaceId: "w1", role: "admin" };
const outsider: Actor = { userId: "u-outsider", workspaceId: "w2", role: "admin" };

beforeAll(async () => {
  // Company commits check the role again in the database, so the actors are real members.
  await createTestWorkspaces(database.db, [editor, member, admin, outsider]);
  docsFolder = await mkdtemp(path.join(tmpdir(), "cairn-docs-"));
  await writeFile(path.join(docsFolder, "policy.md"), "# Policy\nBe kind.\n");
  service = createPersistentDirsService({
    sql: database.sql,
    companyDocsDir: docsFolder,
    faultInjection: parseFaultInjection("fail-first-commit:fail-me"),
    faultInjectionSeen: new Set(),
  });
});
afterAll(async () => {
  await rm(docsFolder, { recursive: true, force: true });
});

const COMPANY = "/persistent/company";
const USER = "/persistent/user";

/** The company handbook as `actor` reads it on the Files page. */
const readHandbook = (actor: Actor) =>
  service.readFile({ actor, harnessDir: COMPANY, path: "handbook.md" });

/** Saves `content` over the company handbook as `actor`, against what they read then (`base`). */
const saveHandbook = (actor: Actor, base: OpenedFile, content: string) =>
  service.saveFile({
    actor,
    harnessDir: COMPANY,
    path: "handbook.md",
    content,
    baseCursor: base.cursor,
    baseContent: base.text,
  });

describe("parseFaultInjection", () => {
  it("is off by default and understands only the documented values", () => {
    expect(parseFaultInjection(undefined)).toBeNull();
    expect(parseFaultInjection("")).toBeNull();
    expect(parseFaultInjection("fail-first-commit")).toEqual({
      mode: "fail-first-commit",
      marker: null,
    });
    expect(parseFaultInjection("fail-first-commit:fail-me")).toEqual({
      mode: "fail-first-commit",
      marker: "fail-me",
    });
    expect(() => parseFaultInjection("always")).toThrow(/not understood/);
    expect(() => parseFaultInjection("fail-first-commit:")).toThrow(/not understood/);
  });
});

describe(`persistent dirs service on ${testDatabaseProvider()}`, () => {
  it("shows every dir with a writable flag from the actor's role", () => {
    const flags = (actor: Actor) =>
      service.listVisibleDirs({ actor }).map((dir) => [dir.harnessDir, dir.writable]);
    expect(flags(member)).toEqual([
      [USER, true],
      [COMPANY, false],
      ["/persistent/docs", false],
    ]);
    expect(flags(editor)).toEqual([
      [USER, true],
      [COMPANY, true],
      ["/persistent/docs", false],
    ]);
    expect(flags(admin)[1]).toEqual([COMPANY, true]);
  });

  it("lets an editor save company knowledge and refuses a member without writing", async () => {
    const before = await service.listFiles({ actor: editor, harnessDir: COMPANY });
    expect(before).toEqual({ files: [], cursor: 0 });
    const saved = await service.saveFile({
      actor: editor,
      harnessDir: COMPANY,
      path: "handbook.md",
      content: "# Handbook\n",
      baseCursor: 0,
      baseContent: null,
    });
    expect(saved).toEqual({ status: "saved", cursor: 1, changed: true });
    const opened = await readHandbook(member);
    expect(opened).toMatchObject({ text: "# Handbook\n", cursor: 1 });

    await expect(
      service.saveFile({
        actor: member,
        harnessDir: COMPANY,
        path: "handbook.md",
        content: "hacked",
        baseCursor: 1,
        baseContent: "# Handbook\n",
      }),
    ).rejects.toMatchObject({ code: "forbidden:dir" });
    await expect(
      service.saveFile({
        actor: editor,
        harnessDir: "/persistent/docs",
        path: "policy.md",
        content: "changed",
        baseCursor: 0,
        baseContent: null,
      }),
    ).rejects.toMatchObject({ code: "forbidden:dir" });
    expect((await readHandbook(editor))?.text).toBe("# Handbook\n");
    // Another workspace has its own company dir.
    expect((await service.listFiles({ actor: outsider, harnessDir: COMPANY })).files).toEqual([]);

    const history = await service.listHistory({ actor: member, harnessDir: COMPANY });
    expect(history.commits).toHaveLength(1);
    expect(history.commits[0]).toMatchObject({
      version: 1,
      source: "editor",
      created: ["handbook.md"],
    });
  });

  it("reads the read-only docs folder", async () => {
    const listed = await service.listFiles({ actor: member, harnessDir: "/persistent/docs" });
    expect(listed.files.map((file) => file.path)).toEqual(["policy.md"]);
    expect(
      (await service.readFile({ actor: member, harnessDir: "/persistent/docs", path: "policy.md" }))
        ?.text,
    ).toBe("# Policy\nBe kind.\n");
    expect(
      (await service.listHistory({ actor: member, harnessDir: "/persistent/docs" })).commits,
    ).toEqual([]);
  });

  it("holds each database-backed dir to the configured limits (CAIRN_DIR_MAX_*)", async () => {
    const limited = createPersistentDirsService({
      sql: database.sql,
      limits: { maxFiles: 2, maxFileBytes: 16 },
    });
    for (const dir of limited.dirs.filter(
      (candidate) => candidate.harnessDir !== "/persistent/docs",
    )) {
      expect(dir.limits).toMatchObject({ maxFiles: 2, maxFileBytes: 16 });
    }
    const actor: Actor = { userId: "u-limits", workspaceId: "w1", role: "editor" };
    const turn = await openTurnCheckout({
      dirs: limited.dirs,
      extraBody: { actor },
      session: null,
      commitLog: limited.commitLog,
    });
    turn.checkout.writeFile({ path: `${USER}/a.md`, content: "a" });
    turn.checkout.writeFile({ path: `${USER}/b.md`, content: "b" });
    expect(() => turn.checkout.writeFile({ path: `${USER}/c.md`, content: "c" })).toThrow(
      /2 files/,
    );
    expect(() =>
      turn.checkout.writeFile({ path: `${COMPANY}/big.md`, content: "x".repeat(17) }),
    ).toThrow(/16 B|16 bytes/);
  });

  it("keeps each user's memory private and writable by that user", async () => {
    await service.saveFile({
      actor: member,
      harnessDir: USER,
      path: "me.md",
      content: "I like tea",
      baseCursor: 0,
      baseContent: null,
    });
    expect((await service.listFiles({ actor: member, harnessDir: USER })).files).toHaveLength(1);
    expect((await service.listFiles({ actor: editor, harnessDir: USER })).files).toEqual([]);
    expect(await service.readFile({ actor: editor, harnessDir: USER, path: "me.md" })).toBeNull();
  });

  it("browses a dir a page at a time, keyed by the actor like every read", async () => {
    const company = await service.browseFiles({ actor: member, harnessDir: COMPANY });
    expect(company.files.map((file) => file.path)).toContain("handbook.md");
    expect(company).toMatchObject({ folder: "", terms: [], totalFiles: company.files.length });
    expect(typeof company.cursor).toBe("number");
    // Another workspace's company knowledge and another person's memory read as empty.
    expect(await service.browseFiles({ actor: outsider, harnessDir: COMPANY })).toMatchObject({
      files: [],
      totalFiles: 0,
    });
    expect(
      (await service.browseFiles({ actor: editor, harnessDir: USER, filter: "me" })).files,
    ).toEqual([]);
    expect(
      (await service.browseFiles({ actor: member, harnessDir: USER, filter: "ME.MD" })).files.map(
        (file) => file.path,
      ),
    ).toEqual(["me.md"]);
    // A dir its definition loads whole is paged in memory, the same way.
    const docs = await service.browseFiles({
      actor: member,
      harnessDir: "/persistent/docs",
      filter: "polic",
    });
    expect(docs).toMatchObject({ fileCount: 1, totalFiles: 1, nextAfter: null });
    await expect(
      service.browseFiles({ actor: member, harnessDir: COMPANY, folder: "../other" }),
    ).rejects.toMatchObject({ code: "validation:path" });
    await expect(
      service.browseFiles({ actor: member, harnessDir: "/persistent/nope" }),
    ).rejects.toMatchObject({ code: "not_found:dir" });
  });

  it("applies an edit when only other files moved, and records a conflict when the file itself did", async () => {
    const start = (await readHandbook(editor))!;
    // Someone else adds another file: the dir moves, handbook.md does not.
    await saveOverCurrent(service, {
      actor: admin,
      harnessDir: COMPANY,
      path: "other.md",
      content: "other",
    });
    const applied = await saveHandbook(editor, start, "# Handbook\nline by editor\n");
    expect(applied.status).toBe("saved");

    // Now the admin changes handbook.md under the editor's feet.
    const opened = (await readHandbook(editor))!;
    await saveHandbook(admin, opened, "# Handbook\nline by admin\n");
    const stale = await saveHandbook(editor, opened, "# Handbook\nsecond line by editor\n");
    expect(stale.status).toBe("conflict");
    if (stale.status !== "conflict") return;
    expect(stale.message).toMatch(/changed by someone else/);
    expect((await readHandbook(editor))?.text).toBe("# Handbook\nline by admin\n");

    // Everyone in the workspace sees it; only editors and admins may act on it.
    const seenByMember = (await service.listFailures({ actor: member })).failures.find(
      (failure) => failure.id === stale.commitId,
    );
    expect(seenByMember).toMatchObject({ status: "conflict", canAct: false });
    expect(seenByMember!.conflicts[0]).toMatchObject({
      path: "handbook.md",
      reason: "both-modified",
      ours: { text: "# Handbook\nsecond line by editor\n" },
      theirs: { text: "# Handbook\nline by admin\n" },
    });
    expect(seenByMember!.conflicts[0]!.mergeText).toContain("<<<<<<< ours");
    expect((await service.listFailures({ actor: outsider })).failures).toEqual([]);
    await expect(
      service.resolveFailure({ actor: member, id: stale.commitId, resolution: "ours" }),
    ).rejects.toMatchObject({ code: "forbidden:commit" });
    await expect(
      service.resolveFailure({ actor: outsider, id: stale.commitId, resolution: "ours" }),
    ).rejects.toMatchObject({ code: "not_found:commit" });

    const resolved = await service.resolveFailure({
      actor: editor,
      id: stale.commitId,
      resolution: { "handbook.md": "# Handbook\nmerged by hand\n" },
    });
    expect(resolved.status).toBe("succeeded");
    expect(
      (await service.readFile({ actor: member, harnessDir: COMPANY, path: "handbook.md" }))?.text,
    ).toBe("# Handbook\nmerged by hand\n");
    expect(
      (await service.listFailures({ actor: editor })).failures.some(
        (failure) => failure.id === stale.commitId,
      ),
    ).toBe(false);
    const history = await service.listHistory({ actor: editor, harnessDir: COMPANY, limit: 1 });
    expect(history.commits[0]!.source).toBe("resolve");
  });

  it("keeps a fault-injected save as a failed commit that one retry applies", async () => {
    const listed = await service.listFiles({ actor: editor, harnessDir: COMPANY });
    const failed = await service.saveFile({
      actor: editor,
      harnessDir: COMPANY,
      path: "fail-me.md",
      content: "kept safe",
      baseCursor: listed.cursor,
      baseContent: null,
    });
    expect(failed.status).toBe("failed");
    if (failed.status !== "failed") return;
    expect(failed.commitId).not.toBeNull();
    expect(
      await service.readFile({ actor: editor, harnessDir: COMPANY, path: "fail-me.md" }),
    ).toBeNull();
    const open = (await service.listFailures({ actor: editor })).failures.find(
      (failure) => failure.id === failed.commitId,
    );
    expect(open).toMatchObject({
      status: "failed",
      canAct: true,
      files: [{ path: "fail-me.md", change: "created", content: { text: "kept safe" } }],
    });
    await expect(
      service.retryFailure({ actor: member, id: failed.commitId! }),
    ).rejects.toMatchObject({ code: "forbidden:commit" });
    expect(await service.retryFailure({ actor: editor, id: failed.commitId! })).toMatchObject({
      status: "succeeded",
    });
    expect(
      (await service.readFile({ actor: member, harnessDir: COMPANY, path: "fail-me.md" }))?.text,
    ).toBe("kept safe");
    await expect(
      service.retryFailure({ actor: editor, id: failed.commitId! }),
    ).rejects.toMatchObject({ code: "conflict:commit" });
    const resolved = await service.listFailures({ actor: editor, status: "resolved" });
    expect(resolved.failures.find((failure) => failure.id === failed.commitId)).toMatchObject({
      resolution: "retried",
      canAct: false,
    });
  });

  // Issue 14 finding 7: an editor demoted mid-turn still committed to company knowledge.
  it("refuses a turn's company commit when the editor was demoted during the turn, keeping it as a failed commit", async () => {
    const demoted: Actor = { userId: "u-demoted", workspaceId: "w1", role: "editor" };
    await database.db.user.create({
      data: { id: demoted.userId, email: "demoted@example.com", name: "Demoted" },
    });
    const membership = await database.db.membership.create({
      data: { userId: demoted.userId, workspaceId: "w1", role: "editor" },
    });
    const turn = await openTurnCheckout({
      dirs: service.dirs,
      extraBody: { actor: demoted },
      session: { chatId: "c-demoted" },
      commitLog: service.commitLog,
    });
    turn.checkout.writeFile({ path: `${COMPANY}/after-demotion.md`, content: "too late" });
    turn.checkout.writeFile({ path: `${USER}/still-mine.md`, content: "kept" });
    await database.db.membership.update({ where: { id: membership.id }, data: { role: "member" } });

    const persistence = await turn.finishTurn({ status: "completed" });
    expect(persistence.status).toBe("failed");
    const failed = persistence.status === "failed" ? persistence.failedCommits : [];
    expect(failed).toEqual([
      expect.objectContaining({
        harnessDir: COMPANY,
        status: "failed",
        commitId: expect.any(String),
        error: { code: "forbidden:dir", message: expect.stringContaining("now member") },
      }),
    ]);
    expect(
      await service.readFile({ actor: editor, harnessDir: COMPANY, path: "after-demotion.md" }),
    ).toBeNull();
    // The personal memory dir does not depend on the role.
    expect(
      (await service.readFile({ actor: demoted, harnessDir: USER, path: "still-mine.md" }))?.text,
    ).toBe("kept");
    const failures = await service.listFailures({ actor: demoted, status: "open", limit: 10 });
    expect(failures.failures.map((item) => item.harnessDir)).toContain(COMPANY);
  });

  it("serves a turn: a member's company change is suggested, not applied; memory writable; no Actor means read-only", async () => {
    const turn = await openTurnCheckout({
      dirs: service.dirs,
      extraBody: { actor: member },
      session: { chatId: "c1" },
      commitLog: service.commitLog,
    });
    expect(turn.checkout.assertWritable({ path: `${COMPANY}/x.md` }).suggestOnly).toBe(true);
    turn.checkout.writeFile({ path: `${COMPANY}/x.md`, content: "suggested" });
    turn.checkout.writeFile({ path: `${USER}/turn.md`, content: "from a turn" });
    const persistence = await turn.finishTurn({ status: "completed" });
    expect(persistence.status).toBe("succeeded");
    const company = persistence.status === "succeeded" ? persistence.commits : [];
    expect(company.find((commit) => commit.harnessDir === COMPANY)).toMatchObject({
      status: "suggested",
    });
    expect(await service.readFile({ actor: member, harnessDir: COMPANY, path: "x.md" })).toBeNull();
    expect(
      (await service.readFile({ actor: member, harnessDir: USER, path: "turn.md" }))?.text,
    ).toBe("from a turn");
    const history = await service.listHistory({ actor: member, harnessDir: USER, limit: 1 });
    expect(history.commits[0]!.source).toBe("turn");

    // A role claimed anywhere but the server-side Actor changes nothing.
    for (const extraBody of [{}, { actor: { ...editor, role: "owner" } }, { role: "admin" }]) {
      const dirs = service.dirs.filter((dir) => dir.harnessDir === COMPANY);
      expect(await dirs[0]!.canWrite!({ extraBody: extraBody as never })).toBe(false);
    }
  });
  it("shows a commit's diff and restores an earlier version as a new commit", async () => {
    // Another workspace's company knowledge: its history is this test's alone.
    const actor = outsider;
    const save = async (content: string | null, baseCursor: number, baseContent: string | null) =>
      service.saveFile({
        actor,
        harnessDir: COMPANY,
        path: "faq.md",
        content,
        baseCursor,
        baseContent,
      });
    const start = (await service.listFiles({ actor, harnessDir: COMPANY })).cursor as number;
    expect(await save("one\ntwo\n", start, null)).toMatchObject({ status: "saved" });
    expect(await save("one\nTWO\n", start + 1, "one\ntwo\n")).toMatchObject({ status: "saved" });
    const history = await service.listHistory({ actor, harnessDir: COMPANY });
    const [second, first] = history.commits;
    expect(second).toMatchObject({ version: start + 2, updated: ["faq.md"] });

    const detail = await service.readCommit({ actor, harnessDir: COMPANY, id: second!.id });
    expect(detail?.files).toEqual([
      {
        path: "faq.md",
        change: "updated",
        before: { state: "text", text: "one\ntwo\n" },
        after: { state: "text", text: "one\nTWO\n" },
      },
    ]);
    const created = await service.readCommit({ actor, harnessDir: COMPANY, id: first!.id });
    expect(created?.files[0]).toMatchObject({ change: "created", before: { state: "absent" } });
    // Another workspace's commit reads as missing.
    expect(
      await service.readCommit({ actor: admin, harnessDir: COMPANY, id: second!.id }),
    ).toBeNull();

    // A member of the workspace may look but not restore.
    await expect(
      service.restoreCommit({ actor: member, harnessDir: COMPANY, id: second!.id }),
    ).rejects.toMatchObject({ code: "forbidden:dir" });

    const restored = await service.restoreCommit({ actor, harnessDir: COMPANY, id: first!.id });
    expect(restored).toEqual({ status: "restored", cursor: start + 3, changed: true });
    expect((await service.readFile({ actor, harnessDir: COMPANY, path: "faq.md" }))?.text).toBe(
      "one\ntwo\n",
    );
    const after = await service.listHistory({ actor, harnessDir: COMPANY });
    expect(after.commits[0]).toMatchObject({ version: start + 3, source: "restore" });
    // Restoring what is already there writes nothing.
    expect(await service.restoreCommit({ actor, harnessDir: COMPANY, id: first!.id })).toEqual({
      status: "restored",
      cursor: start + 3,
      changed: false,
    });
  });
});
