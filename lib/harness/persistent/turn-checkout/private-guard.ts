import { PRIVATE_TO_SHARED } from "../commit-log";
import type { CheckoutDirState } from "../checkout-state";
import { printable } from "../paths";
import { findCopiedText, type CopiedText, type NamedContent } from "../private-copies";
import type { ChangeSet, FileContent } from "../types";
import { ownerOf } from "./owner-of";

/** Why a change waits for the person, and whose record it is then. */
export interface HeldForConfirmation {
  error: { code: string; message: string };
  /** The private dir's owner, so nobody else sees the copied text. */
  owner: string | null;
}

/**
 * The turn's guard against private text reaching a shared dir without the person's word
 * (docs/decisions/0031): what the turn's `private` dirs held at load, and what the turn wrote
 * there, must not appear in a `shared` dir's change unless the shared dir's base held it.
 */
export interface PrivateGuard {
  /** Why `changes` to `state`'s dir wait for the person; `null` when nothing private is copied. */
  heldForConfirmation(state: CheckoutDirState, changes: ChangeSet): HeldForConfirmation | null;
  /** Which of `written` copy private text not in `already` nor in any shared dir as loaded. */
  findPrivateCopies(options: {
    written: readonly NamedContent[];
    already?: readonly FileContent[];
  }): CopiedText[];
}

export function createPrivateGuard(options: {
  states: readonly CheckoutDirState[];
  extraBody: unknown;
}): PrivateGuard {
  const { states, extraBody } = options;
  const privateStates = states.filter((state) => state.dir.definition.audience === "private");
  const privateSources = (): NamedContent[] => {
    const sources: NamedContent[] = [];
    for (const state of privateStates) {
      const named = (path: string, content: FileContent) => ({
        path: `${state.dir.harnessDir}/${path}`,
        content,
      });
      for (const [path, content] of state.base) sources.push(named(path, content));
      for (const path of state.touched) {
        const now = state.files.get(path);
        if (now !== undefined && now !== state.base.get(path)) sources.push(named(path, now));
      }
    }
    return sources;
  };
  return {
    heldForConfirmation(state, changes) {
      if (state.dir.definition.audience !== "shared" || privateStates.length === 0) return null;
      const { harnessDir } = state.dir;
      const copies = findCopiedText({
        written: [...changes.created, ...changes.updated].map((file) => ({
          path: `${harnessDir}/${file.path}`,
          content: file.content,
        })),
        sources: privateSources(),
        already: [...state.base.values()],
      });
      if (copies.length === 0) return null;
      const source = privateStates.find((candidate) =>
        copies[0]!.source.startsWith(`${candidate.dir.harnessDir}/`),
      );
      const listed = copies
        .slice(0, 5)
        .map((copy) => `${printable(copy.path)} holds text from ${printable(copy.source)}`);
      if (copies.length > 5) listed.push(`and ${copies.length - 5} more`);
      return {
        error: {
          code: PRIVATE_TO_SHARED,
          message: `Not saved yet: ${listed.join("; ")}. ${harnessDir} is shared with others, so this change waits for the person to confirm it.`,
        },
        owner: source ? ownerOf(source.dir.definition, extraBody) : null,
      };
    },
    findPrivateCopies({ written, already = [] }) {
      if (privateStates.length === 0) return [];
      return findCopiedText({
        written,
        sources: privateSources(),
        already: [
          ...already,
          ...states
            .filter((state) => state.dir.definition.audience === "shared")
            .flatMap((state) => [...state.base.values()]),
        ],
      });
    },
  };
}
