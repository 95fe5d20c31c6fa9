// The continual-harness design's typed calls (createMemory/updateMemory/deleteMemory, the same
// for prompt notes, overview) are the generic calls with the kind filled in: these tests hold
// them to exactly what createEntry/updateEntry/deleteEntry do — entries, revisions, refusals.
import { describe, expect, it } from "vitest";
import type { Actor, Role } from "../actor";
import { HarnessError, HarnessValidationError } from "../errors";
import { createHarness, type Harness } from "./create-harness";
import type { CreateEntryInput, DeleteEntryInput, UpdateEntryInput } from "./harness-api";
import { InMemoryHarnessStorage } from "./in-memory-storage";
import type { EntryKind } from "./types";

const WORKSPACE = "ws-typed";

/** Per storage: the clock's tick and the last revision id, so harnesses sharing one agree. */
const counters = new WeakMap<InMemoryHarnessStorage, { tick: number; revision: number }>();

/** A harness (on a fresh in-memory storage unless given one), deterministic clock and ids. */
function harnessOf(
  options: { role?: Role; chatId?: string | null; storage?: InMemoryHarnessStorage } = {},
): Harness {
  const actor: Actor = { userId: "user-1", workspaceId: WORKSPACE, role: options.role ?? "editor" };
  const storage = options.storage ?? new InMemoryHarnessStorage();
  const counter = counters.get(storage) ?? { tick: 0, revision: 0 };
  counters.set(storage, counter);
  return createHarness({
    storage,
    actor,
    chatId: options.chatId === undefined ? "chat-1" : options.chatId,
    clock: () => new Date(Date.UTC(2025, 0, 1) + counter.tick++ * 1000),
    generateId: () => `rev-${++counter.revision}`,
    snapshotCache: null,
  });
}

/** What a call threw, as the fields a caller can see; `null` when it did not throw. */
async function failureOf(call: () => Promise<unknown>) {
  try {
    await call();
    return null;
  } catch (error) {
    if (!HarnessError.isInstance(error)) throw error;
    return { name: error.name, code: error.code, message: error.message, details: error.details };
  }
}

/** The typed calls of one kind, named as the generic calls they stand for. */
function typedCalls(harness: Harness, kind: "memory" | "prompt") {
  return kind === "memory"
    ? {
        create: harness.createMemory,
        update: harness.updateMemory,
        delete: harness.deleteMemory,
      }
    : {
        create: harness.createPrompt,
        update: harness.updatePrompt,
        delete: harness.deletePrompt,
      };
}

/** The generic calls with `kind` added, in the typed calls' shape. */
function genericCalls(harness: Harness, kind: EntryKind) {
  return {
    create: (input: Omit<CreateEntryInput, "kind">) => harness.createEntry({ ...input, kind }),
    update: (input: Omit<UpdateEntryInput, "kind">) => harness.updateEntry({ ...input, kind }),
    delete: (input: Omit<DeleteEntryInput, "kind">) => harness.deleteEntry({ ...input, kind }),
  };
}

