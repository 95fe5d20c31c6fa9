import { ENTRY_LIMITS, isReservedEntryId } from "./entry-contracts";

/**
 * Turns a title into an entry id slug: ASCII-folded, lowercase, runs of anything outside
 * `[a-z0-9_]` become one `-`, no leading/trailing `-`/`_`, at most 80 characters. Returns
 * `fallback` when nothing usable is left (e.g. a title in a non-Latin script).
 *
 * @example slugifyTitle({ title: "Project-X: build steps!" }) === "project-x-build-steps"
 */
export function slugifyTitle(options: {
  title: string;
  fallback?: string;
  maxLength?: number;
}): string {
  const maxLength = options.maxLength ?? ENTRY_LIMITS.idLength;
  const slug = options.title
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, "-")
    .replace(/^[-_]+/, "")
    .slice(0, maxLength)
    .replace(/[-_]+$/, "");
  return slug.length > 0 ? slug : (options.fallback ?? "entry");
}

/**
 * The `n`-th candidate id for a base slug: `base` for n = 1, else `base-n`, with `base`
 * shortened so the whole id stays within 80 characters. A reserved base is never produced
 * as-is: its first candidate is `base-2`.
 */
export function slugCandidate(base: string, n: number): string {
  const k = isReservedEntryId(base) ? n + 1 : n;
  if (k <= 1) return base;
  const suffix = `-${k}`;
  const head = base.slice(0, ENTRY_LIMITS.idLength - suffix.length).replace(/[-_]+$/, "");
  return `${head || "entry"}${suffix}`;
}
