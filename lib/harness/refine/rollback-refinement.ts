import { canWriteGlobal } from "../actor";
import { HarnessForbiddenError, HarnessNotFoundError } from "../errors";
import { entryKeyOf, type Entry, type EntryKind, type EntryScope, type Harness } from "../store";
import {
  applyStepsOrReplan,
  inverseStep,
  recordSteps,
  statusOfRecorded,
  type InverseStep,
  type RecordedUndoOptions,
} from "./internal/inverse-edits";
import { RefinementError } from "./refinement-error";
import { defaultRefinementLock, refinementLockKey } from "./refinement-lock";
import { newRefinement } from "./refinement-store";
import { type RecordedEdit, type Refinement } from "./types";
import { assertHarnessOf } from "./internal/assert-harness-of";

/**
 * An entry a rollback did not revert because it changed after the refinement: its current
 * state is not the refinement's "after". The person decides: `revert` (overwrite the later
 * change) or `keep`.
 */
export interface RollbackConflict {
  entryKey: string;
  kind: EntryKind;
  id: string;
  scope: EntryScope;
  /** What the refinement left (`null`: it deleted the entry). */
  expected: Entry | null;
  /** What the entry is now (`null`: deleted since). */
  current: Entry | null;
  /** What a revert would restore (`null`: the refinement created it, so a revert deletes it). */
  target: Entry | null;
}

/** What to do with a conflicting entry, by `entryKey`. */
export type RollbackDecisions = Readonly<Record<string, "revert" | "keep">>;

/** What `rollbackRefinement` did. */
export interface RollbackResult {
  /** The recorded rollback (itself undoable); `null` for a dry run. */
  refinement: Refinement | null;
  /** Entries left alone because they changed later and no decision was given. */
  conflicts: RollbackConflict[];
  /** One per applied edit of the original, in the (reverse) order they were undone. */
  edits: RecordedEdit[];
}

/**
 * Whether anything wrote the entry after the refinement. Versions of an entry key only grow,
 * so a present entry is unchanged exactly when its version is still the refinement's "after"
 * version. An entry absent both then and now may have been re-created and deleted in
 * between; its revisions tell.
 */
async function changedSince(options: {
  harness: Harness;
  entryKey: string;
  ref: Entry;
  current: Entry | null;
  expected: Entry | null;
  sinceVersion: number | null;
  abortSignal?: AbortSignal;
}): Promise<boolean> {
  const { current, expected } = options;
  if (current !== null && expected !== null) return current.version !== expected.version;
  if (current !== null || expected !== null) return true;
  if (options.sinceVersion === null) return false;
  const revisions = await options.harness.history({
    entryId: options.ref.id,
    kind: options.ref.kind,
    scope: options.ref.scope,
    abortSignal: options.abortSignal,
  });
  return revisions.some(
    (revision) =>
      revision.entryKey === options.entryKey && revision.harnessVersion > options.sinceVersion!,
  );
}

/**
 * Rolls a refinement back: the inverse of its applied edits in reverse order (update → back
 * to before, create → delete, delete → re-create), applied in ONE `applyEdits` and recorded
 * as a new refinement (trigger `rollback`, `rollbackOf`), which can itself be rolled back.
 *
 * An entry that changed after the refinement (its current state is not the refinement's
 * "after") is never reverted silently: it is reported in `conflicts` and recorded as a failed
 * edit (`refine:rollback_conflict`) while the other entries are rolled back. Pass
 * `decide[entryKey]` = `"revert"` to force it or `"keep"` to leave it (recorded as skipped).
 * `dryRun` reports the conflicts and planned edits without writing or recording anything.
 *
 * Permissions: a global refinement needs an editor or admin; a local one is rolled back
 * through the harness of its own chat (the host only gives members harnesses of their own
 * chats).
 */
