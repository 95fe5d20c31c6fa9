"use server";

import { revalidatePath } from "next/cache";
import { forbidden } from "next/navigation";
import { z } from "zod";
import { toAppError } from "@/lib/app-error";
import { requireActor } from "@/lib/auth";
import {
  approveRefinement,
  canWriteGlobal,
  HarnessError,
  MAX_OUTCOME_NOTE_LENGTH,
  rejectRefinement,
  restoreHarnessToVersion,
  rollbackRefinement,
  setOutcomeVerdict,
  type Actor,
  type Entry,
  type EntryKind,
  type EntryScope,
  type Refinement,
  type RollbackConflict,
} from "@/lib/harness";
import { getOwnChat, harnessFor } from "@/lib/harness-service";
import { refinementLock, refinementStore } from "@/lib/refinements";

type Failure = { ok: false; code: string; error: string };

/** The result of the approve, reject, verdict and restore actions. */
export type RefinementActionResult = { ok: true; refinementId?: string } | Failure;

/** An entry that changed after the refinement, as the rollback form shows it. */
export interface RollbackConflictView {
  entryKey: string;
  kind: EntryKind;
  id: string;
  scope: EntryScope;
  /** What the refinement left (`null`: it deleted the entry). */
  expected: Entry | null;
  /** What the entry is now (`null`: deleted since). */
  current: Entry | null;
  /** What "revert anyway" restores (`null`: deletes the entry). */
  target: Entry | null;
}

/**
 * The rollback action's result. Without decisions and with conflicts, nothing is applied
 * (`applied: false`) and the conflicts come back for the person to decide. Otherwise the
 * rollback is recorded as `rollbackId`; `conflicts` lists entries that changed in the
 * meantime and were left alone (recorded as failed edits of the rollback).
 */
export type RollbackActionResult =
  | { ok: true; applied: false; conflicts: RollbackConflictView[] }
  | { ok: true; applied: true; rollbackId: string; conflicts: RollbackConflictView[] }
  | Failure;

const idSchema = z.string().min(1).max(200);

function failure(error: unknown): Failure {
  // Core refusals (a member reaching past the UI) are HTTP 403, as for every other endpoint.
  if (HarnessError.isInstance(error) && error.code.startsWith("forbidden:")) forbidden();
  const appError = toAppError(error);
  return { ok: false, code: appError.code, error: appError.message };
}

const notFound: Failure = {
  ok: false,
  code: "not_found:refinement",
  error: "That refinement does not exist.",
};

function revalidate() {
  revalidatePath("/refinements", "layout");
  revalidatePath("/harness", "layout");
}

/**
 * The refinement of the actor's workspace, after the scope check every refinement action
 * shares: a global one needs editor or admin when `globalNeedsEditor`, a local one must come
 * from the actor's own chat. Refusals are 403 (`forbidden()`), also for a direct call.
 */
async function authorizedRefinement(
  actor: Actor,
  id: string,
  options: { globalNeedsEditor: boolean },
): Promise<Refinement | null> {
  const refinement = await refinementStore().getRefinement({ workspaceId: actor.workspaceId, id });
  if (!refinement) return null;
  if (refinement.scope === "global") {
    if (options.globalNeedsEditor && !canWriteGlobal(actor)) forbidden();
  } else if (refinement.chatId === null || !(await getOwnChat(actor, refinement.chatId))) {
    forbidden();
  }
  return refinement;
}

/** The harness the core works on: the refinement's own chat for a local one, none for global. */
function harnessOf(actor: Actor, refinement: Refinement) {
  return harnessFor(actor, refinement.scope === "local" ? refinement.chatId : null);
}

function conflictView(conflict: RollbackConflict): RollbackConflictView {
  const { entryKey, kind, id, scope, expected, current, target } = conflict;
  return { entryKey, kind, id, scope, expected, current, target };
}

const rollbackSchema = z.object({
  id: idSchema,
  /** Per conflicting entry key: overwrite the later change, or leave it. */
  decide: z.record(z.string().max(500), z.enum(["revert", "keep"])).optional(),
});

/**
 * One-click rollback. Without `decide` it first checks for entries changed after the
 * refinement; if there are any, nothing is written and they come back for a decision. With
 * `decide` (or when nothing conflicts) it applies the rollback. A member may roll back local
 * refinements of their own chats; global ones need editor or admin.
 */
export async function rollbackRefinementAction(
  input: z.infer<typeof rollbackSchema>,
): Promise<RollbackActionResult> {
  const parsed = rollbackSchema.safeParse(input);
  const actor = await requireActor();
  if (!parsed.success)
    return { ok: false, code: "validation:input", error: toAppError(parsed.error).message };
  const refinement = await authorizedRefinement(actor, parsed.data.id, {
    globalNeedsEditor: true,
  });
  if (!refinement) return notFound;
  try {
    const harness = await harnessOf(actor, refinement);
    const common = {
      id: refinement.id,
      actor,
      harness,
      store: refinementStore(),
      lock: refinementLock(),
    };
    if (!parsed.data.decide) {
      const dryRun = await rollbackRefinement({ ...common, dryRun: true, now: new Date() });
      if (dryRun.conflicts.length > 0) {
        return { ok: true, applied: false, conflicts: dryRun.conflicts.map(conflictView) };
      }
    }
    const result = await rollbackRefinement({
      ...common,
      decide: parsed.data.decide ?? {},
      now: new Date(),
    });
    revalidate();
    return {
      ok: true,
      applied: true,
      rollbackId: result.refinement!.id,
      conflicts: result.conflicts.map(conflictView),
    };
  } catch (error) {
    return failure(error);
  }
}

