import type { Checkout, MemoryDir, PersistentDir } from "../persistent";
import {
  formatHarnessStateWithTokens,
  type HarnessSnapshot,
  type RecentRefinement,
} from "../store";
import { summarizeDirForPrompt } from "./internal/dir-summary";
import { countTokensRemembered } from "./internal/token-count";
import type { InstructionsSection } from "./types";
import { UNTRUSTED_DATA_RULE } from "./untrusted-data";

function isMemoryDir(dir: PersistentDir<never, never>): dir is MemoryDir<never, never> {
  return (
    (dir as { kind?: unknown }).kind === "memory" &&
    typeof (dir as { listingForPrompt?: unknown }).listingForPrompt === "function"
  );
}

/**
 * How to use the tools the turn has: the dir tools (`memory`, `bash`) with a checkout, the
 * harness tools with a store, and the untrusted-data rule whenever there is any tool (a host's
 * own tools included). A turn with no tools at all (Cairn's temporary chats) gets no section:
 * the prompt speaks of no tool it lacks.
 */
function toolsSection(options: {
  dirTools: boolean;
  harnessTools: boolean;
  otherTools: boolean;
}): string {
  const knowledge = options.dirTools || options.harnessTools;
  if (!knowledge && !options.otherTools) return "";
  return [
    ...(knowledge ? ["## Tools for your knowledge"] : []),
    ...(options.dirTools
      ? [
          "- `memory`: view and edit files under /persistent (your memory and shared knowledge). Use it to remember facts about the person across conversations.",
          "- `bash`: a sandboxed shell over the same files (ls, cat, grep, sed, …).",
        ]
      : []),
    ...(options.harnessTools
      ? [
          "- `create_entry` / `update_entry` / `delete_entry`: keep prompt notes, memories, skills and sub-agents in the harness (local to this chat by default).",
          "- `load_skill`: read a skill's full instructions. `delegate`: hand a task to a sub-agent.",
        ]
      : []),
    ...(knowledge
      ? [
          "Tool errors (a read-only directory, a forbidden global write, a stale version) are not fatal: read them and adjust.",
        ]
      : []),
    UNTRUSTED_DATA_RULE,
  ].join("\n");
}

/**
 * Assembles the system prompt: base prompt, harness view (within its token budget, ranked for
 * the user's message), the persistent dirs with their access this turn, memory listings and the
 * memory skill, and how to use the tools the turn has. Returns the text and each section's token
 * count.
 */
export async function buildInstructions(options: {
  base: string;
  snapshot: HarnessSnapshot | null;
  tokenBudget: number;
  query: string;
  recentRefinements: readonly RecentRefinement[];
  dirs: readonly PersistentDir<never, never>[];
  checkout: Checkout | null;
  /** Whether the turn has tools besides the dir and harness tools (the host's). Default true. */
  otherTools?: boolean;
}): Promise<{ text: string; sections: InstructionsSection[] }> {
  const parts: { section: InstructionsSection; text: string }[] = [];
  const add = (
    name: InstructionsSection["name"],
    title: string,
    text: string,
    details?: Record<string, unknown>,
    tokens?: number,
  ) => {
    if (!text.trim()) return;
    parts.push({
      section: { name, title, tokens: tokens ?? countTokensRemembered(text), details },
      text,
    });
  };

  add("base", "Base prompt", options.base);

  if (options.snapshot) {
    const { text: view, tokens } = formatHarnessStateWithTokens({
      state: options.snapshot,
      tokenBudget: options.tokenBudget,
      query: options.query,
      recentRefinements: options.recentRefinements,
    });
    const shown = [...view.matchAll(/\[(local|global):([a-z0-9][a-z0-9_-]*)\]/g)].map(
      (match) => `${match[1]}:${match[2]}`,
    );
    add(
      "harness",
      "Harness state",
      view,
      {
        tokenBudget: options.tokenBudget,
        entriesTotal: options.snapshot.entries.length,
        entriesShown: [...new Set(shown)],
        truncated: /\+\d+ more/.test(view) || view === "",
        harnessVersion: options.snapshot.harnessVersion,
      },
      tokens,
    );
  }

  if (options.checkout) {
    const dirs = options.checkout.listDirs();
    const checkout = options.checkout;
    const lines = dirs.map((dir) => summarizeDirForPrompt({ checkout, dir, query: options.query }));
    add("dirs", "Persistent directories", ["## Persistent directories", ...lines].join("\n"), {
      dirs,
    });

    const memoryTexts: string[] = [];
    const listed: string[] = [];
    for (const dir of options.dirs) {
      if (!isMemoryDir(dir)) continue;
      const listing = await dir.listingForPrompt({ checkout: options.checkout });
      listed.push(
        ...[...listing.matchAll(/^- (\S+) \(/gm)].map((match) => `${dir.harnessDir}/${match[1]!}`),
      );
      memoryTexts.push(
        `## Memory: ${dir.harnessDir}\n${listing}\n\n### Skill: ${dir.skill.name}\n${dir.skill.content}`,
      );
    }
    add("memory", "Memory", memoryTexts.join("\n\n"), {
      filesListed: listed,
      truncated: memoryTexts.some((text) => /more file\(s\) not listed/.test(text)),
    });
  }

  add(
    "tools",
    "Tools",
    toolsSection({
      dirTools: options.checkout !== null,
      harnessTools: options.snapshot !== null,
      otherTools: options.otherTools ?? true,
    }),
  );
  return {
    text: parts.map((part) => part.text).join("\n\n"),
    sections: parts.map((part) => part.section),
  };
}
