import type { CheckoutDirState } from "../checkout-state";
import { changedContent } from "../internal/merge";
import type { ChangeSet, FileContent } from "../types";

/**
 * The content at the turn's base of every path a change set touches (`null`: absent). A lazy
 * dir reads the bodies of the updated and deleted paths (from the body cache when it can).
 */
export async function baseOf(
  state: CheckoutDirState,
  changes: ChangeSet,
): Promise<Record<string, FileContent | null>> {
  const base = Object.create(null) as Record<string, FileContent | null>;
  const paths = [...changedContent(changes).keys()];
  await state.base.prefetch(paths.filter((path) => state.base.has(path)));
  for (const path of paths) base[path] = (await state.base.read(path)) ?? null;
  return base;
}