const decisionSchema = z.object({ id: idSchema });

/** Approves a pending global proposal: its edits are validated again and applied. Editors and admins. */
export async function approveRefinementAction(
  input: z.infer<typeof decisionSchema>,
): Promise<RefinementActionResult> {
  const parsed = decisionSchema.safeParse(input);
  const actor = await requireActor();
  if (!parsed.success)
    return { ok: false, code: "validation:input", error: toAppError(parsed.error).message };
  if (!canWriteGlobal(actor)) forbidden();
  const refinement = await authorizedRefinement(actor, parsed.data.id, {
    globalNeedsEditor: true,
  });
  if (!refinement) return notFound;
  try {
    const approved = await approveRefinement({
      id: refinement.id,
      actor,
      harness: await harnessOf(actor, refinement),
      store: refinementStore(),
      lock: refinementLock(),
      now: new Date(),
    });
    revalidate();
    return { ok: true, refinementId: approved.id };
  } catch (error) {
    return failure(error);
  }
}

const rejectSchema = z.object({
  id: idSchema,
  note: z.string().max(MAX_OUTCOME_NOTE_LENGTH).optional(),
});

/** Rejects a pending global proposal; nothing is applied. Editors and admins. */
export async function rejectRefinementAction(
  input: z.infer<typeof rejectSchema>,
): Promise<RefinementActionResult> {
  const parsed = rejectSchema.safeParse(input);
  const actor = await requireActor();
  if (!parsed.success)
    return { ok: false, code: "validation:input", error: toAppError(parsed.error).message };
  if (!canWriteGlobal(actor)) forbidden();
  const refinement = await authorizedRefinement(actor, parsed.data.id, {
    globalNeedsEditor: true,
  });
  if (!refinement) return notFound;
  try {
    const rejected = await rejectRefinement({
      id: refinement.id,
      actor,
      store: refinementStore(),
      now: new Date(),
      note: parsed.data.note || undefined,
    });
    revalidate();
    return { ok: true, refinementId: rejected.id };
  } catch (error) {
    return failure(error);
  }
}

const verdictSchema = z.object({
  id: idSchema,
  verdict: z.enum(["confirmed", "refuted"]),
  note: z.string().max(MAX_OUTCOME_NOTE_LENGTH),
});

/**
 * Marks the expected outcome as confirmed or refuted. A global refinement needs editor or
 * admin; a local one, the owner of its chat (the core also lets only the person it ran for,
 * or an editor/admin, judge it).
 */
export async function setVerdictAction(
  input: z.infer<typeof verdictSchema>,
): Promise<RefinementActionResult> {
  const parsed = verdictSchema.safeParse(input);
  const actor = await requireActor();
  if (!parsed.success)
    return { ok: false, code: "validation:input", error: toAppError(parsed.error).message };
  const refinement = await authorizedRefinement(actor, parsed.data.id, {
    globalNeedsEditor: true,
  });
  if (!refinement) return notFound;
  try {
    await setOutcomeVerdict({
      id: refinement.id,
      verdict: parsed.data.verdict,
      note: parsed.data.note,
      actor,
      store: refinementStore(),
      now: new Date(),
    });
    revalidate();
    return { ok: true, refinementId: refinement.id };
  } catch (error) {
    return failure(error);
  }
}

const restoreSchema = z.object({ id: idSchema });

/**
 * Restores the whole global harness to its version right after refinement `id`
 * (`harnessVersionAfter`), recorded as one new refinement. Editors and admins.
 */
export async function restoreToVersionAction(
  input: z.infer<typeof restoreSchema>,
): Promise<RefinementActionResult> {
  const parsed = restoreSchema.safeParse(input);
  const actor = await requireActor();
  if (!parsed.success)
    return { ok: false, code: "validation:input", error: toAppError(parsed.error).message };
  if (!canWriteGlobal(actor)) forbidden();
  const refinement = await authorizedRefinement(actor, parsed.data.id, {
    globalNeedsEditor: true,
  });
  if (!refinement) return notFound;
  const version = refinement.harnessVersionAfter;
  if (refinement.scope !== "global" || version === null || refinement.status === "imported") {
    return {
      ok: false,
      code: "validation:refinement",
      error: "Only a global refinement recorded in this workspace has a version to restore.",
    };
  }
  try {
    const restored = await restoreHarnessToVersion({
      harness: await harnessFor(actor, null),
      store: refinementStore(),
      lock: refinementLock(),
      version,
      actor,
      now: new Date(),
    });
    revalidate();
    return { ok: true, refinementId: restored.id };
  } catch (error) {
    return failure(error);
  }
}
