import type { Checkout, CheckoutDirInfo } from "../../persistent";
import { formatBytes } from "../../persistent";

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

/** A text's lowercase words and numbers. */
function tokensOf(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** What of the message a path may share: its words of three letters or more, and its numbers. */
function wordsOf(text: string): string[] {
  return [...new Set(tokensOf(text).filter((word) => word.length >= 3 || /^\p{N}+$/u.test(word)))];
}

/** How much a path shares with the message: a whole word counts twice, a word inside one once. */
function relevanceOf(path: string, words: readonly string[]): number {
  const tokens = new Set(tokensOf(path));
  const lower = path.toLowerCase();
  let score = 0;
  for (const word of words) {
    if (tokens.has(word)) score += 2;
    else if (word.length >= 3 && lower.includes(word)) score += 1;
  }
  return score;
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
  const access = dir.readOnly ? "read-only this turn" : "writable";
  const files = checkout.listFiles({ path: dir.harnessDir });
  if (files.length === 0) return `- ${dir.harnessDir}: ${access} — empty`;

  const folders = new Set<string>();
  const topFolders = new Map<string, number>();
  const topFiles: string[] = [];
  for (const file of files) {
    const segments = file.relativePath.split("/");
    for (let depth = 1; depth < segments.length; depth += 1) {
      folders.add(segments.slice(0, depth).join("/"));
    }
    if (segments.length === 1) topFiles.push(file.relativePath);
    else topFolders.set(segments[0]!, (topFolders.get(segments[0]!) ?? 0) + 1);
  }
  const bytes = files.reduce((sum, file) => sum + file.bytes, 0);
  const lines = [
    `- ${dir.harnessDir}: ${access} — ${count(files.length, "file", "files")}${folders.size > 0 ? ` in ${count(folders.size, "folder", "folders")}` : ""}, ${formatBytes(bytes)}`,
  ];

  const top = [
    ...[...topFolders]
      .sort(([a, countA], [b, countB]) => countB - countA || (a < b ? -1 : 1))
      .map(([name, inside]) => `${name}/ (${count(inside, "file", "files")})`),
    ...topFiles,
  ];
  const topTotal = top.length;
  lines.push(
    `  top level: ${joinWithin(top.slice(0, limits.maxTopLevel), topTotal, limits.maxListChars)}`,
  );

  const words = wordsOf(options.query);
  if (words.length > 0) {
    const scored: { path: string; score: number }[] = [];
    for (const file of files) {
      const score = relevanceOf(file.relativePath, words);
      if (score > 0) scored.push({ path: file.relativePath, score });
    }
    scored.sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : 1));
    const relevant = scored.slice(0, limits.maxRelevant).map((entry) => entry.path);
    if (relevant.length > 0) {
      lines.push(
        `  most relevant to this message: ${joinWithin(relevant, relevant.length, limits.maxListChars)}`,
      );
    }
  }
  return lines.join("\n");
}
