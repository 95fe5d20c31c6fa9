// Over 500 lines, knowingly: one case per edit rule and outcome of applying a refinement,
// sharing its fixtures.
import { describe, expect, it } from "vitest";
import { HarnessError } from "../errors";
import { entryKeyOf, type Harness } from "../store";
import { applyRefinement, MAX_REFINEMENT_EDITS } from "./apply-refinement";
import { editor, harnessFixture, member } from "./internal/test-support";
import { type ProposedEdit } from "./types";

async function versionsOf(harness: Harness): Promise<Record<string, number>> {
  const snapshot = await harness.snapshot();
  return Object.fromEntries(snapshot.entries.map((entry) => [entryKeyOf(entry), entry.version]));
}

async function setup() {
  const fixture = harnessFixture();
  const local = fixture.harness(member, "chat-1");
  const admin = fixture.harness(editor, "chat-1");
  await local.createEntry({
    kind: "memory",
    id: "deploys",
    title: "Deploys",
    content: "We deploy on Fridays.",
  });
  await local.createEntry({ kind: "memory", id: "old", title: "Old", content: "Stale fact." });
  await admin.createEntry({
    kind: "memory",
    id: "team",
    title: "Team",
    content: "Team of five.",
    global: true,
  });
  await admin.createSkill({
    id: "release",
    name: "release",
    description: "Use when cutting a release",
    body: "1. Tag\n2. Push",
    global: true,
  });
  return { ...fixture, local, admin };
}

function edit(overrides: Partial<ProposedEdit>): ProposedEdit {
  return { action: "create", kind: "memory", reason: "evidence", ...overrides };
}

async function applyLocal(
  harness: Harness,
  edits: ProposedEdit[],
  versions?: Record<string, number>,
) {
  return applyRefinement({
    harness,
    plan: { summary: "test", edits },
    scope: "local",
    actor: harness.actor,
    plannedAt: { entryVersions: versions ?? (await versionsOf(harness)) },
  });
}

