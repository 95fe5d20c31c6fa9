// Checks each proposed edit of a refinement: the refinement's own rules (actions, reasons, scope,
// targets, "changed during planning", twins) and, for the resulting entry, the store's edit
// planner in validate-only mode (../store/edit-planner.ts), its problems mapped to refine codes.
import { canWriteGlobal, type Actor } from "../actor";
import {
  ENTRY_KINDS,
  checkEntryId,
  entryKeyOf,
  planCreatedEntry,
  planUpdatedEntry,
  slugifyTitle,
  type EditProblem,
  type Entry,
  type EntryKind,
  type EntryScope,
  type Harness,
  type HarnessEdit,
  type PlannedEntry,
} from "../store";
import { type ApplyRefinementOptions } from "./apply-refinement";
import {
  REFINEMENT_EDIT_ACTIONS,
  type ProposedEdit,
  type RecordedEdit,
  type RefinementEditAction,
  type RefinementErrorInfo,
} from "./types";

/** At most this many edits of one plan are considered; the rest fail with `refine:too_many_edits`. */
export const MAX_REFINEMENT_EDITS = 100;

/** One proposed edit, checked. */
export interface Checked {
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

export function refineError(
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

/** Checks every edit of the plan against fresh state (`forced`: errors pinned by a refused batch). */
export async function checkEdits(
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
  const refuse = (...error: Parameters<typeof refineError>) =>
    fail(proposed, scope, refineError(...error));
  if (input.index >= MAX_REFINEMENT_EDITS) {
    return refuse(
      "too_many_edits",
      `A refinement may propose at most ${MAX_REFINEMENT_EDITS} edits`,
    );
  }
  if (input.scopeError) return fail(proposed, scope, input.scopeError);

  const action = proposed.action as RefinementEditAction;
  if (!(REFINEMENT_EDIT_ACTIONS as readonly string[]).includes(action)) {
    return refuse(
      "unknown_action",
      `Unknown action ${JSON.stringify(proposed.action)}; use create, update or delete`,
    );
  }
  const kind = proposed.kind as EntryKind;
  if (!(ENTRY_KINDS as readonly string[]).includes(kind)) {
    return refuse(
      "unknown_kind",
      `Unknown kind ${JSON.stringify(proposed.kind)}; use ${ENTRY_KINDS.join(", ")}`,
    );
  }
  if (!isNonEmptyString(proposed.reason)) {
    return refuse("missing_field", "Every edit needs a reason");
  }
  for (const field of ["id", "title", "content", "path"] as const) {
    if (proposed[field] !== undefined && typeof proposed[field] !== "string") {
      return refuse("invalid_entry", `${field} must be a string`);
    }
  }
  if (
    proposed.metadata !== undefined &&
    (typeof proposed.metadata !== "object" ||
      proposed.metadata === null ||
      Array.isArray(proposed.metadata))
  ) {
    return refuse("invalid_entry", "metadata must be a JSON object");
  }
  // The store's own id rules and wording (edit-planner.ts), mapped to refinement codes.
  const idProblem = proposed.id === undefined ? null : checkEntryId(proposed.id);
  if (idProblem?.rule === "reserved_id") {
    return refuse("base_prompt", idProblem.error.message);
  }
  if (action !== "create" && proposed.id === undefined) {
    return refuse("missing_field", `${action} needs the id of the entry`);
  }
  if (idProblem) {
    return refuse("invalid_entry", idProblem.error.message);
  }
  if (action === "create" && (proposed.title === undefined || proposed.content === undefined)) {
    return refuse("missing_field", "create needs a title and content");
  }
  if (
    action === "update" &&
    proposed.title === undefined &&
    proposed.content === undefined &&
    proposed.path === undefined &&
    proposed.metadata === undefined
  ) {
    return refuse("missing_field", "update needs at least one of title, content, path, metadata");
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
  /** The edit as recorded when it goes ahead (or changes nothing): from `current` to `after`. */
  const recordedAs = (after: RecordedEdit["after"], result: "pending" | "unchanged") => ({
    proposed,
    scope,
    entryKey,
    plannedVersion,
    before: current,
    after,
    result,
  });
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

  let planned: PlannedEntry;
  let harnessEdit: HarnessEdit | undefined;
  // A contract the resulting entry breaks (the store's own check, validate-only).
  const invalid = (problem: EditProblem) =>
    fail(proposed, scope, refineError("invalid_entry", problem.error.message), base);
  const scopeSelector = scope === "global" ? { global: true } : { scope: "local" as const };
  const common = {
    reason: proposed.reason,
    source: "refinement" as const,
    cause: "refinement" as const,
  };
  /** What a create or update writes: the planned entry's fields, in its scope. */
  const writtenFields = (after: Entry) => ({
    title: after.title,
    content: after.content,
    path: after.path,
    metadata: after.metadata,
    ...scopeSelector,
    ...common,
  });

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
    planned = planCreatedEntry({
      ref: {
        kind,
        scope,
        chatId: input.chatId,
        id: id ?? slugifyTitle({ title: proposed.title!, fallback: kind }),
      },
      title: proposed.title!,
      content: proposed.content!,
      path: proposed.path,
      metadata: proposed.metadata,
      source: "refinement",
      version: 1,
      actorId: input.actor.userId,
      now: input.now,
    });
    if (!planned.ok) return invalid(planned.problem);
    harnessEdit = {
      op: "create",
      kind,
      ...(id !== undefined ? { id } : {}),
      ...writtenFields(planned.entry),
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
        recorded: recordedAs(null, "pending"),
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
    planned = planUpdatedEntry({
      current,
      title: proposed.title,
      content: proposed.content,
      path: proposed.path,
      metadataPatch: proposed.metadata,
      source: "refinement",
      actorId: input.actor.userId,
      now: input.now,
    });
    if (!planned.ok) return invalid(planned.problem);
    if (planned.unchanged) {
      return {
        recorded: recordedAs(current, "unchanged"),
        kind,
        id,
      };
    }
    harnessEdit = {
      op: "update",
      kind,
      id: id!,
      expectedVersion: current.version,
      ...writtenFields(planned.entry),
    };
  }
  return {
    recorded: recordedAs(planned.entry, "pending"),
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