describe.each(["memory", "prompt"] as const)("typed calls for %s entries", (kind) => {
  it("creates, updates and deletes the kind, with each reason recorded on its revision", async () => {
    const harness = harnessOf();
    const calls = typedCalls(harness, kind);

    const created = await calls.create({
      title: "Project-X build steps",
      content: "Use `make` after installing dependencies.",
      path: "project-x/build",
      reason: "Learned while setting up",
    });
    expect(created).toMatchObject({
      kind,
      id: "project-x-build-steps",
      scope: "local",
      chatId: "chat-1",
      path: "project-x/build",
      version: 1,
    });
    const updated = await calls.update({
      id: created.id,
      expectedVersion: 1,
      content: "Run `make clean` before `make` to avoid stale artifacts.",
      reason: "Observed repeated build failures",
    });
    expect(updated).toMatchObject({ kind, version: 2, title: created.title });
    expect(updated.content).toBe("Run `make clean` before `make` to avoid stale artifacts.");
    const deletion = await calls.delete({
      id: created.id,
      expectedVersion: 2,
      reason: "Project-X moved to Bazel",
    });
    expect(deletion).toMatchObject({ kind, action: "delete", before: updated, after: null });

    const history = await harness.history({ entryId: created.id });
    expect(
      history.map(({ kind, action, reason, cause }) => ({ kind, action, reason, cause })),
    ).toEqual([
      { kind, action: "create", reason: "Learned while setting up", cause: "manual" },
      { kind, action: "update", reason: "Observed repeated build failures", cause: "manual" },
      { kind, action: "delete", reason: "Project-X moved to Bazel", cause: "manual" },
    ]);
    expect(await harness.getHarnessVersion()).toBe(3);
  });

  it("writes exactly what the generic calls write (entries and revisions)", async () => {
    const run = async (calls: ReturnType<typeof typedCalls>, harness: Harness) => {
      const a = await calls.create({ title: "A", content: "a", pinned: true, cause: "import" });
      const b = await calls.create({
        id: "shared",
        title: "B",
        content: "b",
        global: true,
        metadata: { tags: ["x"] },
        source: "agent",
      });
      await calls.update({ id: a.id, expectedVersion: 1, title: "A2", reason: "rename" });
      await calls.update({
        id: b.id,
        global: true,
        expectedVersion: 1,
        metadataPatch: { tags: null, note: "n" },
      });
      await calls.delete({ id: a.id, expectedVersion: 2, reason: "gone" });
      return {
        snapshot: await harness.snapshot(),
        history: [
          ...(await harness.history({ entryId: a.id })),
          ...(await harness.history({ entryId: b.id })),
        ],
      };
    };
    const typed = harnessOf();
    const generic = harnessOf();
    expect(await run(typedCalls(typed, kind), typed)).toEqual(
      await run(genericCalls(generic, kind), generic),
    );
  });

  it("writes its own kind even when a caller slips another kind in", async () => {
    const harness = harnessOf();
    const input = { title: "Sneaky", content: "x", kind: "skill" } as unknown as Parameters<
      Harness["createMemory"]
    >[0];
    expect((await typedCalls(harness, kind).create(input)).kind).toBe(kind);
  });

  it("refuses what the generic calls refuse, with the same error, and writes nothing", async () => {
    const bad: Omit<CreateEntryInput, "kind">[] = [
      { title: "two\nlines", content: "x" },
      { title: "empty", content: "   " },
      { title: "nul", content: "a\u0000b" },
      { title: "path", content: "x", path: "../etc" },
      { title: "id", content: "x", id: "Bad Id" },
      { title: "t".repeat(201), content: "x" },
      { title: "base", content: "x", id: "base_system_prompt" },
      { title: "scope alone", content: "x", scope: "global" },
    ];
    for (const input of bad) {
      const typed = harnessOf();
      const generic = harnessOf();
      const typedFailure = await failureOf(() => typedCalls(typed, kind).create(input));
      expect(typedFailure, JSON.stringify(input).slice(0, 80)).not.toBeNull();
      expect(typedFailure).toEqual(
        await failureOf(() => genericCalls(generic, kind).create(input)),
      );
      expect(await typed.getHarnessVersion()).toBe(0);
    }

    // Updates and deletes: a stale version, a missing entry, a bad field.
    const typed = harnessOf();
    const generic = harnessOf();
    for (const harness of [typed, generic])
      await harness.createEntry({ kind, id: "kept", title: "Kept", content: "x" });
    const refusals: [string, (calls: ReturnType<typeof typedCalls>) => Promise<unknown>][] = [
      ["stale update", (calls) => calls.update({ id: "kept", expectedVersion: 7, content: "y" })],
      ["missing update", (calls) => calls.update({ id: "nope", expectedVersion: 1, content: "y" })],
      ["bad title", (calls) => calls.update({ id: "kept", expectedVersion: 1, title: "a\nb" })],
      ["stale delete", (calls) => calls.delete({ id: "kept", expectedVersion: 2 })],
      ["missing delete", (calls) => calls.delete({ id: "nope", expectedVersion: 1 })],
    ];
    for (const [label, call] of refusals) {
      const typedFailure = await failureOf(() => call(typedCalls(typed, kind)));
      expect(typedFailure, label).not.toBeNull();
      expect(typedFailure, label).toEqual(await failureOf(() => call(genericCalls(generic, kind))));
    }
    expect(await typed.getHarnessVersion()).toBe(1);
  });

  it("lets only an editor write a global entry, and only with global: true", async () => {
    const storage = new InMemoryHarnessStorage();
    const member = harnessOf({ role: "member", storage });
    const input = { title: "Team rule", content: "x", global: true };
    const refusal = await failureOf(() => typedCalls(member, kind).create(input));
    expect(refusal).toMatchObject({ name: "HarnessForbiddenError", code: "forbidden:entry" });
    expect(refusal).toEqual(await failureOf(() => genericCalls(member, kind).create(input)));
    expect(await member.getHarnessVersion()).toBe(0);

    const editor = harnessOf({ role: "editor", storage });
    const global = await typedCalls(editor, kind).create(input);
    expect(global).toMatchObject({ kind, scope: "global", chatId: null });
    // A member may not change or delete it either, through either door.
    for (const call of [
      (calls: ReturnType<typeof typedCalls>) =>
        calls.update({ id: global.id, global: true, expectedVersion: 1, content: "y" }),
      (calls: ReturnType<typeof typedCalls>) =>
        calls.delete({ id: global.id, global: true, expectedVersion: 1 }),
    ]) {
      const typedRefusal = await failureOf(() => call(typedCalls(member, kind)));
      expect(typedRefusal).toMatchObject({ name: "HarnessForbiddenError" });
      expect(typedRefusal).toEqual(await failureOf(() => call(genericCalls(member, kind))));
    }
    // A member's local entry is fine; outside a chat there is no local scope.
    expect((await typedCalls(member, kind).create({ title: "Mine", content: "x" })).scope).toBe(
      "local",
    );
    const noChat = harnessOf({ role: "admin", storage, chatId: null });
    const local = { title: "Nowhere", content: "x" };
    const noChatRefusal = await failureOf(() => typedCalls(noChat, kind).create(local));
    expect(noChatRefusal).not.toBeNull();
    expect(noChatRefusal).toEqual(await failureOf(() => genericCalls(noChat, kind).create(local)));
  });
});

