// Prompt-view rendering time: formatHarnessStateForPrompt over 100, 1,000 and 10,000 entries,
// with and without a query, 4,000-token budget. Target: p50 under 5 ms at 10,000 entries.
//
// Each case runs twice:
// - cold: a fresh line cache for every run, so every candidate line is tokenized (the first
//   turn after a process start, or after every entry changed);
// - warm: a cache primed by one render of the same entries with a *different* query (the next
//   turn of a conversation: same entries, new user message). Nothing query-dependent is
//   cached, so warm runs still rank all entries against the query.
import { type Entry } from "@/lib/harness";
import { createPromptViewCache, formatHarnessStateForPrompt } from "@/lib/harness/store";
import { loadLine, ms, table, timeIt } from "./stats";

const words =
  "deploy build test release schema migration cache queue worker token budget memory skill note agent review".split(
    " ",
  );

const QUERY = "how do we deploy the release after the schema migration?";
const PRIMING_QUERY = "which worker owns the cache queue?";

function makeEntries(count: number): Entry[] {
  const kinds = ["prompt", "memory", "skill", "subagent"] as const;
  const entries: Entry[] = [];
  for (let index = 0; index < count; index++) {
    const kind = kinds[index % 4]!;
    const text = Array.from(
      { length: 40 },
      (_, word) => words[(index * 7 + word * 3) % words.length],
    ).join(" ");
    const at = new Date(Date.UTC(2026, 0, 1) + index * 60_000).toISOString();
    entries.push({
      id: `entry-${index}`,
      kind,
      scope: index % 3 === 0 ? "global" : "local",
      chatId: index % 3 === 0 ? null : "chat-1",
      title: `Entry ${index} about ${words[index % words.length]}`,
      content: `${text}\n${text}`,
      path: `project-${index % 10}/area-${index % 7}`,
      metadata:
        kind === "skill" || kind === "subagent"
          ? { name: `tool-${index}`, description: `Use for ${text.slice(0, 60)}`, tools: ["Read"] }
          : {},
      pinned: index % 97 === 0,
      source: "user",
      version: 1 + (index % 5),
      createdAt: at,
      updatedAt: at,
      createdBy: "u",
      updatedBy: "u",
    });
  }
  return entries;
}

export async function benchPromptView(): Promise<string> {
  // JIT and tokenizer warm-up on separate data, so the first timed case (100 entries) is not
  // charged for compiling the code every later case reuses.
  const warmupState = { entries: makeEntries(2_000), harnessVersion: 1 };
  for (let index = 0; index < 40; index++) {
    formatHarnessStateForPrompt({
      state: warmupState,
      tokenBudget: 4000,
      query: index % 2 ? QUERY : undefined,
      cache: createPromptViewCache(),
    });
  }
  const rows: Record<string, string | number>[] = [];
  for (const count of [100, 1_000, 10_000]) {
    const entries = makeEntries(count);
    const state = { workspaceId: "w", harnessVersion: count, entries };
    for (const query of [undefined, QUERY]) {
      for (const mode of ["cold", "warm"] as const) {
        let cache = createPromptViewCache();
        if (mode === "warm") {
          formatHarnessStateForPrompt({ state, tokenBudget: 4000, query: PRIMING_QUERY, cache });
        }
        const result = await timeIt(
          () => formatHarnessStateForPrompt({ state, tokenBudget: 4000, query, cache }),
          {
            iterations: count >= 10_000 ? 60 : 200,
            warmup: 10,
            before:
              mode === "cold"
                ? () => {
                    cache = createPromptViewCache();
                  }
                : undefined,
          },
        );
        rows.push({
          entries: count,
          query: query ? "yes" : "no",
          cache: mode,
          p50: ms(result.p50),
          p95: ms(result.p95),
          min: ms(result.min),
          "cpu p50": ms(result.cpu.p50),
        });
      }
    }
  }
  return `Prompt view (formatHarnessStateForPrompt, 4,000-token budget; target p50 < 5 ms at 10,000)\n${loadLine()}\n${table(rows)}`;
}
