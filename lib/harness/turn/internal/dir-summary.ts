import type { Checkout, CheckoutDirInfo, DirOverview } from "../../persistent";
import { formatBytes, tokensOf } from "../../persistent";

/** Bounds of a dir's summary in the prompt. */
export const DIR_SUMMARY_LIMITS = Object.freeze({
  /** Top-level entries named. */
  maxTopLevel: 12,
  /** Files named as most relevant to the message. */
  maxRelevant: 8,
  /** Characters of each of the two lists. */
  maxListChars: 600,
});

const count = (value: number, one: string, many: string) =>
  `${value.toLocaleString("en-US")} ${value === 1 ? one : many}`;

/** What of the message a path may share: its words of three letters or more, and its numbers. */
function wordsOf(text: string): string[] {
  return [...new Set(tokensOf(text).filter((word) => word.length >= 3 || /^\p{N}+$/u.test(word)))];
}

/**
 * The paths that share the most with the message, from the dir's word index: a whole word of a
 * path counts twice, a word inside one of its words (`travel` in `travelpolicy`) once. Looks at
 * the words of the paths, not at every path, so it costs the same in a dir of any size.
 */
function mostRelevant(overview: DirOverview, words: readonly string[], max: number): string[] {
  const scores = new Map<string, number>();
  const add = (paths: readonly string[], by: number) => {
    for (const path of paths) scores.set(path, (scores.get(path) ?? 0) + by);
  };
  for (const word of words) {
    const whole = overview.words.get(word);
    if (whole) add(whole, 2);
    if (word.length < 3 || /^\p{N}+$/u.test(word)) continue;
    for (const other of overview.textWords) {
      if (other !== word && other.includes(word)) add(overview.words.get(other)!, 1);
    }
  }
  return [...scores]
    .sort(([a, scoreA], [b, scoreB]) => scoreB - scoreA || (a < b ? -1 : 1))
    .slice(0, max)
    .map(([path]) => path);
}

/** Names joined by ", " within `maxChars`, with "and N more" for what did not fit. */
function joinWithin(names: readonly string[], total: number, maxChars: number): string {
  const kept: string[] = [];
  let chars = 0;
  for (const name of names) {
    if (chars + name.length + 2 > maxChars) break;
    kept.push(name);
    chars += name.length + 2;
  }
  const more = total - kept.length;
  return more > 0
    ? `${kept.join(", ")}, and ${more.toLocaleString("en-US")} more`
    : kept.join(", ");
}

/**
 * What the prompt says of one dir: its access, how many files in how many folders and their
 * size, its top level (folders with their file counts first), and the files whose paths share
 * the most words with the user's message — bounded whatever the dir holds, never the whole tree.
 *
 * @example
 * - /persistent/company: writable — 18,412 files in 37 folders, 512.0 MiB
 *   top level: handbook/ (1,204 files), policies/ (88 files), README.md
 *   most relevant to this message: handbook/leave.md, policies/travel.md
 */
export function summarizeDirForPrompt(options: {
  checkout: Checkout;
  dir: CheckoutDirInfo;
  query: string;
  limits?: Partial<typeof DIR_SUMMARY_LIMITS>;
}): string {
  const { checkout, dir } = options;
  const limits = { ...DIR_SUMMARY_LIMITS, ...options.limits };
  const access = dir.readOnly
    ? "read-only this turn"
    : dir.suggestOnly
      ? "changes are suggested for review (not applied until an editor approves)"
      : "writable";
  const overview = checkout.overview({ harnessDir: dir.harnessDir });
  if (overview.fileCount === 0) return `- ${dir.harnessDir}: ${access} — empty`;
  const { topFolders, topFiles } = overview;
  const lines = [
    `- ${dir.harnessDir}: ${access} — ${count(overview.fileCount, "file", "files")}${overview.folderCount > 0 ? ` in ${count(overview.folderCount, "folder", "folders")}` : ""}, ${formatBytes(overview.bytes)}`,
  ];

  const top = [
    ...[...topFolders]
      .sort(([a, countA], [b, countB]) => countB - countA || (a < b ? -1 : 1))
      .map(([name, inside]) => `${name}/ (${count(inside, "file", "files")})`),
    ...[...topFiles].sort(),
  ];
  const topTotal = top.length;
  lines.push(
    `  top level: ${joinWithin(top.slice(0, limits.maxTopLevel), topTotal, limits.maxListChars)}`,
  );

  const words = wordsOf(options.query);
  if (words.length > 0) {
    const relevant = mostRelevant(overview, words, limits.maxRelevant);
    if (relevant.length > 0) {
      lines.push(
        `  most relevant to this message: ${joinWithin(relevant, relevant.length, limits.maxListChars)}`,
      );
    }
  }
  return lines.join("\n");
}
