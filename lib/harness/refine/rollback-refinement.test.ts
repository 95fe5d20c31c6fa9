import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HarnessForbiddenError } from "../errors";
import { entryKeyOf, type Entry, type Harness } from "../store";
import { applyRefinement } from "./apply-refinement";
import { editor, member, refinementFixture } from "./internal/test-support";
import { newRefinement } from "./refinement-store";
import { restoreHarnessToVersion } from "./restore-harness-to-version";
import { rollbackRefinement } from "./rollback-refinement";
import { type ProposedEdit, type Refinement } from "./types";

function setup() {
  const { fixture, store, clock, ids, lock } = refinementFixture();

  /** Applies a plan as a recorded refinement (what runRefinement does after planning). */
  async function refine(
    harness: Harness,
    edits: ProposedEdit[],
    scope: "local" | "global" = "local",
  ): Promise<Refinement> {
    const snapshot = await harness.snapshot();
    const result = await applyRefinement({
      harness,
      plan: { summary: "refine", edits },
      scope,
      global: scope === "global",
      actor: harness.actor,
      plannedAt: {
        entryVersions: Object.fromEntries(
          snapshot.entries.map((entry) => [entryKeyOf(entry), entry.version]),
        ),
      },
    });
    return store.createRefinement({
      refinement: newRefinement({
        id: ids(),
        workspaceId: harness.actor.workspaceId,
        chatId: harness.chatId,
        scope,
        trigger: "explicit",
        status: result.status,
        summary: "refine",
        edits: result.edits,
        harnessVersionBefore: result.harnessVersionBefore,
        harnessVersionAfter: result.harnessVersionAfter,
        actorId: harness.actor.userId,
        createdAt: clock().toISOString(),
      }),
    });
  }

  function rollback(
    harness: Harness,
    id: string,
    extra: { decide?: Record<string, "revert" | "keep">; dryRun?: boolean } = {},
  ) {
    return rollbackRefinement({
      id,
      actor: harness.actor,
      harness,
      store,
      now: clock(),
      generateId: ids,
      lock,
      ...extra,
    });
  }
  return { ...fixture, store, clock, refine, rollback, lock, ids };
}

const memory = (id: string, content: string, action = "create"): ProposedEdit => ({
  action,
  kind: "memory",
  id,
  title: id,
  content,
  reason: "r",
});

function fieldsOf(entry: Entry | null) {
  return entry
    ? {
        title: entry.title,
        content: entry.content,
        path: entry.path,
        metadata: entry.metadata,
        pinned: entry.pinned,
      }
    : null;
}