export async function rollbackRefinement(
  options: RecordedUndoOptions & { id: string; decide?: RollbackDecisions; dryRun?: boolean },
): Promise<RollbackResult> {
  const { actor, harness, store, abortSignal } = options;
  assertHarnessOf(harness, actor, "rollbackRefinement");
  const original = await store.getRefinement({
    workspaceId: actor.workspaceId,
    id: options.id,
    abortSignal,
  });
  if (!original) {
    throw new HarnessNotFoundError({
      surface: "refinement",
      message: `No refinement ${options.id} in this workspace`,
      details: { id: options.id },
    });
  }
  if (original.scope === "global" && !canWriteGlobal(actor)) {
    throw new HarnessForbiddenError({
      surface: "refinement",
      message: `Rolling back a global refinement needs the editor or admin role; this actor is a ${actor.role}`,
      details: { actorId: actor.userId, role: actor.role },
    });
  }
  if (original.scope === "local" && original.chatId !== harness.chatId) {
    throw new HarnessForbiddenError({
      surface: "refinement",
      message: "A local refinement can only be rolled back from its own chat",
      details: { refinementChatId: original.chatId, chatId: harness.chatId },
    });
  }
  if (original.status !== "applied" && original.status !== "partial") {
    throw new RefinementError({
      reason: "not_rollbackable",
      message: `Refinement ${original.id} is ${original.status}: it applied nothing to roll back`,
      details: { id: original.id, status: original.status },
    });
  }

  const lock = options.lock ?? defaultRefinementLock;
  const key = refinementLockKey({
    workspaceId: actor.workspaceId,
    scope: original.scope,
    chatId: original.chatId,
  });
  return lock.runExclusive(key, async () => {
    const reason = `Rollback of refinement ${original.id}`;
    for (let attempt = 1; ; attempt++) {
      const harnessVersionBefore = await harness.getHarnessVersion({ abortSignal });
      const planned = await planRollback(
        original,
        harness,
        options.decide ?? {},
        reason,
        abortSignal,
      );
      if (options.dryRun) {
        return {
          refinement: null,
          conflicts: planned.conflicts,
          edits: planned.items.map((item) =>
            item.step
              ? {
                  proposed: item.step.proposed,
                  entryKey: item.step.entryKey,
                  scope: original.scope,
                  plannedVersion: item.step.current?.version ?? null,
                  before: item.step.current,
                  after: item.step.target,
                  result: item.step.edit ? "pending" : "unchanged",
                }
              : item.recorded!,
          ),
        };
      }
      const steps = planned.items.flatMap((item) => (item.step ? [item.step] : []));
      const applied = await applyStepsOrReplan({
        harness,
        steps,
        reason,
        expectedHarnessVersion: harnessVersionBefore,
        abortSignal,
        attempt,
      });
      if (applied === "replan") continue;
      const recordedSteps = recordSteps(steps, applied?.revisions ?? []);
      let next = 0;
      const edits = planned.items.map((item) => item.recorded ?? recordedSteps[next++]!);
      const refinement = await store.createRefinement({
        refinement: newRefinement({
          id: (options.generateId ?? (() => globalThis.crypto.randomUUID()))(),
          workspaceId: actor.workspaceId,
          chatId: original.chatId,
          scope: original.scope,
          trigger: "rollback",
          status: statusOfRecorded(edits),
          summary: `Rollback: ${original.summary}`.slice(0, 2_000),
          rationale:
            planned.conflicts.length > 0
              ? `${planned.conflicts.length} entr${planned.conflicts.length === 1 ? "y" : "ies"} changed after the refinement and ${planned.conflicts.length === 1 ? "was" : "were"} left for a decision`
              : "",
          edits,
          harnessVersionBefore,
          harnessVersionAfter: applied?.harnessVersion ?? harnessVersionBefore,
          actorId: actor.userId,
          rollbackOf: original.id,
          createdAt: options.now.toISOString(),
        }),
        abortSignal,
      });
      return { refinement, conflicts: planned.conflicts, edits };
    }
  });
}

interface PlannedItem {
  /** Set when the entry is to be (or already is) rolled back. */
  step?: InverseStep;
  /** Set when it is not: a conflict or a "keep". */
  recorded?: RecordedEdit;
}

async function planRollback(
  original: Refinement,
  harness: Harness,
  decide: RollbackDecisions,
  reason: string,
  abortSignal?: AbortSignal,
): Promise<{ items: PlannedItem[]; conflicts: RollbackConflict[] }> {
  const items: PlannedItem[] = [];
  const conflicts: RollbackConflict[] = [];
  for (const edit of [...original.edits].reverse()) {
    if (edit.result !== "applied") continue;
    const ref = edit.after ?? edit.before;
    if (!ref) continue;
    const entryKey = entryKeyOf(ref);
    const current = await harness.getEntry({
      kind: ref.kind,
      id: ref.id,
      scope: ref.scope,
      abortSignal,
    });
    const decision = decide[entryKey];
    const unchangedSince = !(await changedSince({
      harness,
      entryKey,
      ref,
      current,
      expected: edit.after,
      sinceVersion: original.harnessVersionAfter,
      abortSignal,
    }));
    const step = inverseStep({ entryKey, ref, current, target: edit.before, reason });
    // Already back in the state before the refinement (e.g. by an earlier, partial rollback):
    // nothing to revert and nothing to overwrite, so no conflict either.
    if (step.edit === null) {
      items.push({ step });
      continue;
    }
    if (decision === "keep" || (!unchangedSince && decision !== "revert")) {
      const conflict = !unchangedSince && decision !== "keep";
      if (conflict) {
        conflicts.push({
          entryKey,
          kind: ref.kind,
          id: ref.id,
          scope: ref.scope,
          expected: edit.after,
          current,
          target: edit.before,
        });
      }
      items.push({
        recorded: {
          proposed: step.proposed,
          entryKey,
          scope: ref.scope,
          plannedVersion: current?.version ?? null,
          before: current,
          after: null,
          result: conflict ? "failed" : "skipped",
          ...(conflict
            ? {
                error: {
                  code: "refine:rollback_conflict",
                  message: `Entry ${ref.scope}:${ref.kind}:${ref.id} changed after the refinement; decide whether to revert or keep it`,
                  details: {
                    expectedVersion: edit.after?.version ?? null,
                    currentVersion: current?.version ?? null,
                  },
                },
              }
            : {}),
        },
      });
      continue;
    }
    items.push({ step });
  }
  return { items, conflicts };
}
