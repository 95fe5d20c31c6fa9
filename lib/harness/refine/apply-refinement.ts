// Over 500 lines, knowingly: applying a plan, isolating the edit that breaks a batch and checking
// each edit against the scope policy share one set of per-edit results. The per-edit check is to
// call the store's edit planner in validate-only mode (issue 13, item 4), which will shrink it.
import { canWriteGlobal, type Actor } from "../actor";
import { HarnessError, HarnessValidationError } from "../errors";
import {
  DEFAULT_ENTRY_PATH,
  ENTRY_ID_PATTERN,
  ENTRY_KINDS,
  assertValidEntry,
  entryKeyOf,
  isReservedEntryId,
  slugifyTitle,
  type Entry,
  type EntryKind,
  type EntryScope,
  type Harness,
  type HarnessEdit,
  type Revision,
} from "../store";
import { jsonEqual } from "../store";
import { toErrorInfo } from "../errors";
import {
  REFINEMENT_EDIT_ACTIONS,
  type ProposedEdit,
  type RecordedEdit,
  type RefinementEditAction,
  type RefinementErrorInfo,
  type RefinementPlan,
  type RefinementStatus,
} from "./types";

/** At most this many edits of one plan are considered; the rest fail with `refine:too_many_edits`. */
export const MAX_REFINEMENT_EDITS = 100;

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

interface Checked {
  recorded: RecordedEdit;
  /** Set when the edit is valid and changes something. */
  harnessEdit?: HarnessEdit;
  kind?: EntryKind;
  id?: string;
  /** Position in the plan (to pin an error found while applying on its edit). */
  planIndex?: number;
}

function fail(
  proposed: ProposedEdit,
  scope: EntryScope,
  error: RefinementErrorInfo,
  extra: Partial<RecordedEdit> = {},
): Checked {
  return {
    recorded: {
      proposed,
      entryKey: null,
      scope,
      plannedVersion: null,
      before: null,
      after: null,
      result: "failed",
      error,
      ...extra,
    },
  };
}

function refineError(
  reason: string,
  message: string,
  details?: Record<string, unknown>,
): RefinementErrorInfo {
  return details
    ? { code: `refine:${reason}`, message, details }
    : { code: `refine:${reason}`, message };
}

function isNonEmptyString(value: unknown): value is string {
  return typeof value === "string" && value.trim().length > 0;
}

