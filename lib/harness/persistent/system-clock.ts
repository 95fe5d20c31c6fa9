import type { Clock } from "./types";

/** The real clock; tests inject their own. */
export const systemClock: Clock = { now: () => new Date() };
