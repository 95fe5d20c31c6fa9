// Over 500 lines, knowingly: one conformance suite every storage adapter runs; its cases share
// fixtures and are read as one contract, so it stays one file.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Actor } from "../actor";
import {
  HarnessConflictError,
  HarnessError,
  HarnessForbiddenError,
  HarnessNotFoundError,
  HarnessValidationError,
} from "../errors";
import { createHarness, type Harness } from "./create-harness";
import { type CreateEntryInput } from "./harness-api";
import { SnapshotCache } from "./reconstruct-harness-state";
import { entryKeyOf } from "./entry-key";
import { type HarnessStoragePort } from "./store-port";
import { type Entry, type Revision } from "./types";

/** What a conformance run needs from a backend: a fresh, empty storage and a way to dispose of it. */
export type MakeHarnessStorage = () => Promise<{
  storage: HarnessStoragePort;
  cleanup: () => Promise<void>;
}>;

function deterministicClock(start = Date.UTC(2025, 0, 1)): () => Date {
  let tick = 0;
  return () => new Date(start + tick++ * 1000);
}

function sequentialIds(prefix: string): () => string {
  let next = 0;
  return () => `${prefix}-${String(++next).padStart(6, "0")}`;
}

async function expectHarnessError(
  promise: Promise<unknown>,
  type: new (...args: never[]) => HarnessError,
  code?: string,
) {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error, `expected ${type.name}`).toBeInstanceOf(type);
  if (code) expect((error as HarnessError).code).toBe(code);
  return error as HarnessError;
}

/** A memory's create input: its title and content, and any other fields. */
function memory(
  title: string,
  content: string,
  fields: Omit<CreateEntryInput, "kind" | "title" | "content"> = {},
): CreateEntryInput {
  return { kind: "memory", title, content, ...fields };
}

/**
 * Creates a local memory with the first content, then updates it to each of the next (one
 * version each); returns the entry as created.
 */
async function memoryWithVersions(
  harness: Harness,
  title: string,
  ...contents: [string, ...string[]]
): Promise<Entry> {
  const [first, ...later] = contents;
  const created = await harness.createEntry(memory(title, first));
  for (const [index, content] of later.entries())
    await harness.updateEntry({
      kind: "memory",
      id: created.id,
      expectedVersion: index + 1,
      content,
    });
  return created;
}

/**
 * The one test suite every `HarnessStoragePort` implementation must pass (in-memory, Prisma on
 * SQLite, Prisma on PostgreSQL, …). It drives the storage through the core (`createHarness`)
 * and directly, and checks CRUD for all kinds, kind contracts, slug ids, scope rules,
 * optimistic concurrency, atomic batches, snapshots at past versions, restores, pagination
 * and text search.
 *
 * `makeStorage` is called before every test and must return an empty storage (or one whose
 * workspace ids are unique to the test: every test uses a fresh random workspace id, so a
 * shared database works as long as rows are scoped by workspace).
 */
