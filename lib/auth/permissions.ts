import { canWriteGlobal, hasRole, type Actor, type Refinement } from "@/lib/harness";

/**
 * What an Actor may do, in one place for the pages (which show or hide a control) and the
 * server actions (which answer 403 when called anyway). Pure: no session, no database; whether
 * a chat is the actor's own comes in as `ownsChat` from `getOwnChat`.
 */

/** Global entries, company knowledge, refinement proposals: editors and admins. */
export { canWriteGlobal };

/** Members, invites and workspace settings: admins. */
export function isAdmin(actor: Actor): boolean {
  return hasRole(actor.role, "admin");
}

/** Whether the actor may change what a refinement wrote: global needs editor or admin, local the chat's owner. */
export function mayWriteRefinementScope(
  actor: Actor,
  refinement: Pick<Refinement, "scope">,
  ownsChat: boolean,
): boolean {
  return refinement.scope === "global" ? canWriteGlobal(actor) : ownsChat;
}

/** A refinement whose edits were applied (wholly or partly) can be rolled back. */
export function isRollbackable(refinement: Pick<Refinement, "status">): boolean {
  return refinement.status === "applied" || refinement.status === "partial";
}

/** A global refinement recorded here (not pending, not imported) names a harness version to restore. */
export function isRestorable(
  refinement: Pick<Refinement, "scope" | "harnessVersionAfter" | "status">,
): boolean {
  return (
    refinement.scope === "global" &&
    refinement.harnessVersionAfter !== null &&
    refinement.status !== "pending" &&
    refinement.status !== "imported"
  );
}

/** Restoring the global harness to a version: editors and admins, on a restorable refinement. */
export function mayRestore(
  actor: Actor,
  refinement: Pick<Refinement, "scope" | "harnessVersionAfter" | "status">,
): boolean {
  return canWriteGlobal(actor) && isRestorable(refinement);
}

/** Approving or rejecting a pending global proposal: editors and admins. */
export function mayDecideProposal(actor: Actor): boolean {
  return canWriteGlobal(actor);
}

/** A refinement has an outcome to judge once it ran and named what it expected. */
export function isJudgeable(refinement: Pick<Refinement, "status" | "expectedOutcome">): boolean {
  return refinement.status !== "pending" && refinement.expectedOutcome !== "";
}

/** Who may confirm or refute the outcome: editors and admins, or the person a local one ran for. */
export function mayJudge(actor: Actor, refinement: Pick<Refinement, "scope" | "actorId">): boolean {
  return (
    canWriteGlobal(actor) || (refinement.scope === "local" && refinement.actorId === actor.userId)
  );
}
