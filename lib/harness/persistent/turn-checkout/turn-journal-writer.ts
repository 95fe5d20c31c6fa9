import { describeError } from "../../errors";
import { diffDirState, type CheckoutDirState } from "../checkout-state";
import { JournalWriteError, type CommitSpool, type TurnJournal } from "../durability";
import { contentHash } from "../internal/content";
import type { Clock } from "../types";
import { baseOf } from "./base-of";
import { ownerOf } from "./owner-of";
import type { PrivateGuard } from "./private-guard";

/** A turn's journal: its change sets written down as they happen (ADR 0013). */
export interface TurnJournalWriter {
  /**
   * Journals every writable `after-turn` dir whose change set moved since the last checkpoint;
   * to the spool when the journal refuses. Calls are serialised. Throws `failed:journal` when
   * neither took it. A no-op without a journal or turn id.
   */
  checkpoint(abortSignal?: AbortSignal): Promise<void>;
  /** Resolves once every checkpoint started so far is done. */
  settled(): Promise<void>;
  /** Forgets the turn's journal (through the spool when the journal does not answer). */
  discard(): Promise<void>;
}

export function createTurnJournalWriter(options: {
  states: readonly CheckoutDirState[];
  journal?: TurnJournal;
  spool?: CommitSpool;
  turnId?: string;
  extraBody: unknown;
  session: unknown;
  clock: Clock;
  guard: PrivateGuard;
}): TurnJournalWriter {
  const fingerprints = new Map<string, string>();
  let revision = 0;
  let chain: Promise<void> = Promise.resolve();
  const target =
    options.journal !== undefined && options.turnId !== undefined
      ? { journal: options.journal, turnId: options.turnId }
      : null;

  const write = async (abortSignal: AbortSignal | undefined): Promise<void> => {
    if (!target) return;
    for (const state of options.states) {
      if (state.readOnly || state.dir.mode !== "after-turn") continue;
      const changes = diffDirState(state);
      const fingerprint = JSON.stringify([
        ...changes.created.map((file) => ["c", file.path, contentHash(file.content)]),
        ...changes.updated.map((file) => ["u", file.path, contentHash(file.content)]),
        ...changes.deleted.map((path) => ["d", path]),
      ]);
      const previous = fingerprints.get(state.dir.harnessDir) ?? "[]";
      if (fingerprint === previous) continue;
      // A journaled copy of private text is the person's alone, as its commit record would be.
      const held = await options.guard.heldForConfirmation(state, changes);
      const entry = {
        turnId: target.turnId,
        harnessDir: state.dir.harnessDir,
        mode: state.dir.mode,
        owner: held ? held.owner : ownerOf(state.dir.definition, options.extraBody),
        changes,
        baseCursor: state.cursor,
        base: await baseOf(state, changes),
        extraBody: options.extraBody,
        session: options.session,
        revision: ++revision,
        at: options.clock.now(),
      };
      try {
        await target.journal.write({ entry, abortSignal });
      } catch (journalError) {
        try {
          if (!options.spool) throw journalError;
          await options.spool.put({ item: { kind: "journal", entry } });
        } catch (spoolError) {
          throw new JournalWriteError({
            message: `The change to ${state.dir.harnessDir} could not be saved durably (journal: ${describeError(journalError).message}; spool: ${describeError(spoolError).message}).`,
            cause: spoolError,
          });
        }
      }
      fingerprints.set(state.dir.harnessDir, fingerprint);
    }
  };

  return {
    checkpoint(abortSignal) {
      const run = chain.then(() => write(abortSignal));
      chain = run.catch(() => undefined);
      return run;
    },
    settled: () => chain,
    async discard() {
      if (!target) return;
      await chain;
      try {
        await target.journal.discard({ turnId: target.turnId });
      } catch {
        await options.spool
          ?.put({ item: { kind: "journal-discard", turnId: target.turnId } })
          .catch(() => undefined);
      }
    },
  };
}
