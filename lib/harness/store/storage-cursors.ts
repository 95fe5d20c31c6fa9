import { HarnessConflictError, HarnessValidationError } from "../errors";
import { entryKeyOf } from "./entry-key";
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, type StorageChange } from "./store-port";

/**
 * Helpers every `HarnessStoragePort` implementation shares, so all of them page and reject
 * cursors the same way. Cursors are JSON: opaque to callers, but identical across adapters.
 */

/** A page size clamped to 1–500; `DEFAULT_PAGE_SIZE` when missing or not finite. */
export function clampStoragePageSize(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return DEFAULT_PAGE_SIZE;
  return Math.min(MAX_PAGE_SIZE, Math.max(1, Math.floor(limit)));
}

export function encodeStorageCursor(value: unknown): string {
  return JSON.stringify(value);
}

/** The decoded cursor, `null` for none; a malformed one is `validation:cursor`. */
export function decodeStorageCursor<T>(
  cursor: string | null | undefined,
  isValid: (value: unknown) => value is T,
): T | null {
  if (cursor === null || cursor === undefined || cursor === "") return null;
  try {
    const value: unknown = JSON.parse(cursor);
    if (isValid(value)) return value;
  } catch {
    // reported below
  }
  throw new HarnessValidationError({
    surface: "cursor",
    message: "Invalid pagination cursor",
    details: { cursor },
  });
}

/** `[updatedAt, entryKey]`: the position in `listEntries` order. */
export const isEntryCursor = (value: unknown): value is [string, string] =>
  Array.isArray(value) &&
  value.length === 2 &&
  typeof value[0] === "string" &&
  typeof value[1] === "string";

/** `[harnessVersion, entryKey]`: the position in `listRevisionsInRange` order. */
export const isRangeCursor = (value: unknown): value is [number, string] =>
  Array.isArray(value) &&
  value.length === 2 &&
  typeof value[0] === "number" &&
  typeof value[1] === "string";

/** A harness version: the position in `listRevisions` order. */
export const isVersionCursor = (value: unknown): value is number => typeof value === "number";

/**
 * The entry key of every change of an `applyChanges` batch, in order. A key that appears twice
 * is refused with `conflict:entry` before anything is written (the core never sends one, so this
 * guards adapters against misuse).
 */
export function batchEntryKeys(changes: readonly StorageChange[]): string[] {
  const keys = changes.map(({ revision }) =>
    entryKeyOf({
      scope: revision.scope,
      chatId: revision.chatId,
      kind: revision.kind,
      id: revision.entryId,
    }),
  );
  const duplicate = keys.find((key, index) => keys.indexOf(key) !== index);
  if (duplicate) {
    throw new HarnessConflictError({
      surface: "entry",
      message: `Entry ${duplicate} appears twice in one batch`,
      details: { entryKey: duplicate },
    });
  }
  return keys;
}

/**
 * The conflict the harness and every storage throw when an entry is not at the version a change
 * expects (`null`: absent). `name` is how the message names the entry (default: its key).
 */
export function entryVersionConflict(
  entryKey: string,
  expectedVersion: number | null,
  currentVersion: number | null,
  name = entryKey,
): HarnessConflictError {
  return new HarnessConflictError({
    surface: "entry",
    message:
      currentVersion === null
        ? `Entry ${name} no longer exists (you expected version ${String(expectedVersion)})`
        : expectedVersion === null
          ? `Entry ${name} already exists at version ${currentVersion}`
          : `Entry ${name} is at version ${currentVersion}, not ${expectedVersion}: reread it and retry`,
    details: { entryKey, expectedVersion, currentVersion },
  });
}

/** The conflict every storage throws when the harness is not at the version a batch expects. */
export function harnessVersionConflict(expected: number, actual: number): HarnessConflictError {
  return new HarnessConflictError({
    surface: "harness",
    message: `The harness changed: expected version ${expected}, found ${actual}`,
    details: { expectedHarnessVersion: expected, harnessVersion: actual },
  });
}
