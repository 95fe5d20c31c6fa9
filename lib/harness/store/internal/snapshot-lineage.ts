/**
 * Which snapshot list a caught-up snapshot was made from, so the prompt view can reuse what
 * it derived for that one even when other chats' snapshots were rendered in between. Held
 * weakly both ways: remembering the link keeps neither list alive.
 */
import type { Entry } from "../types";

const previousLists = new WeakMap<readonly Entry[], WeakRef<readonly Entry[]>>();

export function recordPreviousList(next: readonly Entry[], previous: readonly Entry[]): void {
  previousLists.set(next, new WeakRef(previous));
}

export function previousListOf(list: readonly Entry[]): readonly Entry[] | undefined {
  return previousLists.get(list)?.deref();
}
