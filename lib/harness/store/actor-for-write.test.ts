// Issue 29, item 3: the role a write is made with is read through the store's own write path
// (`actorForWrite`, asked by `beginWrite`, the only way a write gets a planner), not by matching
// method names. Every method of the facade is called here once; the table must name them all, so
// a method added later fails this test until it is listed — and, being a write, it cannot plan a
// change without passing the check, which the per-method assertions below then show.
import { describe, expect, it } from "vitest";
import type { Actor, Role } from "../actor";
import { HarnessForbiddenError } from "../errors";
import { createHarness, type Harness } from "./create-harness";
import { InMemoryHarnessStorage } from "./in-memory-storage";

const WORKSPACE = "ws-actor-for-write";
const EDITOR: Actor = { userId: "user-1", workspaceId: WORKSPACE, role: "editor" };

type Call = (harness: Harness, ids: { memory: string; skill: string; subagent: string }) => unknown;

/** Each method: whether it writes, and a call that succeeds for an editor. */
const METHODS: Record<string, { writes: boolean; call: Call }> = {
  createEntry: {
    writes: true,
    call: (h) => h.createEntry({ kind: "memory", title: "A", content: "a", global: true }),
  },
  updateEntry: {
    writes: true,
    call: (h, ids) =>
      h.updateEntry({
        kind: "memory",
        id: ids.memory,
        global: true,
        expectedVersion: 1,
        content: "changed",
      }),
  },
  deleteEntry: {
    writes: true,
    call: (h, ids) =>
      h.deleteEntry({ kind: "memory", id: ids.memory, global: true, expectedVersion: 1 }),
  },
  createMemory: {
    writes: true,
    call: (h) => h.createMemory({ title: "M", content: "m", global: true }),
  },
  updateMemory: {
    writes: true,
    call: (h, ids) =>
      h.updateMemory({
        id: ids.memory,
        global: true,
        expectedVersion: 1,
        content: "m2",
        reason: "r",
      }),
  },
  deleteMemory: {
    writes: true,
    call: (h, ids) => h.deleteMemory({ id: ids.memory, global: true, expectedVersion: 1 }),
  },
  createPrompt: {
    writes: true,
    call: (h) => h.createPrompt({ title: "P", content: "p", global: true }),
  },
  updatePrompt: {
    writes: true,
    call: async (h) => {
      const prompt = await h.createPrompt({ title: "P2", content: "p", global: true });
      return h.updatePrompt({
        id: prompt.id,
        global: true,
        expectedVersion: prompt.version,
        content: "p2",
      });
    },
  },
  deletePrompt: {
    writes: true,
    call: async (h) => {
      const prompt = await h.createPrompt({ title: "P3", content: "p", global: true });
      return h.deletePrompt({ id: prompt.id, global: true, expectedVersion: prompt.version });
    },
  },
  createSkill: {
    writes: true,
    call: (h) =>
      h.createSkill({ name: "deploy", description: "Deploys", body: "Run it.", global: true }),
  },
  updateSkill: {
    writes: true,
    call: (h, ids) =>
      h.updateSkill({
        id: ids.skill,
        global: true,
        expectedVersion: 1,
        name: "review",
        description: "Reviews",
        body: "Read it again.",
      }),
  },
  createSubagent: {
    writes: true,
    call: (h) =>
      h.createSubagent({
        name: "scout",
        description: "Looks around",
        instructions: "Look.",
        tools: [],
        global: true,
      }),
  },
  updateSubagent: {
    writes: true,
    call: (h, ids) =>
      h.updateSubagent({
        id: ids.subagent,
        global: true,
        expectedVersion: 1,
        name: "helper",
        description: "Helps out",
        instructions: "Look closer.",
        tools: [],
      }),
  },
  setPinned: {
    writes: true,
    call: (h, ids) =>
      h.setPinned({
        kind: "memory",
        id: ids.memory,
        scope: "global",
        global: true,
        expectedVersion: 1,
        pinned: true,
      }),
  },
  applyEdits: {
    writes: true,
    call: (h) =>
      h.applyEdits({
        edits: [{ op: "create", kind: "memory", title: "E", content: "e", global: true }],
      }),
  },
  restoreRevision: {
    writes: true,
    call: async (h, ids) => {
      const [first] = await h.history({ entryId: ids.memory, kind: "memory", scope: "global" });
      return h.restoreRevision({ revisionId: first!.id, global: true });
    },
  },
  getEntry: {
    writes: false,
    call: (h, ids) => h.getEntry({ kind: "memory", id: ids.memory, scope: "global" }),
  },
  getEntryOrThrow: {
    writes: false,
    call: (h, ids) => h.getEntryOrThrow({ kind: "memory", id: ids.memory, scope: "global" }),
  },
  listEntries: { writes: false, call: (h) => h.listEntries() },
  history: { writes: false, call: (h, ids) => h.history({ entryId: ids.memory }) },
  snapshot: { writes: false, call: (h) => h.snapshot() },
  getHarnessVersion: { writes: false, call: (h) => h.getHarnessVersion() },
  overview: { writes: false, call: (h) => h.overview({ limit: 2 }) },
};

