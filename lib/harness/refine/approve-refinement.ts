import { canWriteGlobal, type Actor } from "../actor";
import { HarnessForbiddenError, HarnessNotFoundError, HarnessValidationError } from "../errors";
import { type Harness } from "../store";
import { applyRefinement } from "./apply-refinement";
import { toErrorInfo } from "../errors";
import { RefinementError } from "./refinement-error";
import { defaultRefinementLock, refinementLockKey, type RefinementLock } from "./refinement-lock";
import { type RefinementStore } from "./refinement-store";
import { type OutcomeVerdict, type Refinement } from "./types";

/** Longest verdict note kept. */
export const MAX_OUTCOME_NOTE_LENGTH = 2_000;

async function getOrThrow(
  store: RefinementStore,
  actor: Actor,
  id: string,
  abortSignal?: AbortSignal,
): Promise<Refinement> {
  const refinement = await store.getRefinement({
    workspaceId: actor.workspaceId,
    id,
    abortSignal,
  });
  if (!refinement) {
    throw new HarnessNotFoundError({
      surface: "refinement",
      message: `No refinement ${id} in this workspace`,
      details: { id },
    });
  }
  return refinement;
}

function assertReviewer(actor: Actor, what: string): void {
  if (!canWriteGlobal(actor)) {
    throw new HarnessForbiddenError({
      surface: "refinement",
      message: `${what} a global refinement needs the editor or admin role; this actor is a ${actor.role}`,
      details: { actorId: actor.userId, role: actor.role },
    });
  }
}

function assertPending(refinement: Refinement): void {
  if (refinement.status !== "pending") {
    throw new RefinementError({
      reason: "not_pending",
      message: `Refinement ${refinement.id} is ${refinement.status}, not pending`,
      details: { id: refinement.id, status: refinement.status },
    });
  }
}

/**
 * Approves a pending global proposal (editor/admin only): its edits are validated again and
 * applied exactly like a direct refinement, including the changed-since-planning check
 * against the entry versions stored with the proposal. The row is claimed first
 * (compare-and-swap on `pending`), so a proposal is never applied twice, even by two app
 * instances.
 */
export async function approveRefinement(options: {
  id: string;
  actor: Actor;
  /** A harness built for `actor` (any chat, or none: global entries are the target). */
  harness: Harness;
  store: RefinementStore;
  now: Date;
  lock?: RefinementLock;
  abortSignal?: AbortSignal;
}): Promise<Refinement> {
  const { actor, store, abortSignal } = options;
  assertReviewer(actor, "Approving");
  const lock = options.lock ?? defaultRefinementLock;
  const key = refinementLockKey({ workspaceId: actor.workspaceId, scope: "global", chatId: null });
  return lock.runExclusive(key, async () => {
    const refinement = await getOrThrow(store, actor, options.id, abortSignal);
    assertPending(refinement);
    if (refinement.scope !== "global") {
      throw new HarnessValidationError({
        surface: "refinement",
        message: "Only global proposals wait for approval",
      });
    }
    const at = options.now.toISOString();
    const approval = { decision: "approved" as const, by: actor.userId, at };
    // Claim the proposal before writing any entry.
    await store.updateRefinement({
      workspaceId: actor.workspaceId,
      id: refinement.id,
      expectedStatus: "pending",
      updatedAt: at,
      patch: {
        status: "failed",
        approval,
        error: { code: "refine:approving", message: "Approved; the edits are being applied" },
      },
      abortSignal,
    });
    const entryVersions: Record<string, number> = {};
    for (const edit of refinement.edits) {
      if (edit.entryKey !== null && edit.plannedVersion !== null) {
        entryVersions[edit.entryKey] = edit.plannedVersion;
      }
    }
    let applied;
    try {
      applied = await applyRefinement({
        harness: options.harness,
        plan: {
          summary: refinement.summary,
          edits: refinement.edits.map((edit) => edit.proposed),
        },
        scope: "global",
        global: true,
        actor,
        plannedAt: { entryVersions },
        now: options.now,
        abortSignal,
      });
    } catch (error) {
      // The batch is atomic, so nothing was written: record why instead of "being applied".
      await store.updateRefinement({
        workspaceId: actor.workspaceId,
        id: refinement.id,
        updatedAt: at,
        patch: { status: "failed", error: toErrorInfo(error, "refine:error") },
      });
      throw error;
    }
    return store.updateRefinement({
      workspaceId: actor.workspaceId,
      id: refinement.id,
      updatedAt: at,
      patch: {
        status: applied.status,
        edits: applied.edits,
        error: null,
        harnessVersionBefore: applied.harnessVersionBefore,
        harnessVersionAfter: applied.harnessVersionAfter,
      },
      abortSignal,
    });
  });
}

