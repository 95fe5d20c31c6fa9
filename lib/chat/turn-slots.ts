import { cairn } from "@/lib/cairn";
import { turnRateMessage, type TurnRate } from "./turn-rate";

/** The default of `CAIRN_MAX_TURNS_PER_USER`. */
export const DEFAULT_MAX_TURNS_PER_USER = 2;

/** A held place for one running turn; `release` is idempotent. */
export interface TurnSlot {
  release(): void;
}

/** Counts the turns each user has running in this process and refuses more than `maxPerUser`. */
export interface TurnSlots {
  readonly maxPerUser: number;
  /** A slot for `userId`, or `null` when they already have `maxPerUser` turns running. */
  tryAcquire(userId: string): TurnSlot | null;
  /** How many turns `userId` has running. */
  running(userId: string): number;
}

export function createTurnSlots(options: { maxPerUser: number }): TurnSlots {
  const counts = new Map<string, number>();
  return {
    maxPerUser: options.maxPerUser,
    tryAcquire(userId) {
      const current = counts.get(userId) ?? 0;
      if (current >= options.maxPerUser) return null;
      counts.set(userId, current + 1);
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          const left = (counts.get(userId) ?? 1) - 1;
          if (left <= 0) counts.delete(userId);
          else counts.set(userId, left);
        },
      };
    },
    running: (userId) => counts.get(userId) ?? 0,
  };
}

/**
 * The process's turn slots (`cairn().turnSlots`, `CAIRN_MAX_TURNS_PER_USER`). Per process: with
 * several instances, each counts its own turns.
 */
export function userTurnSlots(): TurnSlots {
  return cairn().turnSlots;
}

/**
 * What `withTurnSlot` answers when the user already has their limit of turns running, or (with
 * a `rate`) has started turns faster than it allows.
 */
export interface TooManyTurns {
  status: "too_many_turns";
  /** For the person: how many turns may run and what to do. */
  message: string;
  /** Over the rate: seconds until a turn may start (the `Retry-After`). */
  retryAfterSeconds?: number;
}

/**
 * Runs `start` only when `userId` has a free slot (and, with `rate`, a token: taken only once the
 * slot is held, so a refused turn costs none), and holds the slot until the started turn's
 * `slotFreed` (else `finished`) settles (a turn that did not start releases it at once; so does
 * a throw). A chat turn frees its slot when its model work ends: recording it may wait out a
 * database outage, and the person must not be locked out meanwhile.
 */
export async function withTurnSlot<
  TResult extends { status: string; finished?: Promise<unknown>; slotFreed?: Promise<unknown> },
>(options: {
  userId: string;
  start: () => Promise<TResult>;
  slots?: TurnSlots;
  /** Also limit how fast turns start (`userTurnRate()` in the app); absent: no rate. */
  rate?: TurnRate;
}): Promise<TResult | TooManyTurns> {
  const slots = options.slots ?? userTurnSlots();
  const slot = slots.tryAcquire(options.userId);
  if (!slot) {
    const limit = slots.maxPerUser;
    return {
      status: "too_many_turns",
      message: `You already have ${limit} turn${limit === 1 ? "" : "s"} running. Wait for one to finish or stop it, then send again.`,
    };
  }
  if (options.rate) {
    const taken = options.rate.tryTake(options.userId);
    if (!taken.ok) {
      slot.release();
      return {
        status: "too_many_turns",
        message: turnRateMessage(options.rate, taken.retryAfterSeconds),
        retryAfterSeconds: taken.retryAfterSeconds,
      };
    }
  }
  let result: TResult;
  try {
    result = await options.start();
  } catch (error) {
    slot.release();
    throw error;
  }
  const freed = result.slotFreed ?? result.finished;
  if (freed) void freed.finally(() => slot.release()).catch(() => {});
  else slot.release();
  return result;
}
