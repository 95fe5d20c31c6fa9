import { canWriteGlobal } from "../actor";
import { HarnessForbiddenError, HarnessValidationError } from "../errors";
import { entryKeyOf, type Entry } from "../store";
import {
  applyStepsOrReplan,
  inverseStep,
  recordSteps,
  statusOfRecorded,
  type InverseStep,
  type RecordedUndoOptions,
} from "./internal/inverse-edits";
import { defaultRefinementLock, refinementLockKey } from "./refinement-lock";
import { newRefinement } from "./refinement-store";
import { type Refinement } from "./types";
import { assertHarnessOf } from "./internal/assert-harness-of";

function globalEntries(entries: readonly Entry[]): Map<string, Entry> {
  return new Map(
    entries.filter((entry) => entry.scope === "global").map((entry) => [entryKeyOf(entry), entry]),
  );
}

/**
 * Restores the workspace's whole global scope to its state at an earlier harness version:
 * `snapshot({ atVersion })` is diffed against now, and every difference (re-create, update
 * back, delete) is applied in ONE `applyEdits` and recorded as one refinement (trigger
 * `restore`, chat `null`), which `rollbackRefinement` can undo. Local entries are not touched.
 * Editors and admins only.
 */
export async function restoreHarnessToVersion(
  options: RecordedUndoOptions & {
    /** The harness version to go back to (0 = before anything existed). */
    version: number;
  },
): Promise<Refinement> {
  const { harness, actor, store, abortSignal } = options;
  assertHarnessOf(harness, actor, "restoreHarnessToVersion");
  if (!canWriteGlobal(actor)) {
    throw new HarnessForbiddenError({
      surface: "refinement",
      message: `Restoring the global harness needs the editor or admin role; this actor is a ${actor.role}`,
      details: { actorId: actor.userId, role: actor.role },
    });
  }
  const lock = options.lock ?? defaultRefinementLock;
  const key = refinementLockKey({ workspaceId: actor.workspaceId, scope: "global", chatId: null });
  return lock.runExclusive(key, async () => {
    const reason = `Restore the global harness to version ${options.version}`;
    for (let attempt = 1; ; attempt++) {
      const now = await harness.snapshot({ abortSignal });
      if (
        !Number.isInteger(options.version) ||
        options.version < 0 ||
        options.version > now.harnessVersion
      ) {
        throw new HarnessValidationError({
          surface: "refinement",
          message: `version must be an integer from 0 to ${now.harnessVersion}`,
          details: { version: options.version },
        });
      }
      const past = await harness.snapshot({ atVersion: options.version, abortSignal });
      const then = globalEntries(past.entries);
      const current = globalEntries(now.entries);
      const keys = [...new Set([...then.keys(), ...current.keys()])].sort();
      const steps: InverseStep[] = keys
        .map((entryKey) =>
          inverseStep({
            entryKey,
            ref: (then.get(entryKey) ?? current.get(entryKey))!,
            current: current.get(entryKey) ?? null,
            target: then.get(entryKey) ?? null,
            reason,
          }),
        )
        .filter((step) => step.edit !== null);
      const applied = await applyStepsOrReplan({
        harness,
        steps,
        reason,
        expectedHarnessVersion: now.harnessVersion,
        abortSignal,
        attempt,
      });
      if (applied === "replan") continue;
      const edits = recordSteps(steps, applied?.revisions ?? []);
      return store.createRefinement({
        refinement: newRefinement({
          id: (options.generateId ?? (() => globalThis.crypto.randomUUID()))(),
          workspaceId: actor.workspaceId,
          chatId: null,
          scope: "global",
          trigger: "restore",
          status: statusOfRecorded(edits),
          summary: `Restore the global harness to version ${options.version}`,
          edits,
          harnessVersionBefore: now.harnessVersion,
          harnessVersionAfter: applied?.harnessVersion ?? now.harnessVersion,
          actorId: actor.userId,
          createdAt: options.now.toISOString(),
        }),
        abortSignal,
      });
    }
  });
}