describe("rollbackRefinement", () => {
  it("inverts creates, updates and deletes in one batch, recorded and itself undoable", async () => {
    const { harness, refine, rollback } = setup();
    const local = harness(member, "chat-1");
    await local.createEntry({ kind: "memory", id: "a", title: "a", content: "A1" });
    await local.createEntry({ kind: "memory", id: "b", title: "b", content: "B1" });
    const before = await local.snapshot();
    const refinement = await refine(local, [
      memory("c", "C1"),
      { action: "update", kind: "memory", id: "a", content: "A2", reason: "r" },
      { action: "delete", kind: "memory", id: "b", reason: "r" },
    ]);
    expect(refinement.status).toBe("applied");
    const after = await local.snapshot();

    const result = await rollback(local, refinement.id);
    expect(result.conflicts).toEqual([]);
    expect(result.refinement).toMatchObject({
      trigger: "rollback",
      rollbackOf: refinement.id,
      status: "applied",
      scope: "local",
      chatId: "chat-1",
      harnessVersionAfter: after.harnessVersion + 1,
    });
    // Reverse order: b re-created, a updated back, c deleted.
    expect(result.edits.map((edit) => [edit.proposed.action, edit.proposed.id])).toEqual([
      ["create", "b"],
      ["update", "a"],
      ["delete", "c"],
    ]);
    const restored = await local.snapshot();
    expect(restored.entries.map(fieldsOf)).toEqual(before.entries.map(fieldsOf));
    const history = await local.history({ entryId: "a" });
    expect(history.at(-1)).toMatchObject({ cause: "rollback" });

    // Rolling back the rollback re-applies the refinement.
    const redo = await rollback(local, result.refinement!.id);
    expect(redo.refinement).toMatchObject({ status: "applied", rollbackOf: result.refinement!.id });
    expect((await local.snapshot()).entries.map(fieldsOf)).toEqual(after.entries.map(fieldsOf));
  });

  it("reports entries changed later as conflicts and rolls back the others", async () => {
    const { harness, refine, rollback } = setup();
    const local = harness(member, "chat-1");
    const refinement = await refine(local, [memory("a", "A1"), memory("b", "B1")]);
    await local.updateEntry({ kind: "memory", id: "b", expectedVersion: 1, content: "B-manual" });

    const preview = await rollback(local, refinement.id, { dryRun: true });
    expect(preview.refinement).toBeNull();
    expect(preview.conflicts.map((conflict) => conflict.entryKey)).toEqual([
      "local/chat-1/memory/b",
    ]);
    expect(await local.getEntry({ kind: "memory", id: "a" })).not.toBeNull();

    const result = await rollback(local, refinement.id);
    expect(result.conflicts).toEqual([
      expect.objectContaining({
        entryKey: "local/chat-1/memory/b",
        expected: expect.objectContaining({ content: "B1" }),
        current: expect.objectContaining({ content: "B-manual" }),
        target: null,
      }),
    ]);
    expect(result.refinement?.status).toBe("partial");
    expect(result.edits.find((edit) => edit.proposed.id === "b")).toMatchObject({
      result: "failed",
      error: { code: "refine:rollback_conflict" },
    });
    expect(await local.getEntry({ kind: "memory", id: "a" })).toBeNull();
    expect((await local.getEntry({ kind: "memory", id: "b" }))?.content).toBe("B-manual");

    // The person decides: keep leaves it; revert forces it.
    const kept = await rollback(local, refinement.id, {
      decide: { "local/chat-1/memory/b": "keep" },
    });
    expect(kept.conflicts).toEqual([]);
    expect(kept.edits.find((edit) => edit.proposed.id === "b")?.result).toBe("skipped");
    // "a" was rolled back already: nothing to do, no conflict.
    expect(kept.edits.find((edit) => edit.proposed.id === "a")?.result).toBe("unchanged");
    expect(kept.refinement?.status).toBe("no_changes");
    expect((await local.getEntry({ kind: "memory", id: "b" }))?.content).toBe("B-manual");
    const forced = await rollback(local, refinement.id, {
      decide: { "local/chat-1/memory/b": "revert" },
    });
    expect(forced.conflicts).toEqual([]);
    expect(forced.refinement?.status).toBe("applied");
    expect(await local.getEntry({ kind: "memory", id: "b" })).toBeNull();
  });

  it("treats an entry deleted, re-created and deleted again as changed", async () => {
    const { harness, refine, rollback } = setup();
    const local = harness(member, "chat-1");
    await local.createEntry({ kind: "memory", id: "a", title: "a", content: "A1" });
    const refinement = await refine(local, [
      { action: "delete", kind: "memory", id: "a", reason: "r" },
    ]);
    const recreated = await local.createEntry({
      kind: "memory",
      id: "a",
      title: "a",
      content: "A-new",
    });
    await local.deleteEntry({ kind: "memory", id: "a", expectedVersion: recreated.version });
    const result = await rollback(local, refinement.id);
    expect(result.conflicts.map((conflict) => conflict.entryKey)).toEqual([
      "local/chat-1/memory/a",
    ]);
    expect(await local.getEntry({ kind: "memory", id: "a" })).toBeNull();
  });

  it("enforces who may roll back what", async () => {
    const { harness, refine, rollback } = setup();
    const globalRefinement = await refine(
      harness(editor, null),
      [memory("team", "Team of five.")],
      "global",
    );
    await expect(rollback(harness(member, "chat-1"), globalRefinement.id)).rejects.toBeInstanceOf(
      HarnessForbiddenError,
    );
    const localRefinement = await refine(harness(member, "chat-1"), [memory("a", "A")]);
    await expect(rollback(harness(member, "chat-2"), localRefinement.id)).rejects.toBeInstanceOf(
      HarnessForbiddenError,
    );
    expect((await rollback(harness(member, "chat-1"), localRefinement.id)).refinement?.status).toBe(
      "applied",
    );
    expect(
      (await rollback(harness(editor, "chat-9"), globalRefinement.id)).refinement?.status,
    ).toBe("applied");
  });

  it("refuses refinements that applied nothing", async () => {
    const { harness, refine, rollback } = setup();
    const local = harness(member, "chat-1");
    const empty = await refine(local, []);
    expect(empty.status).toBe("no_changes");
    await expect(rollback(local, empty.id)).rejects.toMatchObject({
      code: "refine:not_rollbackable",
    });
  });
});