function mergeMetadata(
  current: Record<string, unknown>,
  patch: Record<string, unknown> | undefined,
): Record<string, unknown> {
  if (!patch) return current;
  const merged = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return merged;
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
  if (actor.userId !== harness.actor.userId || actor.workspaceId !== harness.actor.workspaceId) {
    throw new HarnessValidationError({
      surface: "refinement",
      message: "applyRefinement needs a harness built for the same actor",
    });
  }
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

async function checkEdits(
  options: ApplyRefinementOptions,
  forced: ReadonlyMap<number, RefinementErrorInfo>,
): Promise<Checked[]> {
  const { harness, actor, scope } = options;
  const now = (options.now ?? new Date()).toISOString();
  const seen = new Set<string>();
  const results: Checked[] = [];

  let scopeError: RefinementErrorInfo | null = null;
  if (scope === "global") {
    if (options.global !== true) {
      scopeError = {
        code: "forbidden:refinement",
        message: "A global refinement needs the explicit global flag",
      };
    } else if (!canWriteGlobal(actor)) {
      scopeError = {
        code: "forbidden:refinement",
        message: `A global refinement needs the editor or admin role; this actor is a ${actor.role}`,
      };
    }
  } else if (harness.chatId === null) {
    scopeError = {
      code: "validation:refinement",
      message: "A local refinement needs a chat; this harness serves none",
    };
  }
  const chatId = scope === "local" ? harness.chatId : null;

  for (const [index, raw] of options.plan.edits.entries()) {
    const proposed: ProposedEdit = structuredClone(raw);
    const checked = await checkEdit({
      proposed,
      index,
      scope,
      chatId,
      scopeError,
      forced: forced.get(index),
      plannedVersions: options.plannedAt.entryVersions,
      seen,
      harness,
      actor,
      now,
      abortSignal: options.abortSignal,
    });
    checked.planIndex = index;
    results.push(checked);
  }
  return results;
}

async function checkEdit(input: {
  proposed: ProposedEdit;
  index: number;
  scope: EntryScope;
  chatId: string | null;
  scopeError: RefinementErrorInfo | null;
  forced: RefinementErrorInfo | undefined;
  plannedVersions: Readonly<Record<string, number>>;
  seen: Set<string>;
  harness: Harness;
  actor: Actor;
  now: string;
  abortSignal?: AbortSignal;
}): Promise<Checked> {
  const { proposed, scope, harness } = input;
  if (input.index >= MAX_REFINEMENT_EDITS) {
    return fail(
      proposed,
      scope,
      refineError(
        "too_many_edits",
        `A refinement may propose at most ${MAX_REFINEMENT_EDITS} edits`,
      ),
    );
  }
  if (input.scopeError) return fail(proposed, scope, input.scopeError);

  const action = proposed.action as RefinementEditAction;
  if (!(REFINEMENT_EDIT_ACTIONS as readonly string[]).includes(action)) {
    return fail(
      proposed,
      scope,
      refineError(
        "unknown_action",
        `Unknown action ${JSON.stringify(proposed.action)}; use create, update or delete`,
      ),
    );
  }
  const kind = proposed.kind as EntryKind;
  if (!(ENTRY_KINDS as readonly string[]).includes(kind)) {
    return fail(
      proposed,
      scope,
      refineError(
        "unknown_kind",
        `Unknown kind ${JSON.stringify(proposed.kind)}; use ${ENTRY_KINDS.join(", ")}`,
      ),
    );
  }
  if (!isNonEmptyString(proposed.reason)) {
    return fail(proposed, scope, refineError("missing_field", "Every edit needs a reason"));
  }
  for (const field of ["id", "title", "content", "path"] as const) {
    if (proposed[field] !== undefined && typeof proposed[field] !== "string") {
      return fail(proposed, scope, refineError("invalid_entry", `${field} must be a string`));
    }
  }
  if (
    proposed.metadata !== undefined &&
    (typeof proposed.metadata !== "object" ||
      proposed.metadata === null ||
      Array.isArray(proposed.metadata))
  ) {
    return fail(proposed, scope, refineError("invalid_entry", "metadata must be a JSON object"));
  }
  if (proposed.id !== undefined && isReservedEntryId(proposed.id)) {
    return fail(
      proposed,
      scope,
      refineError(
        "base_prompt",
        "The base system prompt (base_system_prompt) is immutable: it is not a harness entry",
      ),
    );
  }
  if (action !== "create" && proposed.id === undefined) {
    return fail(
      proposed,
      scope,
      refineError("missing_field", `${action} needs the id of the entry`),
    );
  }
  if (proposed.id !== undefined && !ENTRY_ID_PATTERN.test(proposed.id)) {
    return fail(
      proposed,
      scope,
      refineError(
        "invalid_entry",
        `Invalid id ${JSON.stringify(proposed.id)}: use 1–80 characters of a-z, 0-9, '_' and '-'`,
      ),
    );
  }
  if (action === "create" && (proposed.title === undefined || proposed.content === undefined)) {
    return fail(proposed, scope, refineError("missing_field", "create needs a title and content"));
  }
  if (
    action === "update" &&
    proposed.title === undefined &&
    proposed.content === undefined &&
    proposed.path === undefined &&
    proposed.metadata === undefined
  ) {
    return fail(
      proposed,
      scope,
      refineError("missing_field", "update needs at least one of title, content, path, metadata"),
    );
  }

  const id = proposed.id;
  const entryKey = id === undefined ? null : entryKeyOf({ kind, scope, chatId: input.chatId, id });
  if (entryKey !== null) {
    if (input.seen.has(entryKey)) {
      return fail(
        proposed,
        scope,
        refineError(
          "duplicate_target",
          `Entry ${scope}:${kind}:${id} is edited twice in this refinement`,
        ),
        { entryKey },
      );
    }
    input.seen.add(entryKey);
  }
  const plannedVersion = entryKey !== null ? (input.plannedVersions[entryKey] ?? null) : null;
  const current =
    id === undefined
      ? null
      : await harness.getEntry({ kind, id, scope, abortSignal: input.abortSignal });
  const base: Partial<RecordedEdit> = { entryKey, plannedVersion, before: current };
  const changedDuringPlanning = () =>
    fail(
      proposed,
      scope,
      refineError(
        "changed_during_planning",
        `Entry ${scope}:${kind}:${String(id)} changed during planning`,
        { plannedVersion, currentVersion: current?.version ?? null },
      ),
      base,
    );

  if (input.forced) return fail(proposed, scope, input.forced, base);

  let after: Entry;
  let harnessEdit: HarnessEdit | undefined;
  const scopeSelector = scope === "global" ? { global: true } : { scope: "local" as const };
  const common = {
    reason: proposed.reason,
    source: "refinement" as const,
    cause: "refinement" as const,
  };

  if (action === "create") {
    if (current) {
      return plannedVersion === null
        ? changedDuringPlanning()
        : fail(
            proposed,
            scope,
            refineError(
              "already_exists",
              `Entry ${scope}:${kind}:${String(id)} already exists; update it instead`,
            ),
            base,
          );
    }
    if (plannedVersion !== null) return changedDuringPlanning();
    if (id === undefined) {
      const twin = await findTwin({
        harness,
        kind,
        scope,
        title: proposed.title!,
        plannedVersions: input.plannedVersions,
        abortSignal: input.abortSignal,
      });
      if (twin?.appeared) {
        return fail(
          proposed,
          scope,
          refineError(
            "changed_during_planning",
            `Entry ${scope}:${kind}:${twin.entry.id} ("${twin.entry.title}") appeared since planning; the create is not added again under another id`,
            { appearedId: twin.entry.id, appearedVersion: twin.entry.version },
          ),
          { ...base, entryKey: entryKeyOf(twin.entry) },
        );
      }
      if (twin) {
        return fail(
          proposed,
          scope,
          refineError(
            "already_exists",
            `Entry ${scope}:${kind}:${twin.entry.id} already has the title "${twin.entry.title}"; update it instead`,
            { existingId: twin.entry.id },
          ),
          { ...base, entryKey: entryKeyOf(twin.entry) },
        );
      }
    }
    after = {
      kind,
      scope,
      chatId: input.chatId,
      id: id ?? slugifyTitle({ title: proposed.title!, fallback: kind }),
      title: proposed.title!,
      content: proposed.content!,
      path: proposed.path ?? DEFAULT_ENTRY_PATH,
      metadata: proposed.metadata ?? {},
      pinned: false,
      source: "refinement",
      version: 1,
      createdAt: input.now,
      updatedAt: input.now,
      createdBy: input.actor.userId,
      updatedBy: input.actor.userId,
    };
    harnessEdit = {
      op: "create",
      kind,
      ...(id !== undefined ? { id } : {}),
      title: after.title,
      content: after.content,
      path: after.path,
      metadata: after.metadata,
      ...scopeSelector,
      ...common,
    };
  } else {
    if (!current) {
      if (plannedVersion !== null) return changedDuringPlanning();
      if (scope === "local") {
        const global = await harness.getEntry({
          kind,
          id: id!,
          scope: "global",
          abortSignal: input.abortSignal,
        });
        if (global) {
          return fail(
            proposed,
            scope,
            refineError(
              "read_only_global",
              `Entry global:${kind}:${String(id)} is global and read-only in a local refinement`,
            ),
            base,
          );
        }
      }
      return fail(
        proposed,
        scope,
        refineError("not_found", `No ${scope} ${kind} entry "${String(id)}" to ${action}`),
        base,
      );
    }
    if (current.version !== plannedVersion) return changedDuringPlanning();
    if (action === "delete") {
      return {
        recorded: {
          proposed,
          scope,
          ...base,
          entryKey,
          plannedVersion,
          before: current,
          after: null,
          result: "pending",
        },
        harnessEdit: {
          op: "delete",
          kind,
          id: id!,
          expectedVersion: current.version,
          ...scopeSelector,
          ...common,
        },
        kind,
        id,
      };
    }
    after = {
      ...current,
      title: proposed.title ?? current.title,
      content: proposed.content ?? current.content,
      path: proposed.path ?? current.path,
      metadata: mergeMetadata(current.metadata, proposed.metadata),
      source: "refinement",
      version: current.version + 1,
      updatedAt: input.now,
      updatedBy: input.actor.userId,
    };
    const unchanged =
      after.title === current.title &&
      after.content === current.content &&
      after.path === current.path &&
      jsonEqual(after.metadata, current.metadata);
    if (!unchanged) {
      harnessEdit = {
        op: "update",
        kind,
        id: id!,
        expectedVersion: current.version,
        title: after.title,
        content: after.content,
        path: after.path,
        metadata: after.metadata,
        ...scopeSelector,
        ...common,
      };
    } else {
      return {
        recorded: {
          proposed,
          scope,
          entryKey,
          plannedVersion,
          before: current,
          after: current,
          result: "unchanged",
        },
        kind,
        id,
      };
    }
  }
  try {
    assertValidEntry(after);
  } catch (error) {
    return fail(
      proposed,
      scope,
      refineError("invalid_entry", toErrorInfo(error, "refine:error").message),
      base,
    );
  }
  return {
    recorded: {
      proposed,
      scope,
      entryKey,
      plannedVersion,
      before: current,
      after,
      result: "pending",
    },
    harnessEdit,
    kind,
    id,
  };
}

/**
 * For a create without an id, the entry it would duplicate (same kind and scope):
 * - `appeared`: an entry that did not exist when the plan was made and now has the id the
 *   title slugs to, or the same title (case and surrounding spaces ignored). Such a create
 *   raced another writer (typically the same refinement on another instance); the store would
 *   otherwise quietly add it again as `<slug>-2`.
 * - otherwise an entry that already had exactly that title at planning (a duplicate the
 *   planner should have proposed as an update). A different title that only slugs the same
 *   ("Lunch!" next to "Lunch") is not a twin: the store gives it `<slug>-2`.
 */
async function findTwin(input: {
  harness: Harness;
  kind: EntryKind;
  scope: EntryScope;
  title: string;
  plannedVersions: Readonly<Record<string, number>>;
  abortSignal?: AbortSignal;
}): Promise<{ entry: Entry; appeared: boolean } | null> {
  const { harness, kind, scope, abortSignal } = input;
  const isNew = (entry: Entry) => input.plannedVersions[entryKeyOf(entry)] === undefined;
  const slug = slugifyTitle({ title: input.title, fallback: kind });
  const bySlug = await harness.getEntry({ kind, id: slug, scope, abortSignal });
  if (bySlug && isNew(bySlug)) return { entry: bySlug, appeared: true };
  const title = input.title.trim().toLowerCase();
  if (title === "") return null;
  const page = await harness.listEntries({
    kind,
    scope,
    text: input.title.trim(),
    limit: 500,
    abortSignal,
  });
  const same = page.items.filter((entry) => entry.title.trim().toLowerCase() === title);
  const appeared = same.find(isNew);
  if (appeared) return { entry: appeared, appeared: true };
  return same[0] ? { entry: same[0], appeared: false } : null;
}
