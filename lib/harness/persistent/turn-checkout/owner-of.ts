import type { PersistentDir } from "../types";

/** The dir's owner key for this turn, or `null` when it has none or cannot say. */
export function ownerOf<TExtraBody>(
  dir: PersistentDir<TExtraBody, unknown>,
  extraBody: TExtraBody,
): string | null {
  if (!dir.owner) return null;
  try {
    const value = dir.owner({ extraBody });
    return typeof value === "string" ? value : null;
  } catch {
    return null;
  }
}