describe("applyRefinement", () => {
  it("applies valid edits together in one harness version and records before/after", async () => {
    const { local } = await setup();
    const before = await local.getHarnessVersion();
    const result = await applyLocal(local, [
      edit({ id: "lunch", title: "Lunch", content: "Lunch at noon." }),
      edit({ action: "update", id: "deploys", content: "We deploy on Thursdays." }),
      edit({ action: "delete", id: "old" }),
    ]);
    expect(result.status).toBe("applied");
    expect(result.harnessVersionBefore).toBe(before);
    expect(result.harnessVersionAfter).toBe(before + 1);
    expect(result.edits.map((item) => item.result)).toEqual(["applied", "applied", "applied"]);
    const [created, updated, deleted] = result.edits;
    expect(created!.before).toBeNull();
    expect(created!.after).toMatchObject({ id: "lunch", source: "refinement", version: 1 });
    expect(updated!.before?.content).toBe("We deploy on Fridays.");
    expect(updated!.after?.content).toBe("We deploy on Thursdays.");
    expect(deleted!.before?.id).toBe("old");
    expect(deleted!.after).toBeNull();
    expect(created!.revisionId).toBeTruthy();
    expect(await local.getEntry({ kind: "memory", id: "old" })).toBeNull();
    const history = await local.history({ entryId: "deploys" });
    expect(history.at(-1)).toMatchObject({ cause: "refinement", reason: "evidence" });
  });

  it("creates without an id from a slug of the title and records the resulting key", async () => {
    const { local } = await setup();
    const result = await applyLocal(local, [edit({ title: "Coffee Rules", content: "Oat milk." })]);
    expect(result.edits[0]).toMatchObject({
      result: "applied",
      entryKey: "local/chat-1/memory/coffee-rules",
    });
  });

  it.each([
    ["unknown action", edit({ action: "rename", id: "deploys" }), "refine:unknown_action"],
    ["unknown kind", edit({ kind: "note", title: "T", content: "C" }), "refine:unknown_kind"],
    ["missing reason", edit({ reason: " ", title: "T", content: "C" }), "refine:missing_field"],
    ["update without id", edit({ action: "update", content: "C" }), "refine:missing_field"],
    ["delete without id", edit({ action: "delete" }), "refine:missing_field"],
    ["create without content", edit({ id: "x", title: "T" }), "refine:missing_field"],
    ["update with nothing", edit({ action: "update", id: "deploys" }), "refine:missing_field"],
    ["invalid id", edit({ id: "Bad Id", title: "T", content: "C" }), "refine:invalid_entry"],
    [
      "base prompt",
      edit({ action: "update", id: "base_system_prompt", content: "Obey." }),
      "refine:base_prompt",
    ],
    [
      "base prompt (dash spelling)",
      edit({ id: "base-system-prompt", title: "T", content: "C" }),
      "refine:base_prompt",
    ],
    [
      "kind contract",
      edit({ kind: "skill", id: "s", title: "S", content: "Body", metadata: { name: "s" } }),
      "refine:invalid_entry",
    ],
    [
      "size limit",
      edit({ id: "huge", title: "Huge", content: "x".repeat(64 * 1024 + 1) }),
      "refine:invalid_entry",
    ],
    [
      "multi-line title",
      edit({ action: "update", id: "deploys", title: "two\nlines" }),
      "refine:invalid_entry",
    ],
    ["missing target", edit({ action: "update", id: "nope", content: "C" }), "refine:not_found"],
    [
      "existing target",
      edit({ id: "deploys", title: "Deploys", content: "again" }),
      "refine:already_exists",
    ],
    [
      "global entry in a local refinement",
      edit({ action: "update", id: "team", content: "Team of six." }),
      "refine:read_only_global",
    ],
    [
      "global entry deleted by a local refinement",
      edit({ action: "delete", id: "team" }),
      "refine:read_only_global",
    ],
  ])("fails an edit with %s and applies the valid ones", async (_name, bad, code) => {
    const { local } = await setup();
    const before = await local.snapshot();
    const result = await applyLocal(local, [
      bad,
      edit({ id: "lunch", title: "Lunch", content: "Lunch at noon." }),
    ]);
    expect(result.edits[0]).toMatchObject({ result: "failed", error: { code } });
    expect(result.edits[0]!.after).toBeNull();
    expect(result.edits[1]!.result).toBe("applied");
    expect(result.status).toBe("partial");
    const after = await local.snapshot();
    expect(after.harnessVersion).toBe(before.harnessVersion + 1);
    // Only the valid edit changed anything.
    expect(after.entries.length).toBe(before.entries.length + 1);
    expect(after.entries.filter((entry) => entry.id !== "lunch")).toEqual(before.entries);
  });

  it("fails a second edit of the same entry", async () => {
    const { local } = await setup();
    const result = await applyLocal(local, [
      edit({ action: "update", id: "deploys", content: "A" }),
      edit({ action: "delete", id: "deploys" }),
    ]);
    expect(result.edits.map((item) => item.error?.code)).toEqual([
      undefined,
      "refine:duplicate_target",
    ]);
    expect((await local.getEntry({ kind: "memory", id: "deploys" }))?.content).toBe("A");
  });

  it("merges update metadata into the current metadata", async () => {
    const { admin } = await setup();
    const result = await applyRefinement({
      harness: admin,
      plan: {
        summary: "s",
        edits: [
          edit({
            action: "update",
            kind: "skill",
            id: "release",
            metadata: { description: "Use when shipping a release" },
          }),
        ],
      },
      scope: "global",
      global: true,
      actor: editor,
      plannedAt: { entryVersions: await versionsOf(admin) },
    });
    expect(result.status).toBe("applied");
    expect(result.edits[0]!.after?.metadata).toEqual({
      name: "release",
      description: "Use when shipping a release",
    });
  });

  it("reports an update that changes nothing as unchanged and writes nothing", async () => {
    const { local } = await setup();
    const version = await local.getHarnessVersion();
    const result = await applyLocal(local, [
      edit({ action: "update", id: "deploys", content: "We deploy on Fridays." }),
    ]);
    expect(result.edits[0]!.result).toBe("unchanged");
    expect(result.status).toBe("no_changes");
    expect(await local.getHarnessVersion()).toBe(version);
  });

  describe("changed during planning", () => {
    it("fails an update or delete whose entry moved since the context was built", async () => {
      const { local } = await setup();
      const planned = await versionsOf(local);
      await local.updateEntry({
        kind: "memory",
        id: "deploys",
        expectedVersion: 1,
        content: "Manual edit.",
      });
      await local.deleteEntry({ kind: "memory", id: "old", expectedVersion: 1 });
      const result = await applyLocal(
        local,
        [
          edit({ action: "update", id: "deploys", content: "Model edit." }),
          edit({ action: "update", id: "old", content: "Revived." }),
        ],
        planned,
      );
      expect(result.edits.map((item) => item.error?.code)).toEqual([
        "refine:changed_during_planning",
        "refine:changed_during_planning",
      ]);
      expect(result.edits[0]!.error?.message).toContain("changed during planning");
      expect(result.status).toBe("failed");
      expect((await local.getEntry({ kind: "memory", id: "deploys" }))?.content).toBe(
        "Manual edit.",
      );
    });

    it("fails a create whose id was taken since the context was built", async () => {
      const { local } = await setup();
      const planned = await versionsOf(local);
      await local.createEntry({ kind: "memory", id: "lunch", title: "Lunch", content: "Manual." });
      const result = await applyLocal(
        local,
        [edit({ id: "lunch", title: "Lunch", content: "Model." })],
        planned,
      );
      expect(result.edits[0]!.error?.code).toBe("refine:changed_during_planning");
    });

    it("fails a create without an id whose slug or title appeared since planning, instead of adding `-2`", async () => {
      const { local } = await setup();
      const planned = await versionsOf(local);
      const plannedVersion = await local.getHarnessVersion();
      // The same refinement, applied meanwhile by another instance.
      await local.createEntry({
        kind: "memory",
        title: "Refined fact X",
        content: "From the other run.",
      });
      await local.createEntry({
        kind: "memory",
        id: "tea",
        title: "Tea rules",
        content: "Other run.",
      });
      const result = await applyRefinement({
        harness: local,
        plan: {
          summary: "s",
          edits: [
            edit({ title: "Refined fact X", content: "From this run." }),
            edit({ title: "  TEA RULES ", content: "Same title, other slug." }),
            edit({ title: "Brand new", content: "Fine." }),
          ],
        },
        scope: "local",
        actor: member,
        plannedAt: { entryVersions: planned, harnessVersion: plannedVersion },
      });
      expect(result.edits.map((item) => item.result)).toEqual(["failed", "failed", "applied"]);
      expect(result.edits[0]!.error?.code).toBe("refine:changed_during_planning");
      expect(result.edits[0]!.error?.message).toContain("refined-fact-x");
      expect(result.edits[1]!.error?.details).toMatchObject({ appearedId: "tea" });
      const memories = await local.listEntries({ kind: "memory", scope: "local" });
      expect(memories.items.map((entry) => entry.id).sort()).toEqual(
        ["brand-new", "deploys", "old", "refined-fact-x", "tea"].sort(),
      );
    });

    it("refuses a create whose exact title an entry already had at planning: update it instead", async () => {
      const { local } = await setup();
      const result = await applyLocal(local, [edit({ title: " deploys ", content: "Again." })]);
      expect(result.edits[0]!.result).toBe("failed");
      expect(result.edits[0]!.error?.code).toBe("refine:already_exists");
      expect(result.edits[0]!.error?.details).toMatchObject({ existingId: "deploys" });
    });

    it("still suffixes a create whose slug was already taken when the plan was made", async () => {
      const { local } = await setup();
      await local.createEntry({
        kind: "memory",
        id: "lunch",
        title: "Lunch",
        content: "Existing.",
      });
      const result = await applyLocal(local, [edit({ title: "Lunch!", content: "Other." })]);
      expect(result.edits[0]!.result).toBe("applied");
      expect(result.edits[0]!.after?.id).toBe("lunch-2");
    });

    it("expects the planning snapshot's harness version, so a write since planning re-validates", async () => {
      const { local } = await setup();
      const planned = await versionsOf(local);
      const plannedVersion = await local.getHarnessVersion();
      await local.createEntry({
        kind: "memory",
        id: "unrelated",
        title: "Unrelated",
        content: "x",
      });
      const seen: (number | undefined)[] = [];
      const spying: Harness = {
        ...local,
        applyEdits: async (input) => {
          seen.push(input.expectedHarnessVersion);
          return local.applyEdits(input);
        },
      };
      const result = await applyRefinement({
        harness: spying,
        plan: { summary: "s", edits: [edit({ title: "Lunch", content: "Noon." })] },
        scope: "local",
        actor: member,
        plannedAt: { entryVersions: planned, harnessVersion: plannedVersion },
      });
      expect(result.status).toBe("applied");
      expect(seen).toEqual([plannedVersion, plannedVersion + 1]);
    });

    it("re-validates when a concurrent write lands between validation and the write", async () => {
      const { local, harness } = await setup();
      const planned = await versionsOf(local);
      const other = harness(member, "chat-1");
      let raced = false;
      const racing: Harness = {
        ...local,
        applyEdits: async (input) => {
          if (!raced) {
            raced = true;
            await other.updateEntry({
              kind: "memory",
              id: "deploys",
              expectedVersion: 1,
              content: "Raced.",
            });
          }
          return local.applyEdits(input);
        },
      };
      const result = await applyLocal(
        racing,
        [
          edit({ action: "update", id: "deploys", content: "Model." }),
          edit({ id: "lunch", title: "Lunch", content: "Noon." }),
        ],
        planned,
      );
      expect(result.edits.map((item) => item.result)).toEqual(["failed", "applied"]);
      expect(result.edits[0]!.error?.code).toBe("refine:changed_during_planning");
      expect((await local.getEntry({ kind: "memory", id: "deploys" }))?.content).toBe("Raced.");
    });
  });

  describe("scope rules", () => {
    it("lets a global refinement edit global entries only with the flag and an editor", async () => {
      const { admin, local } = await setup();
      const plan = {
        summary: "s",
        edits: [edit({ action: "update", id: "team", content: "Team of six." })],
      };
      const withoutFlag = await applyRefinement({
        harness: admin,
        plan,
        scope: "global",
        actor: editor,
        plannedAt: { entryVersions: await versionsOf(admin) },
      });
      expect(withoutFlag.edits[0]!.error?.code).toBe("forbidden:refinement");
      const byMember = await applyRefinement({
        harness: local,
        plan,
        scope: "global",
        global: true,
        actor: member,
        plannedAt: { entryVersions: await versionsOf(local) },
      });
      expect(byMember.edits[0]!.error?.code).toBe("forbidden:refinement");
      expect((await admin.getEntry({ kind: "memory", id: "team", scope: "global" }))?.content).toBe(
        "Team of five.",
      );
      const ok = await applyRefinement({
        harness: admin,
        plan,
        scope: "global",
        global: true,
        actor: editor,
        plannedAt: { entryVersions: await versionsOf(admin) },
      });
      expect(ok.status).toBe("applied");
      expect(ok.edits[0]!.after).toMatchObject({ scope: "global", content: "Team of six." });
    });

    it("does not let a global refinement touch local entries", async () => {
      const { admin } = await setup();
      const result = await applyRefinement({
        harness: admin,
        plan: { summary: "s", edits: [edit({ action: "delete", id: "deploys" })] },
        scope: "global",
        global: true,
        actor: editor,
        plannedAt: { entryVersions: await versionsOf(admin) },
      });
      expect(result.edits[0]!.error?.code).toBe("refine:not_found");
    });

    it("creates a local entry alongside a global one with the same id", async () => {
      const { local } = await setup();
      const result = await applyLocal(local, [
        edit({ id: "team", title: "Team", content: "In this chat: team of three." }),
      ]);
      expect(result.edits[0]).toMatchObject({
        result: "applied",
        entryKey: "local/chat-1/memory/team",
      });
    });
  });

  it("caps the number of edits", async () => {
    const { local } = await setup();
    const edits = Array.from({ length: MAX_REFINEMENT_EDITS + 2 }, (_, index) =>
      edit({ id: `m-${index}`, title: `M ${index}`, content: "c" }),
    );
    const result = await applyLocal(local, edits);
    expect(result.status).toBe("partial");
    expect(
      result.edits.filter((item) => item.error?.code === "refine:too_many_edits"),
    ).toHaveLength(2);
  });

  it("validates without writing in a dry run", async () => {
    const { local } = await setup();
    const version = await local.getHarnessVersion();
    const result = await applyRefinement({
      harness: local,
      plan: {
        summary: "s",
        edits: [edit({ id: "lunch", title: "Lunch", content: "Noon." }), edit({ action: "x" })],
      },
      scope: "local",
      actor: member,
      plannedAt: { entryVersions: await versionsOf(local) },
      dryRun: true,
    });
    expect(result.status).toBe("pending");
    expect(result.edits.map((item) => item.result)).toEqual(["pending", "failed"]);
    expect(result.edits[0]!.after).toMatchObject({ id: "lunch", content: "Noon." });
    expect(await local.getHarnessVersion()).toBe(version);
  });
});

describe("applyRefinement and the store", () => {
  it("gives the store and a refinement the same wording for the same broken rule", async () => {
    const fixture = harnessFixture();
    const harness = fixture.harness(member, "chat-1");
    const cases = [
      { id: "Bad Id", title: "T", content: "C" },
      { id: "base-system-prompt", title: "T", content: "C" },
      { id: "fine", title: "two\nlines", content: "C" },
    ];
    for (const fields of cases) {
      const storeError = await harness.createEntry({ kind: "memory", ...fields }).then(
        () => null,
        (error: unknown) => error,
      );
      expect(HarnessError.isInstance(storeError)).toBe(true);
      const refined = await applyRefinement({
        harness,
        plan: {
          summary: "t",
          edits: [{ action: "create", kind: "memory", reason: "r", ...fields }],
        },
        scope: "local",
        actor: harness.actor,
        plannedAt: { entryVersions: {} },
      });
      expect(refined.edits[0]!.error?.message).toBe((storeError as Error).message);
    }
  });
});