describe("restoreHarnessToVersion", () => {
  it("restores the global scope as one recorded, undoable refinement", async () => {
    const { harness, store, clock, ids, lock, rollback } = setup();
    const admin = harness(editor, "chat-1");
    await admin.createEntry({
      kind: "memory",
      id: "keep",
      title: "keep",
      content: "K1",
      global: true,
    });
    await admin.createEntry({
      kind: "memory",
      id: "changed",
      title: "changed",
      content: "C1",
      global: true,
    });
    await admin.createEntry({
      kind: "memory",
      id: "deleted",
      title: "deleted",
      content: "D1",
      global: true,
    });
    const target = await admin.snapshot();
    await admin.updateEntry({
      kind: "memory",
      id: "changed",
      expectedVersion: 1,
      content: "C2",
      global: true,
    });
    await admin.deleteEntry({ kind: "memory", id: "deleted", expectedVersion: 1, global: true });
    await admin.createEntry({
      kind: "memory",
      id: "added",
      title: "added",
      content: "A1",
      global: true,
    });
    await admin.createEntry({ kind: "memory", id: "local-one", title: "local", content: "L1" });
    const beforeRestore = await admin.snapshot();

    await expect(
      restoreHarnessToVersion({
        harness: harness(member, "chat-1"),
        store,
        version: target.harnessVersion,
        actor: member,
        now: clock(),
      }),
    ).rejects.toBeInstanceOf(HarnessForbiddenError);

    const restore = await restoreHarnessToVersion({
      harness: admin,
      store,
      version: target.harnessVersion,
      actor: editor,
      now: clock(),
      generateId: ids,
      lock,
    });
    expect(restore).toMatchObject({
      trigger: "restore",
      scope: "global",
      chatId: null,
      status: "applied",
      harnessVersionBefore: beforeRestore.harnessVersion,
      harnessVersionAfter: beforeRestore.harnessVersion + 1,
    });
    expect(restore.edits.map((edit) => [edit.proposed.action, edit.proposed.id])).toEqual([
      ["delete", "added"],
      ["update", "changed"],
      ["create", "deleted"],
    ]);
    const now = await admin.snapshot();
    const globals = (entries: Entry[]) =>
      entries
        .filter((entry) => entry.scope === "global")
        .map((entry) => [entry.id, fieldsOf(entry)]);
    expect(globals(now.entries)).toEqual(globals(target.entries));
    expect(await admin.getEntry({ kind: "memory", id: "local-one" })).not.toBeNull();

    const undo = await rollback(admin, restore.id);
    expect(undo.conflicts).toEqual([]);
    expect(globals((await admin.snapshot()).entries)).toEqual(globals(beforeRestore.entries));
  });
});