/** Rejects a pending global proposal (editor/admin only). Nothing is applied; its edits are marked `skipped`. */
export async function rejectRefinement(options: {
  id: string;
  actor: Actor;
  store: RefinementStore;
  now: Date;
  note?: string;
  abortSignal?: AbortSignal;
}): Promise<Refinement> {
  const { actor, store, abortSignal } = options;
  assertReviewer(actor, "Rejecting");
  const refinement = await getOrThrow(store, actor, options.id, abortSignal);
  assertPending(refinement);
  const at = options.now.toISOString();
  const note = options.note?.trim().slice(0, MAX_OUTCOME_NOTE_LENGTH);
  return store.updateRefinement({
    workspaceId: actor.workspaceId,
    id: refinement.id,
    expectedStatus: "pending",
    updatedAt: at,
    patch: {
      status: "rejected",
      approval: { decision: "rejected", by: actor.userId, at, ...(note ? { note } : {}) },
      edits: refinement.edits.map((edit) =>
        edit.result === "pending" ? { ...edit, result: "skipped" as const } : edit,
      ),
    },
    abortSignal,
  });
}

/**
 * Marks a refinement's expected outcome as confirmed or refuted, with a note. A global
 * refinement's verdict needs an editor or admin; a local one's, the person it ran for or an
 * editor/admin (the host has checked that the actor may see the chat). Setting it again
 * replaces the previous verdict.
 */
export async function setOutcomeVerdict(options: {
  id: string;
  verdict: OutcomeVerdict["verdict"];
  note: string;
  actor: Actor;
  store: RefinementStore;
  now: Date;
  abortSignal?: AbortSignal;
}): Promise<Refinement> {
  const { actor, store, abortSignal } = options;
  if (options.verdict !== "confirmed" && options.verdict !== "refuted") {
    throw new HarnessValidationError({
      surface: "refinement",
      message: 'verdict must be "confirmed" or "refuted"',
      details: { verdict: options.verdict },
    });
  }
  const refinement = await getOrThrow(store, actor, options.id, abortSignal);
  const allowed =
    canWriteGlobal(actor) || (refinement.scope === "local" && refinement.actorId === actor.userId);
  if (!allowed) {
    throw new HarnessForbiddenError({
      surface: "refinement",
      message:
        refinement.scope === "global"
          ? "A verdict on a global refinement needs the editor or admin role"
          : "A verdict on another person's refinement needs the editor or admin role",
      details: { actorId: actor.userId, role: actor.role },
    });
  }
  if (refinement.status === "pending") {
    throw new RefinementError({
      reason: "not_applied",
      message: "A pending proposal has no outcome yet",
      details: { id: refinement.id },
    });
  }
  const at = options.now.toISOString();
  return store.updateRefinement({
    workspaceId: actor.workspaceId,
    id: refinement.id,
    updatedAt: at,
    patch: {
      outcome: {
        verdict: options.verdict,
        note: options.note.trim().slice(0, MAX_OUTCOME_NOTE_LENGTH),
        by: actor.userId,
        at,
      },
    },
    abortSignal,
  });
}
