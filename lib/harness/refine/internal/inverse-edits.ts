import type { Actor } from "../../actor";
import { HarnessError } from "../../errors";
import {
  type Entry,
  type EntryRef,
  type Harness,
  type HarnessEdit,
  type Revision,
} from "../../store";
import { jsonEqual } from "../../store";
import type { RefinementLock } from "../refinement-lock";
import type { RefinementStore } from "../refinement-store";
import { type ProposedEdit, type RecordedEdit, type RefinementStatus } from "../types";

/** What an undo recorded as a refinement of its own (a rollback, a restore) runs with. */
export interface RecordedUndoOptions {
  actor: Actor;
  /** A harness built for `actor`; for a local refinement, the harness of its chat. */
  harness: Harness;
  store: RefinementStore;
  now: Date;
  generateId?: () => string;
  lock?: RefinementLock;
  abortSignal?: AbortSignal;
}

/** Whether two entry states have the same content (title, content, path, metadata, pinned). */
export function sameFields(a: Entry, b: Entry): boolean {
  return (
    a.title === b.title &&
    a.content === b.content &&
    a.path === b.path &&
    a.pinned === b.pinned &&
    jsonEqual(a.metadata, b.metadata)
  );
}

/** One planned step that brings an entry from `current` to `target`. */
export interface InverseStep {
  entryKey: string;
  ref: EntryRef;
  current: Entry | null;
  target: Entry | null;
  /** `null` when the entry already is in the target state. */
  edit: HarnessEdit | null;
  proposed: ProposedEdit;
}

/** The edit that brings an entry from `current` to `target` (a state an entry had before). */
export function inverseStep(options: {
  entryKey: string;
  ref: EntryRef;
  current: Entry | null;
  target: Entry | null;
  reason: string;
}): InverseStep {
  const { current, target, reason, entryKey, ref } = options;
  const selector = ref.scope === "global" ? { global: true } : { scope: "local" as const };
  const base = { kind: ref.kind, id: ref.id, reason };
  const step = { entryKey, ref, current, target };
  if (target === null) {
    if (current === null) {
      return {
        ...step,
        edit: null,
        proposed: { action: "delete", ...base },
      };
    }
    return {
      ...step,
      edit: {
        op: "delete",
        kind: ref.kind,
        id: ref.id,
        expectedVersion: current.version,
        ...selector,
        reason,
      },
      proposed: { action: "delete", ...base },
    };
  }
  const fields = {
    title: target.title,
    content: target.content,
    path: target.path,
    metadata: target.metadata,
  };
  if (current === null) {
    return {
      ...step,
      edit: {
        op: "create",
        kind: ref.kind,
        id: ref.id,
        ...fields,
        pinned: target.pinned,
        source: target.source,
        ...selector,
        reason,
      },
      proposed: { action: "create", ...base, ...fields },
    };
  }
  return {
    ...step,
    edit: sameFields(current, target)
      ? null
      : {
          op: "update",
          kind: ref.kind,
          id: ref.id,
          expectedVersion: current.version,
          ...fields,
          pinned: target.pinned,
          source: target.source,
          ...selector,
          reason,
        },
    proposed: { action: "update", ...base, ...fields },
  };
}

/** Records the applied steps from a batch's revisions (matched by entry key). */
export function recordSteps(
  steps: readonly InverseStep[],
  revisions: readonly Revision[],
): RecordedEdit[] {
  const byKey = new Map(revisions.map((revision) => [revision.entryKey, revision]));
  return steps.map((step) => {
    const revision = step.edit ? byKey.get(step.entryKey) : undefined;
    const scope = step.ref.scope;
    return revision
      ? {
          proposed: step.proposed,
          entryKey: step.entryKey,
          scope,
          plannedVersion: step.current?.version ?? null,
          before: revision.before,
          after: revision.after,
          result: "applied",
          revisionId: revision.id,
        }
      : {
          proposed: step.proposed,
          entryKey: step.entryKey,
          scope,
          plannedVersion: step.current?.version ?? null,
          before: step.current,
          after: step.current,
          result: "unchanged",
        };
  });
}

/** applied | partial | failed | no_changes, from recorded edits. */
export function statusOfRecorded(edits: readonly RecordedEdit[]): RefinementStatus {
  const applied = edits.filter((edit) => edit.result === "applied").length;
  const failed = edits.filter((edit) => edit.result === "failed").length;
  if (applied > 0) return failed > 0 ? "partial" : "applied";
  return failed > 0 ? "failed" : "no_changes";
}

/** Applies the steps in one batch; `null` when there is nothing to write. */
export async function applySteps(options: {
  harness: Harness;
  steps: readonly InverseStep[];
  reason: string;
  expectedHarnessVersion?: number;
  abortSignal?: AbortSignal;
}): Promise<{ harnessVersion: number; revisions: Revision[] } | null> {
  const edits = options.steps
    .map((step) => step.edit)
    .filter((edit): edit is HarnessEdit => edit !== null);
  if (edits.length === 0) return null;
  return options.harness.applyEdits({
    edits,
    reason: options.reason,
    cause: "rollback",
    expectedHarnessVersion: options.expectedHarnessVersion,
    abortSignal: options.abortSignal,
  });
}

/** How many times a rollback or restore plans and applies before a lost race is final. */
export const MAX_APPLY_ATTEMPTS = 3;

/**
 * `applySteps` for attempt `attempt` of a plan-and-apply loop: a lost race (a conflict: the
 * harness moved since the plan) before the last attempt comes back as `"replan"` instead of
 * an error; on the last attempt, and for any other error, it throws.
 */
export async function applyStepsOrReplan(
  options: Parameters<typeof applySteps>[0] & { attempt: number },
): Promise<Awaited<ReturnType<typeof applySteps>> | "replan"> {
  const { attempt, ...applyOptions } = options;
  try {
    return await applySteps(applyOptions);
  } catch (error) {
    if (isConflict(error) && attempt < MAX_APPLY_ATTEMPTS) return "replan";
    throw error;
  }
}

/** Whether an error is a lost optimistic-concurrency race (worth recomputing and retrying). */
export function isConflict(error: unknown): boolean {
  return HarnessError.isInstance(error) && error.code.startsWith("conflict:");
}
