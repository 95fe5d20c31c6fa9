// Pure arithmetic of answer outcomes: Wilson intervals, harness-version ranges between
// refinements, and the supported / not supported judgement. No I/O, so it is tested by hand-
// computed values (stats.test.ts) and used by the app's queries and pages alike.

/** z for a two-sided 95% interval. */
const Z95 = 1.959963984540054;

/** A share with its 95% Wilson score interval; `share`, `low` and `high` are null when `total` is 0. */
export interface RatedShare {
  /** Rated answers. */
  total: number;
  /** Of them rated good. */
  good: number;
  share: number | null;
  low: number | null;
  high: number | null;
}

/**
 * The 95% Wilson score interval of `good` successes in `total` trials (decision 0041): unlike the
 * normal approximation it stays inside [0, 1] and is honest for small counts and for 0 or 100%.
 */
export function wilsonInterval(good: number, total: number, z = Z95): RatedShare {
  if (!Number.isInteger(good) || !Number.isInteger(total) || good < 0 || total < 0 || good > total)
    throw new RangeError(`wilsonInterval: need 0 ≤ good ≤ total, got ${good} of ${total}`);
  if (total === 0) return { total, good, share: null, low: null, high: null };
  const p = good / total;
  const z2 = z * z;
  const denominator = 1 + z2 / total;
  const center = (p + z2 / (2 * total)) / denominator;
  const margin = (z * Math.sqrt((p * (1 - p)) / total + z2 / (4 * total * total))) / denominator;
  return {
    total,
    good,
    share: p,
    // Exact at the ends (the formula gives 0 and 1 there, up to rounding).
    low: good === 0 ? 0 : Math.max(0, center - margin),
    high: good === total ? 1 : Math.min(1, center + margin),
  };
}

/** One rated answer, as the aggregation needs it. */
export interface OutcomePoint {
  harnessVersion: number | null;
  rating: "good" | "bad";
  /** When the rated turn started (ISO). */
  turnAt: string;
}

/** A refinement that changed the harness: a boundary between version ranges. */
export interface RefinementBoundary {
  id: string;
  /** The harness version it left behind; answers of this version or later are "after" it. */
  harnessVersionAfter: number;
  createdAt: string;
}

/** The answers produced between two refinements. */
export interface VersionRange extends RatedShare {
  /** First harness version of the range (0 before the first refinement). */
  fromVersion: number;
  /** First version of the next range (null: open, the current one). */
  toVersion: number | null;
  /** The refinement that opened the range (null for the first). */
  startedBy: string | null;
  /** When the range's first and last rated answers were produced (null: none rated). */
  firstTurnAt: string | null;
  lastTurnAt: string | null;
}

/**
 * Splits rated answers into ranges of harness versions: a new range starts at each refinement's
 * `harnessVersionAfter`. An answer belongs to the range whose versions contain the version of the
 * harness its prompt was built from. Answers without a version (no harness in the turn) are left out.
 */
export function versionRanges(
  outcomes: readonly OutcomePoint[],
  refinements: readonly RefinementBoundary[],
): VersionRange[] {
  const bounds = [...new Map(refinements.map((item) => [item.harnessVersionAfter, item])).values()]
    .sort((a, b) => a.harnessVersionAfter - b.harnessVersionAfter)
    .filter((item) => item.harnessVersionAfter > 0);
  const starts = [{ version: 0, id: null as string | null }].concat(
    bounds.map((item) => ({ version: item.harnessVersionAfter, id: item.id })),
  );
  return starts.map((start, index) => {
    const next = starts[index + 1]?.version ?? null;
    const inside = outcomes.filter(
      (outcome) =>
        outcome.harnessVersion !== null &&
        outcome.harnessVersion >= start.version &&
        (next === null || outcome.harnessVersion < next),
    );
    const times = inside.map((outcome) => outcome.turnAt).sort();
    return {
      ...wilsonInterval(
        inside.filter((outcome) => outcome.rating === "good").length,
        inside.length,
      ),
      fromVersion: start.version,
      toVersion: next,
      startedBy: start.id,
      firstTurnAt: times[0] ?? null,
      lastTurnAt: times.at(-1) ?? null,
    };
  });
}

/** A refinement's rated answers just before it and just after it (until the next refinement). */
export interface BeforeAfter {
  before: RatedShare;
  after: RatedShare;
}

/** The before and after of refinement `id` among `refinements` (all boundaries of its scope). */
export function beforeAfter(
  id: string,
  outcomes: readonly OutcomePoint[],
  refinements: readonly RefinementBoundary[],
): BeforeAfter | null {
  const ranges = versionRanges(outcomes, refinements);
  const index = ranges.findIndex((range) => range.startedBy === id);
  if (index <= 0) return null;
  const pick = ({ total, good, share, low, high }: RatedShare): RatedShare => ({
    total,
    good,
    share,
    low,
    high,
  });
  return { before: pick(ranges[index - 1]!), after: pick(ranges[index]!) };
}

/** The automatic verdict on a refinement's expected outcome, once enough answers followed it. */
export interface Judgement {
  verdict: "supported" | "not_supported";
  /** The post-refinement interval lies wholly below the pre-refinement one (the guard rail's flag). */
  regressed: boolean;
  before: RatedShare;
  after: RatedShare;
}

/** The share a refinement is measured against when nothing was rated before it. */
export const BASELINE_WITHOUT_RATINGS = 0.5;

/**
 * Judges a refinement once `judgeAfter` rated answers follow it (null before that), per decision
 * 0041: **supported** when the lower end of the after-interval reaches the share good before it
 * (or 50% when nothing was rated before) — the improvement is more than the noise of the after
 * sample; otherwise **not supported**. **Regressed** when both sides have ratings and the
 * after-interval's upper end is below the before-interval's lower end.
 */
export function judgeRefinement(counts: BeforeAfter, judgeAfter: number): Judgement | null {
  const { before, after } = counts;
  if (after.total < Math.max(1, judgeAfter) || after.low === null) return null;
  const baseline = before.share ?? BASELINE_WITHOUT_RATINGS;
  const regressed =
    before.low !== null && after.high !== null && before.total > 0 && after.high < before.low;
  return {
    verdict: after.low >= baseline ? "supported" : "not_supported",
    regressed,
    before,
    after,
  };
}