/** A harness made for `EDITOR` in chat-1, without a snapshot cache, whose writes ask `actorForWrite`. */
function editorHarness(
  storage: InMemoryHarnessStorage,
  actorForWrite?: () => Promise<Actor>,
): Harness {
  return createHarness({
    storage,
    actor: EDITOR,
    chatId: "chat-1",
    snapshotCache: null,
    actorForWrite,
  });
}

/** A storage with one global memory, skill and sub-agent, written by an editor. */
async function seeded() {
  const storage = new InMemoryHarnessStorage();
  const setup = editorHarness(storage);
  const memory = await setup.createMemory({ title: "Seed", content: "seed", global: true });
  const skill = await setup.createSkill({
    name: "seed-skill",
    description: "Seeds",
    body: "Seed.",
    global: true,
  });
  const subagent = await setup.createSubagent({
    name: "seed-agent",
    description: "Seeds",
    instructions: "Seed.",
    tools: [],
    global: true,
  });
  return { storage, ids: { memory: memory.id, skill: skill.id, subagent: subagent.id } };
}

/** A harness made for `EDITOR` whose writes are made by whoever `roleNow()` says. */
function harnessAsked(storage: InMemoryHarnessStorage, roleNow: () => Role) {
  const asked: string[] = [];
  const harness = editorHarness(storage, () => {
    asked.push("asked");
    return Promise.resolve({ ...EDITOR, role: roleNow() });
  });
  return { harness, asked };
}

describe("actorForWrite: every write asks who makes it, no read does", () => {
  it("the table names every method of the facade", async () => {
    const { storage } = await seeded();
    const { harness } = harnessAsked(storage, () => "editor");
    const methods = Object.entries(harness)
      .filter(([, value]) => typeof value === "function")
      .map(([name]) => name)
      .sort();
    expect(methods).toEqual(Object.keys(METHODS).sort());
  });

  for (const [name, { writes, call }] of Object.entries(METHODS)) {
    it(`${name} ${writes ? "asks once and is refused for a role lost meanwhile" : "never asks"}`, async () => {
      const { storage, ids } = await seeded();
      const asEditor = harnessAsked(storage, () => "editor");
      await call(asEditor.harness, ids);
      const expectedAsks = name === "updatePrompt" || name === "deletePrompt" ? 2 : 1;
      expect(asEditor.asked.length).toBe(writes ? expectedAsks : 0);

      if (!writes) return;
      // Made for an editor, but the role read at the write is member: a global write is refused.
      const fresh = await seeded();
      const demoted = harnessAsked(fresh.storage, () => "member");
      const versionBefore = await demoted.harness.getHarnessVersion();
      await expect(call(demoted.harness, fresh.ids)).rejects.toSatisfy((error) =>
        HarnessForbiddenError.isInstance(error),
      );
      expect(await demoted.harness.getHarnessVersion()).toBe(versionBefore);
    });
  }

  it("a refusal thrown by actorForWrite stops the write before anything is planned", async () => {
    const { storage } = await seeded();
    const harness = editorHarness(storage, () =>
      Promise.reject(new HarnessForbiddenError({ message: "no longer a member" })),
    );
    const before = await harness.getHarnessVersion();
    await expect(harness.createMemory({ title: "Local", content: "x" })).rejects.toThrow(
      /no longer a member/,
    );
    expect(await harness.getHarnessVersion()).toBe(before);
  });

  it("refuses an actorForWrite that answers with another person", async () => {
    const { storage } = await seeded();
    const harness = editorHarness(storage, () =>
      Promise.resolve({ ...EDITOR, userId: "someone-else" }),
    );
    await expect(harness.createMemory({ title: "Local", content: "x" })).rejects.toThrow(
      /same person/,
    );
  });
});