export function runHarnessStorageConformance(name: string, makeStorage: MakeHarnessStorage): void {
  describe(`harness storage conformance: ${name}`, () => {
    let storage: HarnessStoragePort;
    let cleanup: () => Promise<void>;
    let workspaceId: string;
    let clock: () => Date;
    let ids: () => string;

    const actorOf = (role: Actor["role"], userId = `user-${role}`): Actor => ({
      userId,
      workspaceId,
      role,
    });
    const harnessFor = (
      options: { role?: Actor["role"]; chatId?: string | null; userId?: string } = {},
    ): Harness =>
      createHarness({
        storage,
        actor: actorOf(options.role ?? "editor", options.userId),
        chatId: options.chatId === undefined ? "chat-1" : options.chatId,
        clock,
        generateId: ids,
      });

    beforeEach(async () => {
      ({ storage, cleanup } = await makeStorage());
      workspaceId = `ws-${globalThis.crypto.randomUUID()}`;
      clock = deterministicClock();
      ids = sequentialIds(`rev-${workspaceId.slice(3, 11)}`);
    });

    afterEach(async () => {
      await cleanup();
    });

    describe("CRUD for every kind", () => {
      it("creates, reads, updates and deletes a memory with versions and revisions", async () => {
        const harness = harnessFor();
        const created = await harness.createEntry(
          memory("Project-X build steps", "Use `make` after installing dependencies.", {
            path: "project-x/build",
          }),
        );
        expect(created).toMatchObject({
          id: "project-x-build-steps",
          kind: "memory",
          scope: "local",
          chatId: "chat-1",
          path: "project-x/build",
          version: 1,
          pinned: false,
          source: "user",
          metadata: {},
          createdBy: "user-editor",
          updatedBy: "user-editor",
        });
        expect(await harness.getEntry({ kind: "memory", id: created.id })).toEqual(created);

        const updated = await harness.updateEntry({
          kind: "memory",
          id: created.id,
          content: "Run `make clean` before `make`.",
          reason: "stale artifacts",
          expectedVersion: 1,
        });
        expect(updated.version).toBe(2);
        expect(updated.content).toBe("Run `make clean` before `make`.");
        expect(updated.createdAt).toBe(created.createdAt);
        expect(updated.updatedAt > created.updatedAt).toBe(true);

        const deletion = await harness.deleteEntry({
          kind: "memory",
          id: created.id,
          expectedVersion: 2,
          reason: "obsolete",
        });
        expect(deletion).toMatchObject({
          action: "delete",
          before: updated,
          after: null,
          reason: "obsolete",
          cause: "manual",
        });
        expect(await harness.getEntry({ kind: "memory", id: created.id })).toBeNull();

        const history = await harness.history({ entryId: created.id });
        expect(history.map((revision) => revision.action)).toEqual(["create", "update", "delete"]);
        expect(history.map((revision) => revision.harnessVersion)).toEqual([1, 2, 3]);
        expect(history[1]).toMatchObject({
          before: created,
          after: updated,
          reason: "stale artifacts",
          actorId: "user-editor",
          workspaceId,
        });
        expect(await harness.getHarnessVersion()).toBe(3);
      });

      it("creates prompt notes, skills and sub-agents with their contracts", async () => {
        const harness = harnessFor();
        const prompt = await harness.createEntry({
          kind: "prompt",
          title: "Answer style",
          content: "Answer in short paragraphs.",
        });
        expect(prompt).toMatchObject({ kind: "prompt", id: "answer-style", version: 1 });

        const skill = await harness.createSkill({
          name: "pdf-extract",
          description: "Use when the user shares a PDF and wants its text.",
          body: "1. Run pdftotext.\n2. Clean the output.",
          metadata: { reference: "skills/pdf.py", arguments: ["path"] },
        });
        expect(skill).toMatchObject({
          kind: "skill",
          id: "pdf-extract",
          title: "pdf-extract",
          content: "1. Run pdftotext.\n2. Clean the output.",
          metadata: {
            name: "pdf-extract",
            description: "Use when the user shares a PDF and wants its text.",
            reference: "skills/pdf.py",
            arguments: ["path"],
          },
        });
        const skill2 = await harness.updateSkill({
          id: skill.id,
          expectedVersion: 1,
          description: "Use for any PDF.",
        });
        expect(skill2.metadata).toMatchObject({
          name: "pdf-extract",
          description: "Use for any PDF.",
          reference: "skills/pdf.py",
        });
        expect(skill2.content).toBe(skill.content);

        const subagent = await harness.createSubagent({
          name: "reviewer",
          description: "Delegate code review of a diff.",
          instructions: "You review diffs for bugs.",
          tools: ["read_file", "grep"],
          model: "review-model",
        });
        expect(subagent).toMatchObject({
          kind: "subagent",
          id: "reviewer",
          content: "You review diffs for bugs.",
          metadata: {
            name: "reviewer",
            description: "Delegate code review of a diff.",
            tools: ["read_file", "grep"],
            model: "review-model",
          },
        });
        const subagent2 = await harness.updateSubagent({
          id: "reviewer",
          expectedVersion: 1,
          model: null,
          tools: ["read_file"],
        });
        expect(subagent2.metadata).toEqual({
          name: "reviewer",
          description: "Delegate code review of a diff.",
          tools: ["read_file"],
        });

        await harness.deleteEntry({ kind: "prompt", id: prompt.id, expectedVersion: 1 });
        await harness.deleteEntry({ kind: "skill", id: skill.id, expectedVersion: 2 });
        await harness.deleteEntry({ kind: "subagent", id: subagent.id, expectedVersion: 2 });
        expect((await harness.listEntries()).items).toEqual([]);
      });

      it("keeps memories and prompt notes written through the typed calls, reasons included", async () => {
        const harness = harnessFor();
        const lesson = await harness.createMemory({
          title: "Project-X build steps",
          content: "Use `make` after installing dependencies.",
          path: "project-x/build",
        });
        const note = await harness.createPrompt({
          title: "Answer style",
          content: "Answer in short paragraphs.",
          global: true,
          reason: "team convention",
        });
        await harness.updateMemory({
          id: lesson.id,
          expectedVersion: 1,
          content: "Run `make clean` before `make`.",
          reason: "Observed repeated build failures",
        });
        await harness.updatePrompt({
          id: note.id,
          global: true,
          expectedVersion: 1,
          pinned: true,
          reason: "always relevant",
        });
        expect(
          (await harness.listEntries()).items.map(({ kind, scope, id, version }) => ({
            kind,
            scope,
            id,
            version,
          })),
        ).toEqual([
          { kind: "prompt", scope: "global", id: "answer-style", version: 2 },
          { kind: "memory", scope: "local", id: "project-x-build-steps", version: 2 },
        ]);
        await harness.deleteMemory({ id: lesson.id, expectedVersion: 2, reason: "moved to Bazel" });
        await harness.deletePrompt({ id: note.id, global: true, expectedVersion: 2 });
        const reasons = async (entryId: string) =>
          (await harness.history({ entryId })).map(({ kind, action, reason }) => [
            kind,
            action,
            reason,
          ]);
        expect(await reasons(lesson.id)).toEqual([
          ["memory", "create", ""],
          ["memory", "update", "Observed repeated build failures"],
          ["memory", "delete", "moved to Bazel"],
        ]);
        expect(await reasons(note.id)).toEqual([
          ["prompt", "create", "team convention"],
          ["prompt", "update", "always relevant"],
          ["prompt", "delete", ""],
        ]);
        expect(await harness.getHarnessVersion()).toBe(6);
        expect((await harness.listEntries()).items).toEqual([]);
      });

      it("writes nothing for an update that changes nothing", async () => {
        const harness = harnessFor();
        const entry = await harness.createEntry(memory("Same", "Same content"));
        const again = await harness.updateEntry({
          kind: "memory",
          id: entry.id,
          expectedVersion: 1,
          content: "Same content",
        });
        expect(again).toEqual(entry);
        expect(await harness.getHarnessVersion()).toBe(1);
      });

      it("pins and unpins as versioned changes", async () => {
        const harness = harnessFor();
        const entry = await harness.createEntry(memory("Pin me", "x"));
        const pinned = await harness.setPinned({
          pinned: true,
          kind: "memory",
          id: entry.id,
          expectedVersion: 1,
        });
        expect(pinned).toMatchObject({ pinned: true, version: 2 });
        const unpinned = await harness.setPinned({
          kind: "memory",
          id: entry.id,
          expectedVersion: 2,
          pinned: false,
        });
        expect(unpinned).toMatchObject({ pinned: false, version: 3 });
      });

      it("returns copies: mutating a result does not change stored state", async () => {
        const harness = harnessFor();
        const entry = await harness.createEntry(
          memory("Copy", "original", { metadata: { tags: ["a"] } }),
        );
        entry.content = "mutated";
        (entry.metadata.tags as string[]).push("b");
        const read = await harness.getEntryOrThrow({ kind: "memory", id: "copy" });
        expect(read.content).toBe("original");
        expect(read.metadata).toEqual({ tags: ["a"] });
      });
    });

    describe("contracts and limits", () => {
      it("refuses the base system prompt id in either spelling", async () => {
        const harness = harnessFor();
        for (const id of ["base_system_prompt", "base-system-prompt"])
          await expectHarnessError(
            harness.createEntry({ kind: "prompt", id, title: "Base", content: "x" }),
            HarnessValidationError,
            "validation:entry",
          );
        // A title that slugs to it gets a suffixed id instead.
        const entry = await harness.createEntry({
          kind: "prompt",
          title: "base_system_prompt",
          content: "x",
        });
        expect(entry.id).toBe("base_system_prompt-2");
      });

      it("enforces size limits with clear messages", async () => {
        const harness = harnessFor();
        const tooLarge: [CreateEntryInput, RegExp][] = [
          [memory("t".repeat(201), "x"), /title: must be at most 200 characters/],
          [memory("big", "x".repeat(64 * 1024 + 1)), /content: must be at most 65536 bytes/],
          [
            memory("meta", "x", { metadata: { blob: "y".repeat(16 * 1024) } }),
            /metadata: must be at most 16384 bytes/,
          ],
        ];
        for (const [input, message] of tooLarge) {
          const error = await expectHarnessError(
            harness.createEntry(input),
            HarnessValidationError,
          );
          expect(error.message).toMatch(message);
        }
        await harness.createEntry(memory("exactly 64k", "x".repeat(64 * 1024)));
        const malformed: CreateEntryInput[] = [
          memory("two\nlines", "x"),
          memory("empty", "   "),
          memory("nul", "a\u0000b"),
          memory("path", "x", { path: "../etc" }),
          memory("x", "x", { id: "Bad Id" }),
        ];
        for (const input of malformed)
          await expectHarnessError(harness.createEntry(input), HarnessValidationError);
      });

      it("validates skill and sub-agent metadata", async () => {
        const harness = harnessFor();
        await expectHarnessError(
          harness.createSkill({
            name: "s",
            description: "line one\nline two",
            body: "b",
          }),
          HarnessValidationError,
        );
        await expectHarnessError(
          harness.createEntry({ kind: "skill", title: "s", content: "b", metadata: { name: "s" } }),
          HarnessValidationError,
        );
        await expectHarnessError(
          harness.createEntry({
            kind: "subagent",
            title: "a",
            content: "b",
            metadata: { name: "a", description: "d", tools: "grep" },
          }),
          HarnessValidationError,
        );
        const skill = await harness.createSkill({
          name: "s",
          description: "d",
          body: "b",
        });
        await expectHarnessError(
          harness.updateSkill({
            id: skill.id,
            expectedVersion: 1,
            description: "",
          }),
          HarnessValidationError,
        );
        expect(await harness.getHarnessVersion()).toBe(1);
      });
    });

    describe("slug ids", () => {
      it("makes ids from titles and suffixes collisions per scope and kind", async () => {
        const harness = harnessFor();
        const first = await harness.createEntry(memory("Déjà vu: Build & Test!", "x"));
        const second = await harness.createEntry(memory("deja vu build test", "y"));
        const third = await harness.createEntry(memory("Deja-vu build test", "z"));
        expect([first.id, second.id, third.id]).toEqual([
          "deja-vu-build-test",
          "deja-vu-build-test-2",
          "deja-vu-build-test-3",
        ]);
        // Another kind or scope does not collide.
        expect(
          (await harness.createEntry({ kind: "prompt", title: "Deja vu build test", content: "x" }))
            .id,
        ).toBe("deja-vu-build-test");
        expect(
          (await harness.createEntry(memory("Deja vu build test", "x", { global: true }))).id,
        ).toBe("deja-vu-build-test");
        // Another chat does not collide either.
        expect(
          (await harnessFor({ chatId: "chat-2" }).createEntry(memory("Deja vu build test", "x")))
            .id,
        ).toBe("deja-vu-build-test");
      });

      it("keeps ids within 80 characters, suffix included, and falls back for empty slugs", async () => {
        const harness = harnessFor();
        const long = "a".repeat(120);
        const a = await harness.createEntry(memory(long, "x"));
        const b = await harness.createEntry(memory(long, "x"));
        expect(a.id).toHaveLength(80);
        expect(b.id).toBe(`${"a".repeat(78)}-2`);
        const cjk = await harness.createEntry(memory("日本語のメモ", "x"));
        expect(cjk.id).toBe("memory");
      });

      it("does not reuse the id of a deleted entry for a new title, and gives explicit ids a continuing version", async () => {
        const harness = harnessFor();
        const old = await harness.createEntry(memory("Recycled", "x"));
        await harness.deleteEntry({ kind: "memory", id: old.id, expectedVersion: 1 });
        const fresh = await harness.createEntry(memory("Recycled", "y"));
        expect(fresh.id).toBe("recycled-2");
        const explicit = await harness.createEntry({
          kind: "memory",
          id: "recycled",
          title: "Recycled",
          content: "z",
        });
        expect(explicit.version).toBe(2);
      });

      it("refuses an explicit id that exists", async () => {
        const harness = harnessFor();
        await harness.createEntry({ kind: "memory", id: "fixed", title: "Fixed", content: "x" });
        await expectHarnessError(
          harness.createEntry({ kind: "memory", id: "fixed", title: "Fixed", content: "y" }),
          HarnessConflictError,
          "conflict:entry",
        );
      });
    });

    describe("scope rules", () => {
      it("defaults to local and refuses global without the explicit flag", async () => {
        const harness = harnessFor({ role: "admin" });
        expect((await harness.createEntry(memory("Local", "x"))).scope).toBe("local");
        await expectHarnessError(
          harness.createEntry(memory("G", "x", { scope: "global" })),
          HarnessForbiddenError,
          "forbidden:entry",
        );
        const global = await harness.createEntry(memory("G", "x", { global: true }));
        expect(global).toMatchObject({ scope: "global", chatId: null });
        await expectHarnessError(
          harness.createEntry(memory("G", "x", { global: true, scope: "local" })),
          HarnessValidationError,
        );
      });

      it("lets members write local entries but not global ones", async () => {
        const editor = harnessFor({ role: "editor" });
        const member = harnessFor({ role: "member", userId: "user-member" });
        const global = await editor.createEntry(memory("Team fact", "x", { global: true }));
        const ref = { kind: "memory", id: global.id, scope: "global", global: true } as const;
        for (const write of [
          () => member.createEntry(memory("Mine", "x", { global: true })),
          () => member.updateEntry({ ...ref, expectedVersion: 1, content: "y" }),
          () => member.deleteEntry({ ...ref, expectedVersion: 1 }),
        ])
          await expectHarnessError(write(), HarnessForbiddenError);
        expect(await member.getEntry({ kind: "memory", id: global.id, scope: "global" })).toEqual(
          global,
        );
        expect((await member.createEntry(memory("Mine", "x"))).scope).toBe("local");
      });

      it("shows a chat the global entries plus its own local ones, both when ids are shared", async () => {
        const chat1 = harnessFor({ chatId: "chat-1" });
        const chat2 = harnessFor({ chatId: "chat-2" });
        await chat1.createEntry({
          kind: "memory",
          id: "x",
          title: "Global x",
          content: "g",
          global: true,
        });
        await chat1.createEntry({ kind: "memory", id: "x", title: "Local x", content: "l1" });
        await chat2.createEntry({
          kind: "memory",
          id: "other",
          title: "Chat 2 only",
          content: "l2",
        });

        const seen1 = (await chat1.listEntries()).items
          .map((entry) => `${entry.scope}:${entry.id}`)
          .sort();
        expect(seen1).toEqual(["global:x", "local:x"]);
        const seen2 = (await chat2.listEntries()).items
          .map((entry) => `${entry.scope}:${entry.id}`)
          .sort();
        expect(seen2).toEqual(["global:x", "local:other"]);
        expect(await chat2.getEntry({ kind: "memory", id: "x" })).toBeNull();
        expect((await chat2.getEntry({ kind: "memory", id: "x", scope: "global" }))?.content).toBe(
          "g",
        );
        expect(
          (await chat1.listEntries({ scope: "local" })).items.map((entry) => entry.content),
        ).toEqual(["l1"]);
        expect(
          (await chat1.listEntries({ scope: "global" })).items.map((entry) => entry.content),
        ).toEqual(["g"]);
        const snapshot = await chat1.snapshot();
        expect(snapshot.entries.map((entry) => `${entry.scope}:${entry.id}`)).toEqual([
          "global:x",
          "local:x",
        ]);
      });

      it("without a chat, sees only global entries and refuses local writes", async () => {
        const noChat = harnessFor({ chatId: null });
        await harnessFor().createEntry(memory("Local", "x"));
        await noChat.createEntry(memory("Global", "x", { global: true }));
        expect((await noChat.listEntries()).items.map((entry) => entry.scope)).toEqual(["global"]);
        await expectHarnessError(noChat.createEntry(memory("Local", "x")), HarnessValidationError);
      });

      it("keeps workspaces apart", async () => {
        const harness = harnessFor();
        const entry = await harness.createEntry(memory("Secret", "x", { global: true }));
        const other = createHarness({
          storage,
          actor: { userId: "u", workspaceId: `${workspaceId}-other`, role: "admin" },
          chatId: "chat-1",
          clock,
          generateId: ids,
        });
        expect(await other.getEntry({ kind: "memory", id: entry.id, scope: "global" })).toBeNull();
        expect((await other.listEntries()).items).toEqual([]);
        expect(await other.getHarnessVersion()).toBe(0);
      });
    });

    describe("optimistic concurrency", () => {
      it("fails a stale update or delete with a conflict and changes nothing", async () => {
        const harness = harnessFor();
        const entry = await memoryWithVersions(harness, "Race", "v1", "v2");
        const stale = await expectHarnessError(
          harness.updateEntry({
            kind: "memory",
            id: entry.id,
            expectedVersion: 1,
            content: "lost",
          }),
          HarnessConflictError,
          "conflict:entry",
        );
        expect(stale.details).toMatchObject({ expectedVersion: 1, currentVersion: 2 });
        await expectHarnessError(
          harness.deleteEntry({ kind: "memory", id: entry.id, expectedVersion: 1 }),
          HarnessConflictError,
        );
        expect((await harness.getEntryOrThrow({ kind: "memory", id: entry.id })).content).toBe(
          "v2",
        );
        expect(await harness.getHarnessVersion()).toBe(2);
        expect(await harness.history({ entryId: entry.id })).toHaveLength(2);
      });

      it("requires expectedVersion", async () => {
        const harness = harnessFor();
        const entry = await harness.createEntry(memory("Needs version", "x"));
        await expectHarnessError(
          harness.updateEntry({
            kind: "memory",
            id: entry.id,
            content: "y",
          } as unknown as Parameters<Harness["updateEntry"]>[0]),
          HarnessValidationError,
        );
      });

      it("lets exactly one of two concurrent writers win", async () => {
        const a = harnessFor({ userId: "a" });
        const b = harnessFor({ userId: "b" });
        const entry = await a.createEntry(memory("Contended", "v1"));
        const results = await Promise.allSettled([
          a.updateEntry({ kind: "memory", id: entry.id, expectedVersion: 1, content: "from a" }),
          b.updateEntry({ kind: "memory", id: entry.id, expectedVersion: 1, content: "from b" }),
        ]);
        expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(1);
        const rejected = results.find((result) => result.status === "rejected");
        expect(HarnessError.isInstance(rejected?.reason) && rejected.reason.code).toBe(
          "conflict:entry",
        );
        expect((await a.getEntryOrThrow({ kind: "memory", id: entry.id })).version).toBe(2);
      });

      it("reports a missing entry as not found", async () => {
        const harness = harnessFor();
        await expectHarnessError(
          harness.updateEntry({ kind: "memory", id: "nope", expectedVersion: 1, content: "x" }),
          HarnessNotFoundError,
          "not_found:entry",
        );
      });
    });

    describe("atomic batches", () => {
      it("applies several edits as one harness version", async () => {
        const harness = harnessFor();
        const keep = await harness.createEntry(memory("Keep", "x"));
        const drop = await harness.createEntry(memory("Drop", "x"));
        const result = await harness.applyEdits({
          reason: "refinement 1",
          cause: "refinement",
          source: "refinement",
          expectedHarnessVersion: 2,
          edits: [
            { op: "create", kind: "memory", title: "New lesson", content: "x" },
            { op: "create", kind: "memory", title: "New lesson", content: "y" },
            { op: "update", kind: "memory", id: keep.id, expectedVersion: 1, content: "better" },
            { op: "delete", kind: "memory", id: drop.id, expectedVersion: 1 },
          ],
        });
        expect(result.harnessVersion).toBe(3);
        expect(
          result.revisions.map((revision) => [
            revision.entryId,
            revision.action,
            revision.harnessVersion,
            revision.cause,
            revision.reason,
          ]),
        ).toEqual([
          ["new-lesson", "create", 3, "refinement", "refinement 1"],
          ["new-lesson-2", "create", 3, "refinement", "refinement 1"],
          ["keep", "update", 3, "refinement", "refinement 1"],
          ["drop", "delete", 3, "refinement", "refinement 1"],
        ]);
        expect((await harness.getEntryOrThrow({ kind: "memory", id: "keep" })).source).toBe(
          "refinement",
        );
      });

      it("applies nothing when one edit of the batch is stale", async () => {
        const harness = harnessFor();
        const entry = await memoryWithVersions(harness, "A", "x", "y");
        await expectHarnessError(
          harness.applyEdits({
            edits: [
              { op: "create", kind: "memory", title: "B", content: "x" },
              { op: "update", kind: "memory", id: entry.id, expectedVersion: 1, content: "z" },
            ],
          }),
          HarnessConflictError,
        );
        expect(await harness.getEntry({ kind: "memory", id: "b" })).toBeNull();
        expect(await harness.getHarnessVersion()).toBe(2);
      });

      it("checks expectations atomically inside the storage", async () => {
        const harness = harnessFor();
        const entry = await harness.createEntry(memory("A", "x"));
        const now = new Date().toISOString();
        const after: Entry = { ...entry, content: "z", version: 2, updatedAt: now };
        const created: Entry = { ...entry, id: "c", title: "C", version: 1 };
        const revision = (
          target: Entry,
          before: Entry | null,
          id: string,
        ): Omit<Revision, "harnessVersion"> => ({
          id,
          workspaceId,
          entryKey: entryKeyOf(target),
          entryId: target.id,
          kind: target.kind,
          scope: target.scope,
          chatId: target.chatId,
          action: before ? "update" : "create",
          before,
          after: target,
          actorId: "user-editor",
          reason: "",
          cause: "manual",
          createdAt: now,
        });
        await expectHarnessError(
          storage.applyChanges({
            workspaceId,
            changes: [
              { expectedVersion: null, revision: revision(created, null, "direct-1") },
              { expectedVersion: 7, revision: revision(after, entry, "direct-2") },
            ],
          }),
          HarnessConflictError,
          "conflict:entry",
        );
        expect(await storage.getEntry({ workspaceId, ref: created })).toBeNull();
        expect(await storage.getRevision({ workspaceId, revisionId: "direct-1" })).toBeNull();
        expect(await storage.getHarnessVersion({ workspaceId })).toBe(1);

        await expectHarnessError(
          storage.applyChanges({
            workspaceId,
            expectedHarnessVersion: 0,
            changes: [{ expectedVersion: null, revision: revision(created, null, "direct-3") }],
          }),
          HarnessConflictError,
          "conflict:harness",
        );
        const applied = await storage.applyChanges({
          workspaceId,
          expectedHarnessVersion: 1,
          changes: [
            { expectedVersion: null, revision: revision(created, null, "direct-4") },
            { expectedVersion: 1, revision: revision(after, entry, "direct-5") },
          ],
        });
        expect(applied.harnessVersion).toBe(2);
        expect(applied.revisions.map((stored) => [stored.id, stored.harnessVersion])).toEqual([
          ["direct-4", 2],
          ["direct-5", 2],
        ]);
        expect(await storage.getEntry({ workspaceId, ref: created })).toEqual(created);
        expect(await storage.getRevision({ workspaceId, revisionId: "direct-5" })).toEqual({
          ...revision(after, entry, "direct-5"),
          harnessVersion: 2,
        });
        expect(await storage.applyChanges({ workspaceId, changes: [] })).toEqual({
          harnessVersion: 2,
          revisions: [],
        });
      });

      it("refuses the same entry twice in one batch", async () => {
        const harness = harnessFor();
        const entry = await harness.createEntry(memory("Once", "x"));
        await expectHarnessError(
          harness.applyEdits({
            edits: [
              { op: "update", kind: "memory", id: entry.id, expectedVersion: 1, content: "y" },
              { op: "delete", kind: "memory", id: entry.id, expectedVersion: 1 },
            ],
          }),
          HarnessValidationError,
        );
      });

      it("honours an aborted signal", async () => {
        const harness = harnessFor();
        const controller = new AbortController();
        controller.abort(new Error("stop"));
        await expect(
          harness.createEntry(memory("Never", "x", { abortSignal: controller.signal })),
        ).rejects.toThrow("stop");
        expect(await harness.getHarnessVersion()).toBe(0);
      });
    });

    describe("optional capabilities", () => {
      it("getEntryAndLastRevision equals getEntry plus the newest revision of the key", async (context) => {
        const read = storage.getEntryAndLastRevision?.bind(storage);
        if (!read) {
          context.skip();
          return;
        }
        const harness = harnessFor();
        const kept = await memoryWithVersions(harness, "Kept", "x", "y");
        const gone = await harness.createEntry(memory("Gone", "x"));
        await harness.deleteEntry({ kind: "memory", id: gone.id, expectedVersion: 1 });
        const other = createHarness({
          storage,
          actor: { userId: "o", workspaceId: `${workspaceId}-other`, role: "editor" },
          chatId: "chat-1",
          clock,
          generateId: sequentialIds("other"),
        });
        await other.createEntry({ kind: "memory", id: "never", title: "Elsewhere", content: "x" });
        for (const id of [kept.id, gone.id, "never"]) {
          const ref = { kind: "memory" as const, scope: "local" as const, chatId: "chat-1", id };
          const newest = await storage.listRevisions({
            workspaceId,
            entryKey: entryKeyOf(ref),
            order: "desc",
            limit: 1,
          });
          expect(await read({ workspaceId, ref })).toEqual({
            entry: await storage.getEntry({ workspaceId, ref }),
            lastRevision: newest.items[0] ?? null,
          });
        }
        const controller = new AbortController();
        controller.abort(new Error("stop"));
        await expect(
          read({
            workspaceId,
            ref: { kind: "memory", scope: "local", chatId: "chat-1", id: kept.id },
            abortSignal: controller.signal,
          }),
        ).rejects.toThrow("stop");
      });
    });

    describe("snapshots", () => {
      it("reconstructs exactly what was there at every past version", async () => {
        const harness = harnessFor();
        const recorded = new Map<number, Entry[]>();
        const record = async () => {
          const snapshot = await harness.snapshot();
          recorded.set(snapshot.harnessVersion, snapshot.entries);
        };
        await record();
        const a = await harness.createEntry(memory("A", "a1"));
        await record();
        await harness.createSkill({
          name: "skill-b",
          description: "when b",
          body: "b1",
          global: true,
        });
        await record();
        await harness.updateEntry({ kind: "memory", id: a.id, expectedVersion: 1, content: "a2" });
        await record();
        await harness.applyEdits({
          edits: [
            { op: "delete", kind: "memory", id: a.id, expectedVersion: 2 },
            { op: "create", kind: "prompt", title: "C", content: "c1" },
          ],
        });
        await record();
        await harness.createEntry({ kind: "memory", id: a.id, title: "A again", content: "a3" });
        await record();
        await harnessFor({ chatId: "chat-2" }).createEntry(memory("Elsewhere", "x"));

        expect([...recorded.keys()]).toEqual([0, 1, 2, 3, 4, 5]);
        for (const [version, entries] of recorded) {
          const snapshot = await harness.snapshot({ atVersion: version });
          expect(snapshot.harnessVersion).toBe(version);
          expect(snapshot.entries).toEqual(entries);
        }
        expect(
          (await harness.snapshot({ atVersion: 3 })).entries.find((entry) => entry.id === "a")
            ?.content,
        ).toBe("a2");
        expect((await harness.snapshot({ atVersion: 4 })).entries.map((entry) => entry.id)).toEqual(
          ["c", "skill-b"],
        );
        await expectHarnessError(harness.snapshot({ atVersion: 99 }), HarnessValidationError);
        await expectHarnessError(harness.snapshot({ atVersion: -1 }), HarnessValidationError);
      });

      it("a remembered snapshot catches up exactly with every change and keeps unchanged entries", async () => {
        const cache = new SnapshotCache();
        const cached = (chatId: string | null) =>
          createHarness({ storage, actor: actorOf("editor"), chatId, clock, snapshotCache: cache });
        const fresh = (chatId: string | null) =>
          createHarness({ storage, actor: actorOf("editor"), chatId, clock, snapshotCache: null });
        const writer = harnessFor();
        const other = harnessFor({ chatId: "chat-2" });
        let previous = await cached("chat-1").snapshot();
        const check = async () => {
          for (const chatId of ["chat-1", null]) {
            const expected = await fresh(chatId).snapshot();
            const actual = await cached(chatId).snapshot();
            expect(actual).toEqual(expected);
            expect(Object.isFrozen(actual.entries)).toBe(true);
            expect(await cached(chatId).snapshot()).toBe(actual);
          }
          const now = await cached("chat-1").snapshot();
          // Views share one object per entry state: the chat's global entries are the very
          // objects of the workspace-wide view.
          const globalView = await cached(null).snapshot();
          for (const entry of now.entries.filter((item) => item.scope === "global")) {
            expect(globalView.entries).toContain(entry);
          }
          const before = new Map(previous.entries.map((entry) => [entryKeyOf(entry), entry]));
          for (const entry of now.entries) {
            const old = before.get(entryKeyOf(entry));
            // An entry whose revision did not move is the very same (frozen) object.
            if (old && old.version === entry.version && old.updatedAt === entry.updatedAt) {
              expect(entry).toBe(old);
            }
          }
          previous = now;
        };
        const a = await writer.createEntry(memory("A", "a1"));
        await check();
        const g = await writer.createEntry({
          kind: "prompt",
          title: "G",
          content: "g1",
          global: true,
        });
        await check();
        await other.createEntry(memory("Elsewhere", "x"));
        await check();
        await writer.updateEntry({ kind: "memory", id: a.id, expectedVersion: 1, content: "a2" });
        await check();
        const applied = await writer.applyEdits({
          edits: [
            { op: "delete", kind: "memory", id: a.id, expectedVersion: 2 },
            {
              op: "create",
              kind: "skill",
              title: "S",
              content: "b",
              metadata: { name: "s", description: "when s" },
            },
            {
              op: "update",
              kind: "prompt",
              global: true,
              id: g.id,
              expectedVersion: 1,
              content: "g2",
            },
          ],
        });
        await check();
        await writer.restoreRevision({ revisionId: applied.revisions[0]!.id });
        await check();
        await check();
      });

      it("a chat's first snapshot is the remembered global view plus its own entries, read alone and exact", async () => {
        const writer = harnessFor({ chatId: null });
        // Interleaved in canonical order: local and global memories, prompts, a skill.
        for (const title of ["Alpha", "Delta", "Kilo"]) {
          await writer.createEntry(memory(title, `global ${title}`, { global: true }));
        }
        await writer.createEntry({
          kind: "prompt",
          title: "Tone",
          content: "Be brief.",
          global: true,
        });
        await harnessFor({ chatId: "chat-1" }).createEntry(memory("Bravo", "local of chat-1"));
        await harnessFor({ chatId: "chat-2" }).createEntry(memory("Charlie", "local of chat-2"));
        await harnessFor({ chatId: "chat-2" }).createEntry(memory("Zulu", "local of chat-2"));
        const filters: unknown[] = [];
        const spied = new Proxy(storage, {
          get(target, key, receiver) {
            if (key === "listEntries") {
              return (options: Parameters<HarnessStoragePort["listEntries"]>[0]) => {
                filters.push(options.filter ?? {});
                return target.listEntries(options);
              };
            }
            const value: unknown = Reflect.get(target, key, receiver);
            return typeof value === "function" ? value.bind(target) : value;
          },
        });
        const cache = new SnapshotCache();
        const cached = (chatId: string | null) =>
          createHarness({
            storage: spied,
            actor: actorOf("editor"),
            chatId,
            clock,
            snapshotCache: cache,
          });
        const fresh = (chatId: string | null) =>
          createHarness({ storage, actor: actorOf("editor"), chatId, clock, snapshotCache: null });

        const first = await cached("chat-1").snapshot();
        expect(first).toEqual(await fresh("chat-1").snapshot());
        filters.length = 0;
        const second = await cached("chat-2").snapshot();
        expect(second).toEqual(await fresh("chat-2").snapshot());
        expect(second.entries.map((entry) => entry.title)).toEqual(
          (await fresh("chat-2").snapshot()).entries.map((entry) => entry.title),
        );
        expect(Object.isFrozen(second.entries)).toBe(true);
        // Only chat-2's own entries were read: the global ones came from the remembered view.
        expect(filters.length).toBeGreaterThan(0);
        expect(
          filters.every(
            (filter) =>
              JSON.stringify(filter) === JSON.stringify({ scope: "local", chatId: "chat-2" }),
          ),
        ).toBe(true);
        // And the global entries are the very objects of chat-1's view.
        for (const entry of second.entries.filter((item) => item.scope === "global")) {
          expect(first.entries).toContain(entry);
        }
        // A chat with no entries of its own sees exactly the global view.
        expect(await cached("chat-3").snapshot()).toEqual(await fresh("chat-3").snapshot());
      });

      it("pages through revisions in harness-version order", async () => {
        const harness = harnessFor();
        for (let index = 0; index < 7; index++) await harness.createEntry(memory(`M${index}`, "x"));
        const seen: number[] = [];
        let cursor: string | null = null;
        do {
          const page = await storage.listRevisionsInRange({
            workspaceId,
            afterHarnessVersion: 1,
            upToHarnessVersion: 6,
            cursor,
            limit: 2,
          });
          seen.push(...page.items.map((revision) => revision.harnessVersion));
          cursor = page.nextCursor;
        } while (cursor !== null);
        expect(seen).toEqual([2, 3, 4, 5, 6]);
      });
    });

    describe("restore", () => {
      it("restores an old revision as a new revision without rewriting the past", async () => {
        const harness = harnessFor();
        const v1 = await memoryWithVersions(harness, "Doc", "first", "second");
        await harness.updateEntry({
          kind: "memory",
          id: v1.id,
          expectedVersion: 2,
          content: "third",
          pinned: true,
        });
        const before = await harness.history({ entryId: v1.id });

        const restore = await harness.restoreRevision({ revisionId: before[0]!.id });
        expect(restore).toMatchObject({ action: "restore", cause: "rollback", harnessVersion: 4 });
        expect(restore.before?.content).toBe("third");
        expect(restore.after).toMatchObject({
          content: "first",
          pinned: false,
          version: 4,
          createdAt: v1.createdAt,
        });
        const after = await harness.history({ entryId: v1.id });
        expect(after.slice(0, 3)).toEqual(before);
        expect(after).toHaveLength(4);
        expect((await harness.getEntryOrThrow({ kind: "memory", id: v1.id })).content).toBe(
          "first",
        );
      });

      it("records where a change came from (via) on its revisions, and nothing when not given", async () => {
        const outside = createHarness({
          storage,
          actor: actorOf("editor"),
          chatId: null,
          clock,
          generateId: ids,
          via: "mcp:laptop (claude-code)",
        });
        const entry = await outside.createEntry({
          kind: "memory",
          global: true,
          title: "Via",
          content: "one",
        });
        await harnessFor().updateEntry({
          kind: "memory",
          id: entry.id,
          global: true,
          expectedVersion: 1,
          content: "two",
        });
        const history = await outside.history({ entryId: entry.id, scope: "global" });
        const byVersion = new Map(history.map((revision) => [revision.after?.version, revision]));
        expect(byVersion.get(1)?.via).toBe("mcp:laptop (claude-code)");
        expect(byVersion.get(2)).not.toHaveProperty("via");
        const stored = await storage.getRevision({ workspaceId, revisionId: byVersion.get(1)!.id });
        expect(stored?.via).toBe("mcp:laptop (claude-code)");
      });

      it("undeletes from a delete revision and continues the version count", async () => {
        const harness = harnessFor();
        const entry = await memoryWithVersions(harness, "Gone", "keep me", "keep me too");
        const deletion = await harness.deleteEntry({
          kind: "memory",
          id: entry.id,
          expectedVersion: 2,
        });
        const restore = await harness.restoreRevision({
          revisionId: deletion.id,
          cause: "manual",
          reason: "oops",
        });
        expect(restore).toMatchObject({ cause: "manual", reason: "oops", before: null });
        expect(await harness.getEntry({ kind: "memory", id: entry.id })).toMatchObject({
          content: "keep me too",
          version: 3,
        });
      });

      it("checks expectedVersion, global rights and chat visibility", async () => {
        const editor = harnessFor();
        const member = harnessFor({ role: "member", userId: "m" });
        const global = await editor.createEntry(memory("Team", "x", { global: true }));
        const [created] = await editor.history({ entryId: global.id, scope: "global" });
        await editor.updateEntry({
          kind: "memory",
          id: global.id,
          scope: "global",
          global: true,
          expectedVersion: 1,
          content: "y",
        });
        await expectHarnessError(
          member.restoreRevision({ revisionId: created!.id, global: true }),
          HarnessForbiddenError,
        );
        await expectHarnessError(
          editor.restoreRevision({ revisionId: created!.id }),
          HarnessForbiddenError,
        );
        await expectHarnessError(
          editor.restoreRevision({ revisionId: created!.id, global: true, expectedVersion: 1 }),
          HarnessConflictError,
        );
        await editor.restoreRevision({ revisionId: created!.id, global: true, expectedVersion: 2 });

        const local = await editor.createEntry(memory("Private", "x"));
        const [localCreated] = await editor.history({ entryId: local.id, scope: "local" });
        await expectHarnessError(
          harnessFor({ chatId: "chat-2" }).restoreRevision({ revisionId: localCreated!.id }),
          HarnessNotFoundError,
        );
        await expectHarnessError(
          editor.restoreRevision({ revisionId: "missing" }),
          HarnessNotFoundError,
        );
      });
    });

    describe("listing", () => {
      it("paginates newest first without gaps or duplicates", async () => {
        const harness = harnessFor();
        for (let index = 0; index < 23; index++)
          await harness.createEntry(memory(`Entry ${index}`, `content ${index}`));
        const seen: string[] = [];
        let cursor: string | null = null;
        let pages = 0;
        do {
          const page = await harness.listEntries({ cursor, limit: 5 });
          expect(page.items.length).toBeLessThanOrEqual(5);
          seen.push(...page.items.map((entry) => entry.id));
          cursor = page.nextCursor;
          pages++;
        } while (cursor !== null);
        expect(pages).toBe(5);
        expect(new Set(seen).size).toBe(23);
        expect(seen[0]).toBe("entry-22");
        expect(seen.at(-1)).toBe("entry-0");
      });

      it("filters by kind, path prefix, pinned and text (case-insensitive)", async () => {
        const harness = harnessFor();
        await harness.createEntry(
          memory("Build steps", "Run MAKE twice", { path: "project-x/build" }),
        );
        await harness.createEntry(
          memory("Deploy", "Use the staging cluster", { path: "project-x/deploy", pinned: true }),
        );
        await harness.createEntry(memory("Other", "nothing", { path: "project-xy" }));
        await harness.createEntry({
          kind: "prompt",
          title: "Tone",
          content: "Be brief about make",
          path: "project-x",
        });

        const ids = async (input: Parameters<Harness["listEntries"]>[0]) =>
          (await harness.listEntries(input)).items.map((entry) => entry.id).sort();
        expect(await ids({ kind: "prompt" })).toEqual(["tone"]);
        expect(await ids({ kind: ["prompt", "memory"] })).toHaveLength(4);
        expect(await ids({ pathPrefix: "project-x" })).toEqual(["build-steps", "deploy", "tone"]);
        expect(await ids({ pathPrefix: "project-x/build" })).toEqual(["build-steps"]);
        expect(await ids({ text: "make" })).toEqual(["build-steps", "tone"]);
        expect(await ids({ text: "STAGING" })).toEqual(["deploy"]);
        expect(await ids({ text: "deploy" })).toEqual(["deploy"]);
        expect(await ids({ pinned: true })).toEqual(["deploy"]);
        expect(await ids({ kind: "memory", text: "make", pathPrefix: "project-x" })).toEqual([
          "build-steps",
        ]);
      });

      it("summarises the merged view in overview", async () => {
        const harness = harnessFor();
        await harness.createEntry(memory("One", "x"));
        await harness.createEntry(memory("Two", "x", { pinned: true }));
        await harness.createEntry(memory("Three", "x"));
        await harness.createSkill({
          name: "pdf",
          description: "PDFs",
          body: "b",
          global: true,
        });
        const text = await harness.overview({ limit: 2 });
        expect(text).toContain(
          "Harness v4: 0 prompt notes, 3 memories, 1 skills, 0 sub-agents (1 global, 3 local)",
        );
        expect(text).toContain(
          "Memories (3):\n  [local:two] Two (general, v1, pinned)\n  [local:three] Three (general, v1)\n  +1 more",
        );
        expect(text).toContain("[global:pdf] pdf (general, v1)");
      });
    });
  });
}
