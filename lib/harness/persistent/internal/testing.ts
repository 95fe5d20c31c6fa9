import type { Clock } from "../types";

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
