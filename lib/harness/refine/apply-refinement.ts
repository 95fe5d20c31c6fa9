// Applies a refinement's plan: the valid edits in one batch, the edit that breaks a batch
// isolated, concurrent writes retried. Checking each edit is check-edits.ts.
import { type Actor } from "../actor";
import { HarnessError, toErrorInfo } from "../errors";
import { type EntryScope, type Harness, type Revision } from "../store";
import { checkEdits, refineError, MAX_REFINEMENT_EDITS, type Checked } from "./check-edits";
import {
  type RecordedEdit,
  type RefinementErrorInfo,
  type RefinementPlan,
  type RefinementStatus,
} from "./types";
import { assertHarnessOf } from "./internal/assert-harness-of";

export { MAX_REFINEMENT_EDITS } from "./check-edits";

/** How often a batch is re-validated and retried when a concurrent write got in first. */
const MAX_CONFLICT_ATTEMPTS = 3;

/** Input of `applyRefinement`. */
export interface ApplyRefinementOptions {
  /** The harness of the chat the refinement runs in, built for `actor`. */
  harness: Harness;
  plan: Pick<RefinementPlan, "summary" | "edits">;
  /** `local`: edits target this chat's local entries; `global`: the workspace's global ones. */
  scope: EntryScope;
  /** The explicit opt-in a `global` refinement needs (besides an editor or admin actor). */
  global?: boolean;
  actor: Actor;
  /**
   * What the planner saw: `entryKeyOf(entry)` → version (a key that is absent did not exist),
   * and the harness version of that snapshot. The first write expects that harness version, so
   * anything written since planning makes the batch re-validate against fresh state first.
   */
  plannedAt: { entryVersions: Readonly<Record<string, number>>; harnessVersion?: number };
  /** Validate only: valid edits are reported as `pending` with their proposed state; nothing is written. */
  dryRun?: boolean;
  /** For proposed (unwritten) states in a dry run. Default `new Date()`. */
  now?: Date;
  abortSignal?: AbortSignal;
}

/** What `applyRefinement` did. */
export interface ApplyRefinementResult {
  /** `applied` | `partial` | `failed` | `no_changes` (a dry run: `pending` when anything is valid). */
  status: RefinementStatus;
  /** One per proposed edit, in plan order. */
  edits: RecordedEdit[];
  harnessVersionBefore: number;
  harnessVersionAfter: number;
}

function statusOf(edits: readonly RecordedEdit[], dryRun: boolean): RefinementStatus {
  const count = (result: RecordedEdit["result"]) =>
    edits.filter((edit) => edit.result === result).length;
  const applied = count(dryRun ? "pending" : "applied");
  const failed = count("failed");
  if (applied > 0) return dryRun ? "pending" : failed > 0 ? "partial" : "applied";
  return failed > 0 ? "failed" : "no_changes";
}

/**
 * Validates a refinement's edits and applies the valid ones together in ONE
 * `harness.applyEdits` call (one transaction, one harness version); invalid edits are
 * recorded with their error and never half-written.
 *
 * Each edit is checked for: a known action and kind, a reason and the fields its action
 * needs, the base prompt (`base_system_prompt`) staying untouched, the kind contracts and size
 * limits (on the complete resulting entry), its target existing (update/delete) or not
 * (create), one edit per entry, the scope rules (a local refinement edits only this chat's
 * local entries — global ones are read-only; a global refinement needs `global: true` and an
 * editor or admin) and "changed during planning": the entry's version moved since
 * `plannedAt`. On update, `metadata` is merged into the current metadata (a `null` value
 * removes a key).
 *
 * If a concurrent write lands between validation and the write, the per-entry and harness
 * version checks of `applyEdits` refuse the batch; it is then re-validated against fresh state
 * (so a moved target now fails as "changed during planning") and retried.
 */
