import { cairn } from "@/lib/cairn";

/** The default of `CAIRN_TURNS_PER_MINUTE`. */
export const DEFAULT_TURNS_PER_MINUTE = 30;

/** Buckets kept before full ones (people idle for a minute or more) are dropped. */
const PRUNE_ABOVE = 1000;

/** What `TurnRate.tryTake` answers. */
export type TurnRateDecision =
  | { ok: true }
  /** Not enough tokens: nothing was taken; try again after `retryAfterSeconds` (≥ 1). */
  | { ok: false; retryAfterSeconds: number };

/**
 * How many turns each person may start, as a token bucket per person in this process: a full
 * bucket holds `perMinute` tokens (a minute's worth, the burst) and refills at `perMinute` per
 * minute. A chat turn takes one token; so does each turn-shaped MCP call (decision 0029).
 */
export interface TurnRate {
  readonly perMinute: number;
  /** The most tokens one request may ask for (a full bucket). */
  readonly burst: number;
  /**
   * Takes `count` tokens (default 1) for `userId` when the bucket holds that many; otherwise
   * takes none and says when it will. A `count` above `burst` can never be served and is
   * refused with the time to fill the bucket; callers should refuse it as too large instead.
   */
  tryTake(userId: string, count?: number): TurnRateDecision;
  /** The tokens `userId` has now (fractional), for tests and diagnostics. */
  available(userId: string): number;
}

/** Creates a token-bucket `TurnRate`; `now` (milliseconds) is injectable for tests. */
export function createTurnRate(options: { perMinute: number; now?: () => number }): TurnRate {
  const perMinute = options.perMinute;
  const burst = perMinute;
  const perMs = perMinute / 60_000;
  const now = options.now ?? Date.now;
  const buckets = new Map<string, { tokens: number; at: number }>();

  const refilled = (userId: string, at: number) => {
    const bucket = buckets.get(userId);
    if (!bucket) return burst;
    return Math.min(burst, bucket.tokens + Math.max(0, at - bucket.at) * perMs);
  };

  const prune = (at: number) => {
    if (buckets.size <= PRUNE_ABOVE) return;
    for (const userId of [...buckets.keys()]) {
      if (refilled(userId, at) >= burst) buckets.delete(userId);
    }
  };

  return {
    perMinute,
    burst,
    tryTake(userId, count = 1) {
      const at = now();
      const tokens = refilled(userId, at);
      if (tokens >= count) {
        buckets.set(userId, { tokens: tokens - count, at });
        prune(at);
        return { ok: true };
      }
      const missing = Math.min(count, burst) - tokens;
      return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(missing / perMs / 1000)) };
    },
    available: (userId) => refilled(userId, now()),
  };
}

/**
 * The process's turn rate (`cairn().turnRate`, `CAIRN_TURNS_PER_MINUTE`). Per process: with
 * several instances, each counts its own turns.
 */
export function userTurnRate(): TurnRate {
  return cairn().turnRate;
}

/** The person-facing refusal for a turn over the rate. */
export function turnRateMessage(rate: Pick<TurnRate, "perMinute">, retryAfterSeconds: number) {
  return `You are starting turns faster than ${rate.perMinute} a minute. Try again in ${retryAfterSeconds} s.`;
}