describe("rollback property", () => {
  const ids = ["a", "b", "c", "d"] as const;
  const contents = ["x", "y", "z"] as const;
  const op = fc.oneof(
    fc.record({
      type: fc.constant("refine" as const),
      edits: fc.array(
        fc.record({
          id: fc.constantFrom(...ids),
          remove: fc.boolean(),
          content: fc.constantFrom(...contents),
        }),
        { minLength: 1, maxLength: 3 },
      ),
    }),
    fc.record({
      type: fc.constant("manual" as const),
      id: fc.constantFrom(...ids),
      remove: fc.boolean(),
      content: fc.constantFrom(...contents),
    }),
    fc.record({ type: fc.constant("rollback" as const), pick: fc.nat() }),
  );

  it("restores untouched entries and reports a conflict for the rest", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 14 }), async (ops) => {
        const { harness, refine, rollback } = setup();
        const local = harness(member, "chat-1");
        const keyOf = (id: string) => `local/chat-1/memory/${id}`;
        /** Step at which each key was last written. */
        const lastTouch = new Map<string, number>();
        /** Refinements that can be rolled back, with the step they ran at. */
        const done: { refinement: Refinement; step: number }[] = [];
        const touch = (
          edits: readonly { result: string; entryKey: string | null }[],
          step: number,
        ) => {
          for (const edit of edits) {
            if (edit.result === "applied" && edit.entryKey) lastTouch.set(edit.entryKey, step);
          }
        };

        for (const [step, item] of ops.entries()) {
          if (item.type === "manual") {
            const current = await local.getEntry({ kind: "memory", id: item.id });
            if (current && item.remove) {
              await local.deleteEntry({
                kind: "memory",
                id: item.id,
                expectedVersion: current.version,
              });
            } else if (current) {
              const updated = await local.updateEntry({
                kind: "memory",
                id: item.id,
                expectedVersion: current.version,
                content: item.content,
              });
              if (updated.version === current.version) continue;
            } else {
              await local.createEntry({
                kind: "memory",
                id: item.id,
                title: item.id,
                content: item.content,
              });
            }
            lastTouch.set(keyOf(item.id), step);
          } else if (item.type === "refine") {
            const edits: ProposedEdit[] = [];
            const seen = new Set<string>();
            for (const edit of item.edits) {
              if (seen.has(edit.id)) continue;
              seen.add(edit.id);
              const current = await local.getEntry({ kind: "memory", id: edit.id });
              edits.push(
                current
                  ? edit.remove
                    ? { action: "delete", kind: "memory", id: edit.id, reason: "r" }
                    : {
                        action: "update",
                        kind: "memory",
                        id: edit.id,
                        content: edit.content,
                        reason: "r",
                      }
                  : memory(edit.id, edit.content),
              );
            }
            const refinement = await refine(local, edits);
            touch(refinement.edits, step);
            if (refinement.status === "applied" || refinement.status === "partial") {
              done.push({ refinement, step });
            }
          } else {
            if (done.length === 0) continue;
            const target = done[item.pick % done.length]!;
            const stateBefore = new Map<string, Entry | null>();
            for (const id of ids) {
              stateBefore.set(keyOf(id), await local.getEntry({ kind: "memory", id }));
            }
            const result = await rollback(local, target.refinement.id);
            const conflictKeys = new Set(result.conflicts.map((conflict) => conflict.entryKey));
            for (const edit of target.refinement.edits) {
              if (edit.result !== "applied" || !edit.entryKey) continue;
              const id = edit.entryKey.split("/").at(-1)!;
              const now = await local.getEntry({ kind: "memory", id });
              if (lastTouch.get(edit.entryKey) === target.step) {
                // Nothing touched it since: back to its state before the refinement.
                expect(conflictKeys.has(edit.entryKey)).toBe(false);
                expect(fieldsOf(now)).toEqual(fieldsOf(edit.before));
              } else {
                // A later change touched it: never overwritten, and reported as a conflict
                // unless it already is back in its state before the refinement.
                const current = stateBefore.get(edit.entryKey) ?? null;
                expect(now).toEqual(current);
                expect(
                  conflictKeys.has(edit.entryKey) ||
                    JSON.stringify(fieldsOf(current)) === JSON.stringify(fieldsOf(edit.before)),
                ).toBe(true);
              }
            }
            touch(result.edits, step);
            const recorded = result.refinement!;
            if (recorded.status === "applied" || recorded.status === "partial") {
              done.push({ refinement: recorded, step });
            }
          }
        }
      }),
      { numRuns: 150 },
    );
  });
});