export async function applyRefinement(
  options: ApplyRefinementOptions,
): Promise<ApplyRefinementResult> {
  const { harness, actor } = options;
  assertHarnessOf(harness, actor, "applyRefinement");
  const dryRun = options.dryRun === true;
  const forced = new Map<number, RefinementErrorInfo>();
  let lastConflict: unknown = null;
  const maxAttempts =
    MAX_CONFLICT_ATTEMPTS + Math.min(options.plan.edits.length, MAX_REFINEMENT_EDITS);

  for (let attempt = 0, conflicts = 0; attempt < maxAttempts; attempt++) {
    const current = await harness.getHarnessVersion({ abortSignal: options.abortSignal });
    // The first write expects the planning snapshot's version: a write since then (another
    // instance's refinement, a turn's memory edit) refuses it, and the retry below validates
    // against fresh state — where a create whose title or id appeared meanwhile fails.
    const harnessVersionBefore =
      attempt === 0 && options.plannedAt.harnessVersion !== undefined
        ? Math.min(options.plannedAt.harnessVersion, current)
        : current;
    const checked = await checkEdits(options, forced);
    const batch = checked.filter((item) => item.harnessEdit !== undefined);
    const finish = (edits: RecordedEdit[], harnessVersionAfter: number): ApplyRefinementResult => ({
      status: statusOf(edits, dryRun),
      edits,
      harnessVersionBefore,
      harnessVersionAfter,
    });
    if (dryRun || batch.length === 0) {
      return finish(
        checked.map((item) => item.recorded),
        harnessVersionBefore,
      );
    }
    try {
      const result = await harness.applyEdits({
        edits: batch.map((item) => item.harnessEdit!),
        reason: options.plan.summary,
        cause: "refinement",
        source: "refinement",
        // The backstop across app instances: nothing else may have written in between.
        expectedHarnessVersion: harnessVersionBefore,
        abortSignal: options.abortSignal,
      });
      attachRevisions(batch, result.revisions);
      return finish(
        checked.map((item) => item.recorded),
        result.harnessVersion,
      );
    } catch (error) {
      if (!HarnessError.isInstance(error)) throw error;
      if (error.code.startsWith("conflict:")) {
        lastConflict = error;
        if (++conflicts >= MAX_CONFLICT_ATTEMPTS) break;
        continue;
      }
      const culprit = findCulprit(batch, error);
      if (!culprit) {
        const info = toErrorInfo(error, "refine:error");
        return finish(
          checked.map((item) =>
            item.harnessEdit
              ? {
                  ...item.recorded,
                  after: null,
                  result: "failed",
                  error: refineError("apply_failed", `The batch was refused: ${info.message}`, {
                    cause: info,
                  }),
                }
              : item.recorded,
          ),
          harnessVersionBefore,
        );
      }
      forced.set(culprit, toErrorInfo(error, "refine:error"));
    }
  }
  // Concurrent writers kept winning: nothing was applied.
  const harnessVersion = await harness.getHarnessVersion({ abortSignal: options.abortSignal });
  const checked = await checkEdits(options, forced);
  const info = toErrorInfo(lastConflict, "refine:error");
  const edits = checked.map((item) =>
    item.harnessEdit
      ? {
          ...item.recorded,
          after: null,
          result: "failed" as const,
          error: refineError("conflict", `Concurrent changes kept conflicting: ${info.message}`),
        }
      : item.recorded,
  );
  return {
    status: statusOf(edits, false),
    edits,
    harnessVersionBefore: harnessVersion,
    harnessVersionAfter: harnessVersion,
  };
}

/** Matches a refused batch's error to the edit that caused it, by entry key or kind + id. */
function findCulprit(batch: readonly Checked[], error: HarnessError): number | null {
  const details = error.details;
  for (const item of batch) {
    if (item.recorded.entryKey !== null && details.entryKey === item.recorded.entryKey) {
      return item.planIndex ?? null;
    }
    if (item.kind !== undefined && details.kind === item.kind && details.id === item.id) {
      return item.planIndex ?? null;
    }
  }
  return null;
}

/** Fills in `after`, `entryKey` and `revisionId` of the applied edits from the batch's revisions. */
function attachRevisions(batch: readonly Checked[], revisions: readonly Revision[]): void {
  const byKey = new Map(revisions.map((revision) => [revision.entryKey, revision]));
  const keyed = new Set(
    batch.map((item) => item.recorded.entryKey).filter((key): key is string => key !== null),
  );
  // Creates without an id got a slug from the harness: their revisions are the ones no keyed edit claims, in order.
  const unclaimed = revisions.filter((revision) => !keyed.has(revision.entryKey));
  for (const item of batch) {
    const revision =
      item.recorded.entryKey !== null ? byKey.get(item.recorded.entryKey) : unclaimed.shift();
    if (!revision) {
      item.recorded.result = "unchanged";
      item.recorded.after = item.recorded.before;
      continue;
    }
    item.recorded.entryKey = revision.entryKey;
    item.recorded.before = revision.before;
    item.recorded.after = revision.after;
    item.recorded.revisionId = revision.id;
    item.recorded.result = "applied";
  }
}
