import type { CheckoutDirState } from "../checkout-state";
import { copyContent } from "../internal/content";
import { changedContent } from "../internal/merge";
import type { ChangeSet, FileContent } from "../types";

/** The content at the turn's base of every path a change set touches (`null`: absent). */
export function baseOf(
  state: CheckoutDirState,
  changes: ChangeSet,
): Record<string, FileContent | null> {
  const base = Object.create(null) as Record<string, FileContent | null>;
  for (const path of changedContent(changes).keys())
    base[path] = copyContent(state.base.get(path) ?? null);
  return base;
}
