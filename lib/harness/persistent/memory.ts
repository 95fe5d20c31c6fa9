import type { Checkout } from "./checkout";
import { contentByteLength } from "./internal/content";
import { formatBytes } from "../format-bytes";
import { DEFAULT_DIR_LIMITS, resolveDirLimits } from "./paths";
import type { PersistentDir } from "./types";

/** The default mount point of `memory()`. */
export const DEFAULT_MEMORY_DIR = "/persistent/memory";

/** A built-in skill: instructions the runtime adds to the system prompt. */
export interface MemorySkill {
  name: string;
  description: string;
  content: string;
}

/** Bounds on the listing injected into every prompt. */
export interface MemoryListingLimits {
  /** Most files listed. Default 50. */
  maxEntries: number;
  /** Most characters of the whole listing. Default 4,000. */
  maxChars: number;
  /** Most characters of each file's first line. Default 120. */
  maxFirstLineChars: number;
}

export const DEFAULT_MEMORY_LISTING_LIMITS: Readonly<MemoryListingLimits> = Object.freeze({
  maxEntries: 50,
  maxChars: 4000,
  maxFirstLineChars: 120,
});

/** Options for `memory`: a normal persistent dir definition whose `harnessDir` defaults. */
export type MemoryOptions<TExtraBody, TSession> = Omit<
  PersistentDir<TExtraBody, TSession>,
  "harnessDir"
> & {
  /** Default `/persistent/memory`. */
  harnessDir?: string;
  listing?: Partial<MemoryListingLimits>;
};

/** A persistent dir used as the agent's memory: listed in every prompt, with a skill on keeping it. */
export interface MemoryDir<TExtraBody = unknown, TSession = unknown> extends PersistentDir<
  TExtraBody,
  TSession
> {
  readonly kind: "memory";
  /** The how-to-keep-memory instructions for the system prompt. */
  readonly skill: MemorySkill;
  /**
   * A bounded listing of the dir's files in this turn's checkout — path, size and first line,
   * newest first — ending with a truncation marker when entries were left out.
   */
  listingForPrompt(options: { checkout: Checkout }): Promise<string>;
}

/**
 * The built-in memory skill for a dir at `harnessDir` with the given limits. With
 * `limitsPerTurn` (the dir's limits are a resolver, decided per turn) the text names no numbers:
 * the skill is fixed when the dir is defined, and a refused write says which limit it hit.
 */
export function memorySkill(options: {
  harnessDir: string;
  maxFileBytes?: number;
  maxFiles?: number;
  limitsPerTurn?: boolean;
}): MemorySkill {
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_DIR_LIMITS.maxFileBytes;
  const maxFiles = options.maxFiles ?? DEFAULT_DIR_LIMITS.maxFiles;
  const limits = options.limitsPerTurn
    ? "- Stay within the directory's limits on its files and their size; a refused write says which limit it met."
    : `- Stay within limits: at most ${maxFiles} files and ${formatBytes(maxFileBytes)} per file.`;
  return {
    name: "memory",
    description: `How to keep long-term memory in ${options.harnessDir}.`,
    content: [
      `You have a memory directory at ${options.harnessDir}. Its files survive this conversation; the listing above shows what is there, newest first.`,
      "",
      "How to keep it:",
      "- One topic per file, with a descriptive path (e.g. `people/alex.md`, `projects/billing.md`). Start each file with a one-line summary: it is what the listing shows.",
      "- Before writing, check whether a file on the topic exists. Update it in place rather than appending a duplicate or creating a near-copy; remove what is no longer true.",
      "- Record why: with each fact, note its source or the reason it matters, and the date when time matters.",
      "- Never store secrets: no passwords, API keys, tokens, private keys or payment details, even if asked. Store only what the person would expect you to remember.",
      `${limits} Keep files short; merge or prune old notes instead of growing them.`,
      "- Memory is saved after your turn completes. If a write is refused, the directory is read-only for this turn: tell the person instead of retrying.",
    ].join("\n"),
  };
}

// First lines go into the prompt: keep them on one line and free of control characters.
function firstLineOf(content: string | Uint8Array, maxChars: number): string {
  if (typeof content !== "string") return "(binary)";
  // Scanned line by line, not split: every file's first line is read on every turn.
  let line = "";
  for (let start = 0; start < content.length;) {
    const end = content.indexOf("\n", start);
    const candidate = content.slice(start, end === -1 ? content.length : end);
    if (candidate.trim() !== "") {
      line = candidate;
      break;
    }
    if (end === -1) break;
    start = end + 1;
  }
  const clean = line.replace(/[\u0000-\u001f\u007f-\u009f]/g, " ").trim();
  if (clean === "") return "(empty)";
  return clean.length > maxChars ? `${clean.slice(0, maxChars - 1)}…` : clean;
}

/**
 * Creates a memory dir: a normal persistent dir (same load/store/commit/canWrite contract)
 * plus `listingForPrompt` and the built-in `skill`. Put it in the dirs list like any other.
 */
export function memory<TExtraBody = unknown, TSession = unknown>(
  options: MemoryOptions<TExtraBody, TSession>,
): MemoryDir<TExtraBody, TSession> {
  const { listing: listingOptions, harnessDir = DEFAULT_MEMORY_DIR, ...definition } = options;
  const listingLimits = { ...DEFAULT_MEMORY_LISTING_LIMITS, ...listingOptions };
  // Limits decided per turn are not known here: the skill then words them without numbers.
  const given = definition.limits;
  const perTurn = typeof given === "function";
  const limits =
    typeof given === "function" ? DEFAULT_DIR_LIMITS : resolveDirLimits({ limits: given });
  return {
    ...definition,
    harnessDir,
    kind: "memory",
    skill: memorySkill({
      harnessDir,
      maxFileBytes: limits.maxFileBytes,
      maxFiles: limits.maxFiles,
      limitsPerTurn: perTurn,
    }),
    async listingForPrompt({ checkout }) {
      const normalizedDir = harnessDir.normalize("NFC");
      const dirInfo = checkout.listDirs().find((dir) => dir.harnessDir === normalizedDir);
      if (!dirInfo) return `Memory (${harnessDir}) is not loaded for this turn.`;
      // The newest files only: a dir of thousands of notes is not listed or sorted per turn.
      const { files, total } = checkout.recentFiles({
        harnessDir: normalizedDir,
        limit: listingLimits.maxEntries,
      });
      const header = `Memory files in ${normalizedDir}${dirInfo.readOnly ? " (read-only this turn)" : ""}, newest first:`;
      if (files.length === 0) return `${header}\n(none yet)`;
      const lines = [header];
      let chars = header.length;
      let listed = 0;
      // The newest files' first lines: their bodies in one read (a lazy dir reads no others).
      await checkout.prefetch({ paths: files.map((file) => file.path) });
      for (const file of files) {
        if (listed >= listingLimits.maxEntries) break;
        const content = (await checkout.readFile({ path: file.path })) ?? "";
        const line = `- ${file.relativePath} (${formatBytes(contentByteLength(content))}): ${firstLineOf(content, listingLimits.maxFirstLineChars)}`;
        // Reserve room for the marker so the bound holds with it.
        if (chars + line.length + 1 > listingLimits.maxChars - 80) break;
        lines.push(line);
        chars += line.length + 1;
        listed += 1;
      }
      if (listed < total)
        lines.push(
          `… ${total - listed} more file(s) not listed (truncated); list ${normalizedDir} to see them.`,
        );
      return lines.join("\n");
    },
  };
}
