import { PRIVATE_TO_SHARED } from "../commit-log";
import type { CheckoutDirState } from "../checkout-state";
import { printable } from "../paths";
import { findCopiedText, type CopiedText, type NamedContent } from "../private-copies";
import type { ChangeSet, FileContent } from "../types";
import { contentHash } from "../internal/content";
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
  heldForConfirmation(
    state: CheckoutDirState,
    changes: ChangeSet,
  ): Promise<HeldForConfirmation | null>;
  /** Which of `written` copy private text not in `already` nor in any shared dir as loaded. */
  findPrivateCopies(options: {
    written: readonly NamedContent[];
    already?: readonly FileContent[];
  }): Promise<CopiedText[]>;
}

/** Every base body of a dir (read on first use for a lazy dir), with its relative path. */
async function baseContents(state: CheckoutDirState): Promise<[string, FileContent][]> {
  const paths = [...state.base.entries()].map(([path]) => path);
  await state.base.prefetch(paths);
  const result: [string, FileContent][] = [];
  for (const path of paths) {
    const content = await state.base.read(path);
    if (content !== undefined) result.push([path, content]);
  }
  return result;
}

/**
 * What a shared dir already held that a write may repeat without asking: the whole base of a
 * dir loaded whole; for a lazy dir (a knowledge base of any size) only the base of the paths
 * written — text copied from another of its files is asked about (decision 0054).
 */
async function alreadyShared(
  state: CheckoutDirState,
  paths: readonly string[],
): Promise<FileContent[]> {
  if (!state.base.lazy) return (await baseContents(state)).map(([, content]) => content);
  const result: FileContent[] = [];
  for (const path of paths) {
    const content = await state.base.read(path);
    if (content !== undefined) result.push(content);
  }
  return result;
}

export function createPrivateGuard(options: {
  states: readonly CheckoutDirState[];
  extraBody: unknown;
}): PrivateGuard {
  const { states, extraBody } = options;
  const privateStates = states.filter((state) => state.dir.definition.audience === "private");
  const sharedStates = states.filter((state) => state.dir.definition.audience === "shared");
  const privateSources = async (): Promise<NamedContent[]> => {
    const sources: NamedContent[] = [];
    for (const state of privateStates) {
      const named = (path: string, content: FileContent) => ({
        path: `${state.dir.harnessDir}/${path}`,
        content,
      });
      for (const [path, content] of await baseContents(state)) sources.push(named(path, content));
      for (const [path, now] of state.overlay) {
        if (now !== null && state.base.hashOf(path) !== contentHash(now))
          sources.push(named(path, now));
      }
    }
    return sources;
  };
  return {
    async heldForConfirmation(state, changes) {
      if (state.dir.definition.audience !== "shared" || privateStates.length === 0) return null;
      const { harnessDir } = state.dir;
      const written = [...changes.created, ...changes.updated];
      const copies = findCopiedText({
        written: written.map((file) => ({
          path: `${harnessDir}/${file.path}`,
          content: file.content,
        })),
        sources: await privateSources(),
        already: await alreadyShared(
          state,
          written.map((file) => file.path),
        ),
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
    async findPrivateCopies({ written, already = [] }) {
      if (privateStates.length === 0) return [];
      const shared: FileContent[] = [];
      for (const state of sharedStates) {
        const paths = written
          .filter((file) => file.path.startsWith(`${state.dir.harnessDir}/`))
          .map((file) => file.path.slice(state.dir.harnessDir.length + 1));
        shared.push(...(await alreadyShared(state, paths)));
      }
      return findCopiedText({
        written,
        sources: await privateSources(),
        already: [...already, ...shared],
      });
    },
  };
}
