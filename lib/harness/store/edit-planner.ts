import { HarnessValidationError } from "../errors";
import { ENTRY_ID_PATTERN, entryProblem, isReservedEntryId } from "./entry-contracts";
import type { UpdateEntryInput } from "./harness-api";
import { jsonEqual } from "./internal/json-equal";
import { DEFAULT_ENTRY_PATH, type Entry, type EntryRef, type EntrySource } from "./types";

/**
 * The pure part of planning one edit: the rules that decide whether an edit is valid and what
 * entry state it produces, with no storage, clock or id generator. `createHarness` calls it
 * and throws the problem's error (store mode); the refinement check (`applyRefinement`) calls
 * the same functions to validate only, and maps each problem's `rule` to a refinement error
 * code. One source of truth for "is this edit valid".
 */

/** A rule an edit breaks. `error` is what the store throws; its message is the one wording. */
export interface EditProblem {
  /**
   * `reserved_id`: the id names the base system prompt; `invalid_id`: the id breaks the id
   * pattern; `invalid_entry`: the resulting entry breaks the generic or kind contract.
   */
  rule: "reserved_id" | "invalid_id" | "invalid_entry";
  error: HarnessValidationError;
}

/** The result of planning an entry state: the state, or the rule it breaks. */
export type PlannedEntry =
  { ok: true; entry: Entry; unchanged: boolean } | { ok: false; problem: EditProblem };

/** Whether `id` may name a new entry; `null` when it may. */
export function checkEntryId(id: unknown): EditProblem | null {
  if (typeof id === "string" && isReservedEntryId(id)) {
    return {
      rule: "reserved_id",
      error: new HarnessValidationError({
        surface: "entry",
        message:
          "base_system_prompt is the base system prompt; it is not a harness entry and cannot be created or edited here",
        details: { id },
      }),
    };
  }
  if (typeof id !== "string" || !ENTRY_ID_PATTERN.test(id)) {
    return {
      rule: "invalid_id",
      error: new HarnessValidationError({
        surface: "entry",
        message: `Invalid entry id ${JSON.stringify(id)}: use 1–80 characters of a-z, 0-9, '_' and '-', starting with a letter or digit`,
        details: { id },
      }),
    };
  }
  return null;
}

/** `metadata` with `patch` merged in: a `null` value removes a key, `undefined` is ignored. */
export function mergeMetadataPatch(
  metadata: Record<string, unknown>,
  patch: Record<string, unknown> | undefined,
): Record<string, unknown> {
  if (!patch) return metadata;
  const merged = { ...metadata };
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return merged;
}

function checked(entry: Entry): PlannedEntry {
  const error = entryProblem(entry);
  return error
    ? { ok: false, problem: { rule: "invalid_entry", error } }
    : { ok: true, entry, unchanged: false };
}

/** The state a create produces (id already chosen and checked), validated against the contracts. */
export function planCreatedEntry(input: {
  ref: EntryRef;
  title: string;
  content: string;
  path?: string;
  metadata?: Record<string, unknown>;
  pinned?: boolean;
  source: EntrySource;
  version: number;
  actorId: string;
  now: string;
}): PlannedEntry {
  return checked({
    ...input.ref,
    title: input.title,
    content: input.content,
    path: input.path ?? DEFAULT_ENTRY_PATH,
    metadata: input.metadata ?? {},
    pinned: input.pinned ?? false,
    source: input.source,
    version: input.version,
    createdAt: input.now,
    updatedAt: input.now,
    createdBy: input.actorId,
    updatedBy: input.actorId,
  });
}

/**
 * The state an update of `current` produces. `metadata` replaces the metadata, then
 * `metadataPatch` is merged in. An update that changes no field is `unchanged` (and returns
 * `current`, unvalidated: nothing is written); otherwise the new state is validated.
 */
export function planUpdatedEntry(
  input: Pick<
    UpdateEntryInput,
    "title" | "content" | "path" | "metadata" | "metadataPatch" | "pinned"
  > & {
    current: Entry;
    source: EntrySource;
    actorId: string;
    now: string;
  },
): PlannedEntry {
  const { current } = input;
  const changed: Pick<Entry, "title" | "content" | "path" | "metadata" | "pinned"> = {
    title: input.title ?? current.title,
    content: input.content ?? current.content,
    path: input.path ?? current.path,
    metadata: mergeMetadataPatch(input.metadata ?? current.metadata, input.metadataPatch),
    pinned: input.pinned ?? current.pinned,
  };
  const unchanged =
    changed.title === current.title &&
    changed.content === current.content &&
    changed.path === current.path &&
    changed.pinned === current.pinned &&
    jsonEqual(changed.metadata, current.metadata);
  if (unchanged) return { ok: true, entry: current, unchanged: true };
  return checked({
    ...current,
    ...changed,
    source: input.source,
    version: current.version + 1,
    updatedAt: input.now,
    updatedBy: input.actorId,
  });
}

/** Store mode: the planned entry, or the problem's error thrown. */
export function entryOrThrow(planned: PlannedEntry): Entry {
  if (!planned.ok) throw planned.problem.error;
  return planned.entry;
}
