import { openTurnCheckout, type OpenTurnCheckoutOptions } from "../open-turn-checkout";
import type { Clock, PersistenceResult, StoreOptions, StoreResult } from "../types";

/** A seeded PRNG (mulberry32) returning floats in [0, 1): deterministic fault injection. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A clock that advances one second per reading, from `start`. */
export function steppingClock(start = Date.UTC(2025, 0, 1)): Clock {
  let now = start;
  return {
    now: () => {
      const date = new Date(now);
      now += 1000;
      return date;
    },
  };
}

/** Resolves after `ms` milliseconds (0 still yields to other tasks). */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * `store` failing at random, as a flaky database does: when `random()` < 0.15 it throws before
 * the write; < 0.3, after it (the write landed, the acknowledgement was lost). `faults` counts
 * both, and how often each created path was applied: a runtime that retries right applies each
 * once.
 */
export function flakyStore<TExtraBody, TSession>(
  store: (options: StoreOptions<TExtraBody, TSession>) => Promise<StoreResult>,
  random: () => number,
) {
  const faults = { before: 0, after: 0, applied: new Map<string, number>() };
  const flaky = async (options: StoreOptions<TExtraBody, TSession>): Promise<StoreResult> => {
    const roll = random();
    if (roll < 0.15) {
      faults.before += 1;
      throw new Error("injected: connection reset before the write");
    }
    const result = await store(options);
    if (result.status === "stored") {
      for (const file of options.changes.created)
        faults.applied.set(file.path, (faults.applied.get(file.path) ?? 0) + 1);
    }
    if (roll < 0.3) {
      faults.after += 1;
      throw new Error("injected: timeout after the write");
    }
    return result;
  };
  return { store: flaky, faults };
}

/**
 * The `shared.md` the concurrency tests' turns edit: one line per turn's slot (`edit(slot)`, or
 * `slot <n>: open` when it gives `null`), each followed by a unique spacer line so that edits of
 * different slots are separate diff3 hunks and merge cleanly.
 */
export function sharedFile(turns: number, edit: (slot: number) => string | null): string {
  return (
    Array.from(
      { length: turns },
      (_, slot) => `${edit(slot) ?? `slot ${slot}: open`}\n-- spacer ${slot} --`,
    ).join("\n") + "\n"
  );
}

/**
 * The concurrency tests' turns, all at once on `dirs` (session `chat-<turn % 3>`): each writes
 * its own slot line of `<harnessDir>/shared.md` (edits of different slots merge), and every fifth
 * turn rewrites `title.md`, one line all those turns change (real conflicts a person must
 * settle), between `jitter`s. Returns every turn's result and the titles written.
 */
export async function runContendedTurns<TExtraBody>(
  options: Pick<OpenTurnCheckoutOptions<TExtraBody, { chatId: string }>, "dirs" | "commitLog"> & {
    extraBody: TExtraBody;
    harnessDir: string;
    turns: number;
    jitter: () => Promise<unknown>;
  },
): Promise<{ results: PersistenceResult[]; titles: Set<string> }> {
  const { harnessDir, jitter } = options;
  const titles = new Set<string>();
  const results = await Promise.all(
    Array.from({ length: options.turns }, async (_, turnIndex) => {
      const turn = await openTurnCheckout({
        dirs: options.dirs,
        extraBody: options.extraBody,
        session: { chatId: `chat-${turnIndex % 3}` },
        commitLog: options.commitLog,
      });
      await jitter();
      const path = `${harnessDir}/shared.md`;
      const shared = (await turn.checkout.readFileOrThrow({ path })) as string;
      turn.checkout.writeFile({
        path,
        content: shared.replace(
          `slot ${turnIndex}: open\n`,
          `slot ${turnIndex}: edited by turn ${turnIndex}\n`,
        ),
      });
      if (turnIndex % 5 === 0) {
        const title = `title: by turn ${turnIndex}\n`;
        titles.add(title);
        turn.checkout.writeFile({ path: `${harnessDir}/title.md`, content: title });
      }
      await jitter();
      return turn.finishTurn({ status: "completed" });
    }),
  );
  return { results, titles };
}