describe("overview({ limit })", () => {
  async function sevenMemories(harness: Harness) {
    for (const n of [1, 2, 3, 4, 5, 6, 7])
      await harness.createMemory({ id: `m${n}`, title: `Memory ${n}`, content: "x" });
  }

  it("lists per kind up to 5 entries by default, newest first, and counts the rest", async () => {
    const harness = harnessOf();
    await sevenMemories(harness);
    await harness.createPrompt({ title: "Tone", content: "Be brief.", global: true });
    expect(await harness.overview()).toBe(
      [
        "Harness v8: 1 prompt notes, 7 memories, 0 skills, 0 sub-agents (1 global, 7 local)",
        "Prompt notes (1):",
        "  [global:tone] Tone (general, v1)",
        "Memories (7):",
        "  [local:m7] Memory 7 (general, v1)",
        "  [local:m6] Memory 6 (general, v1)",
        "  [local:m5] Memory 5 (general, v1)",
        "  [local:m4] Memory 4 (general, v1)",
        "  [local:m3] Memory 3 (general, v1)",
        "  +2 more",
      ].join("\n"),
    );
  });

  it("puts pinned entries first, then the most recently updated", async () => {
    const harness = harnessOf();
    await sevenMemories(harness);
    await harness.updateMemory({ id: "m1", expectedVersion: 1, content: "y", reason: "fresh" });
    await harness.setPinned({ kind: "memory", id: "m2", expectedVersion: 1, pinned: true });
    const lines = (await harness.overview({ limit: 3 })).split("\n");
    expect(lines.slice(1)).toEqual([
      "Memories (7):",
      "  [local:m2] Memory 2 (general, v2, pinned)",
      "  [local:m1] Memory 1 (general, v2)",
      "  [local:m7] Memory 7 (general, v1)",
      "  +4 more",
    ]);
  });

  it("shows counts only at limit 0 and refuses a limit that is not a whole number ≥ 0", async () => {
    const harness = harnessOf();
    await sevenMemories(harness);
    expect((await harness.overview({ limit: 0 })).split("\n").slice(1)).toEqual([
      "Memories (7):",
      "  +7 more",
    ]);
    expect((await harness.overview({ limit: 100 })).split("\n")).toHaveLength(9);
    for (const limit of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      const error = await harness.overview({ limit }).then(
        () => null,
        (caught: unknown) => caught,
      );
      expect(HarnessValidationError.isInstance(error), String(limit)).toBe(true);
      expect((error as HarnessValidationError).code).toBe("validation:input");
    }
  });
});
