"use server";

import { revalidatePath } from "next/cache";
import { forbidden } from "next/navigation";
import { z } from "zod";
import { action, fail } from "@/lib/actions";
import {
  mayDecideProposal,
  mayJudge,
  mayRestore,
  mayWriteRefinementScope,
} from "@/lib/auth/permissions";
import {
  approveRefinement,
  MAX_OUTCOME_NOTE_LENGTH,
  rejectRefinement,
  restoreHarnessToVersion,
  rollbackRefinement,
  setOutcomeVerdict,
  type Actor,
  type Refinement,
  type RollbackConflict,
} from "@/lib/harness";
import { getOwnChat, harnessFor } from "@/lib/harness-for-actor";
import { refinementLock, refinementStore } from "@/lib/refinement-runs";

/** An entry that changed after the refinement, as the rollback form shows it. */
export type RollbackConflictView = RollbackConflict;

/**
 * What a rollback came to. Without decisions and with conflicts, nothing is applied
 * (`applied: false`) and the conflicts come back for the person to decide. Otherwise the
 * rollback is recorded as `rollbackId`; `conflicts` lists entries that changed in the meantime
 * and were left alone (recorded as failed edits of the rollback).
 */
export type RollbackOutcome =
  | { applied: false; conflicts: RollbackConflictView[] }
  | { applied: true; rollbackId: string; conflicts: RollbackConflictView[] };

const idSchema = z.string().min(1).max(200);

function revalidate() {
  revalidatePath("/refinements", "layout");
  revalidatePath("/harness", "layout");
}

/**
 * The refinement of the actor's workspace (missing: `not_found:refinement`), after the scope
 * check every refinement action shares: a global one needs editor or admin, a local one must
 * come from the actor's own chat. Refusals are 403 (`forbidden()`), also for a direct call.
 */
async function authorizedRefinement(actor: Actor, id: string): Promise<Refinement> {
  const refinement = await refinementStore().getRefinement({ workspaceId: actor.workspaceId, id });
  if (!refinement) fail("not_found:refinement", "That refinement does not exist.");
  const ownsChat =
    refinement.scope === "local" &&
    refinement.chatId !== null &&
    (await getOwnChat(actor, refinement.chatId)) !== null;
  if (!mayWriteRefinementScope(actor, refinement, ownsChat)) forbidden();
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
export const rollbackRefinementAction = action(
  { input: rollbackSchema },
  async ({ input, actor }): Promise<RollbackOutcome> => {
    const refinement = await authorizedRefinement(actor, input.id);
    const harness = await harnessOf(actor, refinement);
    const common = {
      id: refinement.id,
      actor,
      harness,
      store: refinementStore(),
      lock: refinementLock(),
    };
    if (!input.decide) {
      const dryRun = await rollbackRefinement({ ...common, dryRun: true, now: new Date() });
      if (dryRun.conflicts.length > 0) {
        return { applied: false, conflicts: dryRun.conflicts.map(conflictView) };
      }
    }
    const result = await rollbackRefinement({
      ...common,
      decide: input.decide ?? {},
      now: new Date(),
    });
    revalidate();
    return {
      applied: true,
      rollbackId: result.refinement!.id,
      conflicts: result.conflicts.map(conflictView),
    };
  },
);

const decisionSchema = z.object({ id: idSchema });

/** Approves a pending global proposal: its edits are validated again and applied. Editors and admins. */
export const approveRefinementAction = action(
  { input: decisionSchema },
  async ({ input, actor }) => {
    if (!mayDecideProposal(actor)) forbidden();
    const refinement = await authorizedRefinement(actor, input.id);
    const approved = await approveRefinement({
      id: refinement.id,
      actor,
      harness: await harnessOf(actor, refinement),
      store: refinementStore(),
      lock: refinementLock(),
      now: new Date(),
    });
    revalidate();
    return { refinementId: approved.id };
  },
);

const rejectSchema = z.object({
  id: idSchema,
  note: z.string().max(MAX_OUTCOME_NOTE_LENGTH).optional(),
});

/** Rejects a pending global proposal; nothing is applied. Editors and admins. */
export const rejectRefinementAction = action({ input: rejectSchema }, async ({ input, actor }) => {
  if (!mayDecideProposal(actor)) forbidden();
  const refinement = await authorizedRefinement(actor, input.id);
  const rejected = await rejectRefinement({
    id: refinement.id,
    actor,
    store: refinementStore(),
    now: new Date(),
    note: input.note || undefined,
  });
  revalidate();
  return { refinementId: rejected.id };
});

const verdictSchema = z.object({
  id: idSchema,
  verdict: z.enum(["confirmed", "refuted"]),
  note: z.string().max(MAX_OUTCOME_NOTE_LENGTH),
});

/**
 * Marks the expected outcome as confirmed or refuted: editors and admins, or the person a local
 * refinement of their own chat ran for (`mayJudge`, as the page decides whether to show the
 * form). Whether there is an outcome to judge yet, the core decides.
 */
export const setVerdictAction = action({ input: verdictSchema }, async ({ input, actor }) => {
  const refinement = await authorizedRefinement(actor, input.id);
  if (!mayJudge(actor, refinement)) forbidden();
  await setOutcomeVerdict({
    id: refinement.id,
    verdict: input.verdict,
    note: input.note,
    actor,
    store: refinementStore(),
    now: new Date(),
  });
  revalidate();
  return { refinementId: refinement.id };
});

/**
 * Restores the whole global harness to its version right after refinement `id`
 * (`harnessVersionAfter`), recorded as one new refinement. Editors and admins.
 */
export const restoreToVersionAction = action(
  { input: z.object({ id: idSchema }) },
  async ({ input, actor }) => {
    if (!mayDecideProposal(actor)) forbidden();
    const refinement = await authorizedRefinement(actor, input.id);
    if (!mayRestore(actor, refinement)) {
      fail(
        "validation:refinement",
        "Only a global refinement recorded in this workspace has a version to restore.",
      );
    }
    const restored = await restoreHarnessToVersion({
      harness: await harnessFor(actor, null),
      store: refinementStore(),
      lock: refinementLock(),
      version: refinement.harnessVersionAfter!,
      actor,
      now: new Date(),
    });
    revalidate();
    return { refinementId: restored.id };
  },
);
