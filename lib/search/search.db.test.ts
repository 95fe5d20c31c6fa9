import { randomUUID } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

import { beforeAll, describe, expect, it } from "vitest";

import { appendMessage, truncateChatAt } from "@/lib/chat/messages";
import { listChats } from "@/lib/chat/queries";
import { registerTestDatabase, testDatabaseProvider } from "@/lib/db/testing";
import { openTurnCheckout, runMemoryCommand, type Actor, type Role } from "@/lib/harness";
import { createPersistentDirsService, type PersistentDirsService } from "@/lib/workspace-dirs";
import { createDirBacking, sqlFor, type Sql } from "@/lib/sql-storage";
import { indexDirCommit, indexDocsFolder, reindexAll } from "./index-store";
import { searchPassages, type SearchHit } from "./search";
import { createSearchService } from "./search-service";
import { formatSnippet } from "./snippet";

const database = registerTestDatabase();
let sql: Sql;
let dirs: PersistentDirsService;
const ids = { w1: "", w2: "" };
const people: Record<"alice" | "bob" | "erin" | "ada", Actor> = {} as never;

async function person(name: string, workspaceId: string, role: Role): Promise<Actor> {
  const user = await database.db.user.create({ data: { email: `${name}@acme.test`, name } });
  await database.db.membership.create({ data: { userId: user.id, workspaceId, role } });
  return { userId: user.id, workspaceId, role };
}

/** One memory command as one committed turn (the app's dirs: search indexed in the commit). */
async function memory(actor: Actor, command: Parameters<typeof runMemoryCommand>[1]) {
  const turn = await openTurnCheckout({
    dirs: dirs.dirs,
    extraBody: { actor },
    session: null,
    commitLog: dirs.commitLog,
  });
  const output = await runMemoryCommand(turn.checkout, command);
  expect(output).not.toMatch(/^Error/);
  const persistence = await turn.finishTurn({ status: "completed" });
  expect(persistence.status).toBe("succeeded");
}

async function chatOf(actor: Actor, title: string, texts: string[]): Promise<string> {
  const chat = await database.db.chat.create({
    data: { workspaceId: actor.workspaceId, userId: actor.userId, title },
  });
  for (const [index, text] of texts.entries()) {
    await appendMessage(database.sql, chat.id, {
      id: `${chat.id}-m${index}`,
      role: index % 2 === 0 ? "user" : "assistant",
      parts: [{ type: "text", text }],
    });
  }
  return chat.id;
}

async function entry(options: {
  workspaceId: string;
  scope: "global" | "local";
  chatId?: string;
  title: string;
  content: string;
}) {
  const id = randomUUID().slice(0, 8);
  const now = new Date();
  const chat = options.scope === "local" ? options.chatId! : null;
  await database.db.harnessEntry.create({
    data: {
      workspaceId: options.workspaceId,
      entryKey: `${options.scope}/${chat ?? "-"}/memory/${id}`,
      id,
      kind: "memory",
      scope: options.scope,
      chatId: chat,
      title: options.title,
      content: options.content,
      path: "general",
      metadata: "{}",
      pinned: false,
      source: "user",
      version: 1,
      createdAt: now,
      updatedAt: now,
      createdBy: "seed",
      updatedBy: "seed",
      searchText: `${options.title}\n${options.content}`.toLowerCase(),
    },
  });
  return id;
}

const search = (
  actor: Actor,
  query: string,
  options: { kinds?: SearchHit["kind"][]; limit?: number } = {},
) => searchPassages(sql, { actor, query, ...options });
const texts = (hits: SearchHit[]) => hits.map((hit) => formatSnippet(hit.snippet)).join("\n");

const provider = testDatabaseProvider();
beforeAll(async () => {
  sql = sqlFor(database.target);
  dirs = createPersistentDirsService({ sql: database.sql });
  ids.w1 = (await database.db.workspace.create({ data: { name: "Acme" } })).id;
  ids.w2 = (await database.db.workspace.create({ data: { name: "Other" } })).id;
  people.alice = await person("alice", ids.w1, "member");
  people.bob = await person("bob", ids.w1, "member");
  people.erin = await person("erin", ids.w1, "editor");
  people.ada = await person("ada", ids.w1, "admin");
});

