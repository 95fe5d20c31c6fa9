import type { CheckoutDirState } from "../checkout-state";
import { changedContent } from "../internal/merge";
import type { ChangeSet, FileContent } from "../types";

/**
 * The content at the turn's base of every path a change set touches (`null`: absent). A lazy
 * dir reads the bodies of the updated and deleted paths (kept since the turn changed them, or
 * from the body cache). A body that cannot be read now (the database is away and the turn
 * changed the file without ever reading it) is given as `null`: the change is still kept and
 * stored, and should the dir have moved meanwhile, that path is a conflict for the person
 * rather than a merge — nothing is lost.
 */
export async function baseOf(
  state: CheckoutDirState,
  changes: ChangeSet,
): Promise<Record<string, FileContent | null>> {
  const base = Object.create(null) as Record<string, FileContent | null>;
  const paths = [...changedContent(changes).keys()];
  await state.base.prefetch(paths.filter((path) => state.base.has(path))).catch(() => undefined);
  for (const path of paths) {
    base[path] = await state.base.read(path).then(
      (content) => content ?? null,
      () => null,
    );
  }
  return base;
}
