import { diffLines } from "diff";

export interface DiffCell {
  line: number;
  text: string;
  kind: "same" | "removed" | "added";
}

/** One row of a side-by-side diff; a missing side is an empty cell. */
export interface DiffRow {
  left: DiffCell | null;
  right: DiffCell | null;
}

/**
 * Bounds on the work one diff may do. Myers' algorithm costs O((N + M) · D) for N + M lines and
 * D changed lines, so bounding both the input size and D bounds the time a page render spends.
 */
export interface DiffLimits {
  /** Combined characters of both texts above which no diff is attempted. */
  maxChars: number;
  /** Combined lines of both texts above which no diff is attempted. */
  maxLines: number;
  /** Edit distance (changed lines) above which the diff gives up (`diff`'s `maxEditLength`). */
  maxEditLength: number;
}

/**
 * Defaults: 256 KiB and 10,000 lines of text in all, and 1,000 changed lines. The worst case
 * inside them is measured by `npm run bench -- diff` (see bench/README.md).
 */
export const DEFAULT_DIFF_LIMITS: DiffLimits = {
  maxChars: 256 * 1024,
  maxLines: 10_000,
  maxEditLength: 1000,
};

function lineCount(text: string): number {
  let count = 1;
  for (let index = text.indexOf("\n"); index !== -1; index = text.indexOf("\n", index + 1)) {
    count++;
  }
  return count;
}

/**
 * The result of `sideBySideDiff`: aligned rows, or the reason no diff was made (the caller shows
 * both versions whole instead).
 */
export type SideBySideDiff =
  | { kind: "rows"; rows: DiffRow[] }
  | { kind: "too-different"; reason: "too-large" | "too-many-changes" };

/**
 * Lines of `before` and `after` aligned in two columns: unchanged lines side by side, and each
 * removed block paired row by row with the added block that replaces it. Gives up with
 * `too-different` when the texts exceed `limits` (see `DEFAULT_DIFF_LIMITS`), so a user who can
 * write two versions cannot make a page render spend minutes of CPU.
 */
export function sideBySideDiff(
  before: string,
  after: string,
  limits: DiffLimits = DEFAULT_DIFF_LIMITS,
): SideBySideDiff {
  if (
    before.length + after.length > limits.maxChars ||
    lineCount(before) + lineCount(after) > limits.maxLines
  ) {
    return { kind: "too-different", reason: "too-large" };
  }
  // A missing final newline is not a change worth a row of its own here.
  const withNewline = (text: string) => (text === "" || text.endsWith("\n") ? text : `${text}\n`);
  const parts = diffLines(withNewline(before), withNewline(after), {
    maxEditLength: limits.maxEditLength,
  });
  if (!parts) return { kind: "too-different", reason: "too-many-changes" };

  const rows: DiffRow[] = [];
  let leftLine = 1;
  let rightLine = 1;
  let pendingRemoved: DiffCell[] = [];
  const flushRemoved = (added: DiffCell[]) => {
    const count = Math.max(pendingRemoved.length, added.length);
    for (let index = 0; index < count; index++) {
      rows.push({ left: pendingRemoved[index] ?? null, right: added[index] ?? null });
    }
    pendingRemoved = [];
  };
  for (const part of parts) {
    const lines = part.value.replace(/\n$/, "").split("\n");
    if (part.removed) {
      pendingRemoved.push(
        ...lines.map((text) => ({ line: leftLine++, text, kind: "removed" as const })),
      );
    } else if (part.added) {
      flushRemoved(lines.map((text) => ({ line: rightLine++, text, kind: "added" as const })));
    } else {
      flushRemoved([]);
      for (const text of lines) {
        rows.push({
          left: { line: leftLine++, text, kind: "same" },
          right: { line: rightLine++, text, kind: "same" },
        });
      }
    }
  }
  flushRemoved([]);
  return { kind: "rows", rows };
}