describe(`search index on ${provider}`, () => {
  it("indexes a commit's files by passage with line ranges, in the commit", async () => {
    const text = [
      "# Atlas project",
      "",
      "Atlas replaces the billing system.",
      "",
      "## Launch",
      "The launch date is the ninth of March.",
      "",
      "## Team",
      "Zoltan leads the rollout.",
    ].join("\n");
    await memory(people.alice, {
      command: "create",
      path: "/persistent/user/atlas.md",
      file_text: text,
    });
    const [hit] = await search(people.alice, "zoltan");
    expect(hit).toMatchObject({
      kind: "memory",
      location: "/persistent/user/atlas.md",
      title: "Team",
      lineStart: 8,
      lineEnd: 9,
    });
    expect(formatSnippet(hit!.snippet)).toContain("**Zoltan** leads");
    const [launch] = await search(people.alice, '"launch date"');
    expect(launch).toMatchObject({ lineStart: 5, lineEnd: 6 });
  });

  it("a commit that fails indexes nothing", async () => {
    const backing = createDirBacking<{ key: string }>({
      sql,
      dirKey: () => `user:${people.alice.userId}`,
      onDirCommitted: indexDirCommit,
      // Past the shared history limit: the store throws after the files and the index rows.
      history: { maxSharedBytes: 1, quotaKey: () => `workspace:${ids.w1}` },
    });
    const loaded = await backing.load({ extraBody: { key: "x" }, session: null } as never);
    await expect(
      backing.store({
        extraBody: { key: "x" },
        session: null,
        harnessDir: "/persistent/user",
        changes: {
          created: [{ path: "never.md", content: "quokkafailure words" }],
          updated: [],
          deleted: [],
        },
        snapshot: loaded.files,
        cursor: loaded.cursor,
      } as never),
    ).rejects.toThrow(/history/i);
    expect(await search(people.alice, "quokkafailure")).toEqual([]);
  });

  it("updates, deletes and renames leave no stale hits", async () => {
    await memory(people.alice, {
      command: "create",
      path: "/persistent/user/pets.md",
      file_text: "The cat is called Mittens.",
    });
    expect(await search(people.alice, "mittens")).toHaveLength(1);
    await memory(people.alice, {
      command: "str_replace",
      path: "/persistent/user/pets.md",
      old_str: "Mittens",
      new_str: "Whiskers",
    });
    expect(await search(people.alice, "mittens")).toEqual([]);
    expect((await search(people.alice, "whiskers"))[0]!.location).toBe("/persistent/user/pets.md");
    await memory(people.alice, {
      command: "rename",
      old_path: "/persistent/user/pets.md",
      new_path: "/persistent/user/animals/pets.md",
    });
    const renamed = await search(people.alice, "whiskers");
    expect(renamed.map((hit) => hit.location)).toEqual(["/persistent/user/animals/pets.md"]);
    // Lines inserted above a passage move its range; its text is not indexed again.
    await memory(people.alice, {
      command: "create",
      path: "/persistent/user/animals/pets.md",
      file_text: "# Pets\n\nintro\n\n## Cat\nThe cat is called Whiskers.\n",
    });
    const [cat] = await search(people.alice, "whiskers");
    expect(cat).toMatchObject({ lineStart: 5, lineEnd: 6 });
    await memory(people.alice, {
      command: "insert",
      path: "/persistent/user/animals/pets.md",
      insert_line: 3,
      insert_text: "more intro\nand more\n",
    });
    expect((await search(people.alice, "whiskers"))[0]).toMatchObject({ lineStart: 7, lineEnd: 8 });
    expect(await search(people.alice, "intro")).toHaveLength(1);
    await memory(people.alice, { command: "delete", path: "/persistent/user/animals/pets.md" });
    expect(await search(people.alice, "whiskers")).toEqual([]);
  });

  it("batches a large file's passages and line moves across statements", async () => {
    // 150 sections: more rows than one statement takes, so inserts and moves are cut in batches.
    const sections = () =>
      Array.from({ length: 150 }, (_, index) => `## Part ${index}\n\nword${index}x body`).join(
        "\n\n",
      );
    await memory(people.erin, {
      command: "create",
      path: "/persistent/user/parts.md",
      file_text: sections(),
    });
    expect(await search(people.erin, "word149x")).toMatchObject([{ lineStart: 597, lineEnd: 599 }]);
    await memory(people.erin, {
      command: "insert",
      path: "/persistent/user/parts.md",
      insert_line: 0,
      insert_text: "intro line\n\n",
    });
    expect(await search(people.erin, "word149x")).toMatchObject([{ lineStart: 599, lineEnd: 601 }]);
    expect(await search(people.erin, "word0x")).toMatchObject([{ lineStart: 3, lineEnd: 5 }]);
    const all = await searchPassages(sql, { actor: people.erin, query: "body", limit: 50 });
    expect(all).toHaveLength(50);
  });

  it("identical passages of one file are kept apart when one of them goes", async () => {
    const twin = "## Twin\n\nsame platypus words";
    await memory(people.erin, {
      command: "create",
      path: "/persistent/user/twins.md",
      file_text: `${twin}\n\n${twin}\n\n${twin}`,
    });
    const ranges = async () =>
      (await search(people.erin, "platypus", { limit: 10 }))
        .map((hit) => `${hit.lineStart}-${hit.lineEnd}`)
        .sort();
    expect(await ranges()).toEqual(["1-3", "5-7", "9-11"]);
    await memory(people.erin, {
      command: "create",
      path: "/persistent/user/twins.md",
      file_text: `intro\n\n${twin}\n\n${twin}`,
    });
    expect(await ranges()).toEqual(["3-5", "7-9"]);
  });

  it("chat messages and harness entries follow their rows, whoever writes them", async () => {
    const chatId = await chatOf(people.alice, "Ops", [
      "where are the grafana metrics",
      "On the ops board.",
    ]);
    const hits = await search(people.alice, "grafana");
    expect(hits[0]).toMatchObject({
      kind: "chat",
      chatId,
      messageId: `${chatId}-m0`,
      title: "Ops",
    });
    // Truncating (Prisma deleteMany) and deleting the chat (a cascade) remove them.
    await truncateChatAt(database.sql, { chatId, messageId: `${chatId}-m0`, inclusive: true });
    expect(await search(people.alice, "grafana")).toEqual([]);
    await chatOf(people.alice, "Ops 2", ["grafana again"]);
    await database.db.chat.deleteMany({ where: { title: "Ops 2" } });
    expect(await search(people.alice, "grafana")).toEqual([]);
    const id = await entry({
      workspaceId: ids.w1,
      scope: "global",
      title: "Deploy rule",
      content: "Never deploy on Fridays.",
    });
    expect((await search(people.bob, "fridays"))[0]).toMatchObject({
      kind: "harness",
      entryRef: `[global:${id}] memory`,
    });
    await database.db.harnessEntry.updateMany({
      where: { id },
      data: { content: "Deploy on Tuesdays." },
    });
    expect(await search(people.bob, "fridays")).toEqual([]);
    expect(await search(people.bob, "tuesdays")).toHaveLength(1);
    await database.db.harnessEntry.deleteMany({ where: { id } });
    expect(await search(people.bob, "tuesdays")).toEqual([]);
  });

  it("ranks heading and path matches above body matches, breaks ties by recency, and matches prefixes", async () => {
    await memory(people.erin, {
      command: "create",
      path: "/persistent/company/ranking/body.md",
      file_text: "Some notes that mention the word heliotrope once among many other words here.",
    });
    await memory(people.erin, {
      command: "create",
      path: "/persistent/company/ranking/heliotrope.md",
      file_text: "# Heliotrope\n\nA colour.",
    });
    const hits = await search(people.bob, "heliotrope", { kinds: ["company"] });
    expect(hits.map((hit) => hit.path)).toEqual(["ranking/heliotrope.md", "ranking/body.md"]);
    expect((await search(people.bob, "heliot", { kinds: ["company"] })).length).toBe(2);
    // Two equal passages: the newer first.
    await memory(people.erin, {
      command: "create",
      path: "/persistent/company/ranking/old.md",
      file_text: "periwinkle tone",
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await memory(people.erin, {
      command: "create",
      path: "/persistent/company/ranking/new.md",
      file_text: "periwinkle tone",
    });
    expect((await search(people.bob, "periwinkle")).map((hit) => hit.path)).toEqual([
      "ranking/new.md",
      "ranking/old.md",
    ]);
  });

  it("indexes the docs folder for everyone and rebuilds everything with reindexAll", async () => {
    const folder = mkdtempSync(path.join(tmpdir(), "cairn-docs-"));
    writeFileSync(
      path.join(folder, "handbook.md"),
      "# Handbook\n\nExpenses go through the xylophone form.",
    );
    await indexDocsFolder(sql, folder);
    expect((await search(people.bob, "xylophone"))[0]).toMatchObject({
      kind: "docs",
      location: "/persistent/docs/handbook.md",
    });
    const before = await search(people.alice, "zoltan");
    const report = await reindexAll(sql, { docsFolder: folder });
    expect(report.docs).toBe(1);
    expect(report.memory).toBeGreaterThan(0);
    expect(await search(people.alice, "zoltan")).toEqual(
      before.map((hit) => ({ ...hit, score: expect.any(Number) as number })),
    );
    expect(await search(people.bob, "xylophone")).toHaveLength(1);
  });
});

describe(`search access on ${provider}`, () => {
  const secret = "zanzibar";
  let aliceChat: string;
  let bobChat: string;
  beforeAll(async () => {
    await memory(people.alice, {
      command: "create",
      path: "/persistent/user/secret.md",
      file_text: `alice ${secret} memory`,
    });
    await memory(people.bob, {
      command: "create",
      path: "/persistent/user/secret.md",
      file_text: `bob ${secret} memory`,
    });
    await memory(people.erin, {
      command: "create",
      path: "/persistent/company/shared.md",
      file_text: `company ${secret} knowledge`,
    });
    const other = await person("oscar", ids.w2, "editor");
    await memory(other, {
      command: "create",
      path: "/persistent/company/other.md",
      file_text: `other workspace ${secret}`,
    });
    aliceChat = await chatOf(people.alice, "Alice chat", [`alice ${secret} chat`]);
    bobChat = await chatOf(people.bob, "Bob chat", [`bob ${secret} chat`]);
    const globalEntry = (workspaceId: string, content: string) =>
      entry({ workspaceId, scope: "global", title: "Global", content });
    const localEntry = (chatId: string, content: string) =>
      entry({ workspaceId: ids.w1, scope: "local", chatId, title: "Local", content });
    await globalEntry(ids.w1, `global ${secret}`);
    await localEntry(aliceChat, `alice local ${secret}`);
    await localEntry(bobChat, `bob local ${secret}`);
    await globalEntry(ids.w2, `other global ${secret}`);
  });

  it.each(["member", "editor", "admin"] as const)(
    "as %s: own memory, chats and local entries, the workspace's company and global entries — nobody else's",
    async (role) => {
      await database.db.membership.update({
        where: { userId_workspaceId: { userId: people.alice.userId, workspaceId: ids.w1 } },
        data: { role },
      });
      const hits = await search({ ...people.alice, role }, secret, { limit: 50 });
      const seen = texts(hits);
      expect(hits.map((hit) => hit.kind).sort()).toEqual([
        "chat",
        "company",
        "harness",
        "harness",
        "memory",
      ]);
      for (const expected of [
        "alice **zanzibar** memory",
        "company **zanzibar** knowledge",
        "alice **zanzibar** chat",
        "global **zanzibar**",
        "alice local **zanzibar**",
      ]) {
        expect(seen).toContain(expected);
      }
      expect(seen).not.toMatch(/bob|other/);
      // Others' passages do not show in any scope, not even by count.
      for (const kind of ["memory", "chat", "harness", "company"] as const) {
        expect(
          (await search(people.alice, secret, { kinds: [kind], limit: 50 })).every(
            (hit) => !texts([hit]).includes("bob"),
          ),
        ).toBe(true);
      }
    },
  );

  it("ranks inside what the actor may see: others' better matches never crowd out their own", async () => {
    // Bob's memory holds many passages that match better (the word in the heading, twice);
    // Alice's one weak match is still found with a limit of 1, since the candidate cap applies
    // after the access rule, inside the index.
    const word = "quokka";
    const crowd = Array.from(
      { length: 40 },
      (_, index) => `## ${word} ${index}\n\n${word} ${word} notes ${index}\n`,
    ).join("\n");
    await memory(people.bob, {
      command: "create",
      path: "/persistent/user/crowd.md",
      file_text: crowd,
    });
    await memory(people.alice, {
      command: "create",
      path: "/persistent/user/one.md",
      file_text: `a long paragraph that mentions the ${word} only once among many other words`,
    });
    const [hit, ...rest] = await search(people.alice, word, { limit: 1 });
    expect(rest).toHaveLength(0);
    expect(hit?.path).toBe("one.md");
    expect((await search(people.bob, word, { limit: 50 })).length).toBe(40);
    // A kind filter is applied inside the index too.
    expect(await search(people.alice, word, { kinds: ["company"], limit: 5 })).toHaveLength(0);
  });

  it("the service refuses someone who is no longer a member, and the sidebar finds chats by message text", async () => {
    const service = createSearchService({ sql, docsFolder: null });
    expect((await service.search(people.bob, { query: secret })).length).toBeGreaterThan(0);
    await expect(
      service.search({ userId: people.bob.userId, workspaceId: ids.w2 }, { query: secret }),
    ).rejects.toThrow(/not a member/);
    const page = await listChats(people.alice, { query: secret, sql: database.sql });
    expect(page.items.map((chat) => chat.id)).toEqual([aliceChat]);
    expect(
      (await listChats(people.bob, { query: "bob chat", sql: database.sql })).items.map(
        (chat) => chat.id,
      ),
    ).toContain(bobChat);
  });
});
