// Prompt-view rendering time: formatHarnessStateForPrompt over 100, 1,000 and 10,000 entries,
// with and without a query, 4,000-token budget. Target: p50 under 5 ms at 10,000 entries.
//
// The entries are frozen, as snapshots from the store are. Each case runs three ways:
// - cold: a fresh cache for every run: every entry's words are read and every candidate line
//   is tokenized (the first turn after a process start);
// - next turn: a cache primed by one render of the same snapshot with a *different* query
//   (the next turn of a conversation on an unchanged harness: the store hands out the same
//   frozen snapshot). Nothing query-dependent is remembered, so every run ranks all entries
//   against the query;
// - after an edit: before every run, a new snapshot with one entry rewritten (every other
//   entry the same object, as the store's snapshot cache keeps them).
import { type Entry } from "@/lib/harness";
import { createPromptViewCache, formatHarnessStateForPrompt } from "@/lib/harness";
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
    entries.push(
      freeze({
        id: `entry-${index}`,
        kind,
        scope: index % 3 === 0 ? "global" : "local",
        chatId: index % 3 === 0 ? null : "chat-1",
        title: `Entry ${index} about ${words[index % words.length]}`,
        content: `${text}\n${text}`,
        path: `project-${index % 10}/area-${index % 7}`,
        metadata:
          kind === "skill" || kind === "subagent"
            ? {
                name: `tool-${index}`,
                description: `Use for ${text.slice(0, 60)}`,
                tools: ["Read"],
              }
            : {},
        pinned: index % 97 === 0,
        source: "user",
        version: 1 + (index % 5),
        createdAt: at,
        updatedAt: at,
        createdBy: "u",
        updatedBy: "u",
      }),
    );
  }
  return Object.freeze(entries) as Entry[];
}

/** Snapshots from the store are frozen (entries and their metadata), like these. */
function freeze(entry: Entry): Entry {
  Object.freeze(entry.metadata);
  return Object.freeze(entry);
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
    for (const query of [undefined, QUERY]) {
      for (const mode of ["cold", "next turn", "after an edit"] as const) {
        let state = { workspaceId: "w", harnessVersion: count, entries };
        let cache = createPromptViewCache();
        if (mode !== "cold") {
          formatHarnessStateForPrompt({ state, tokenBudget: 4000, query: PRIMING_QUERY, cache });
        }
        let edits = 0;
        const result = await timeIt(
          () => formatHarnessStateForPrompt({ state, tokenBudget: 4000, query, cache }),
          {
            iterations: count >= 10_000 ? 60 : 200,
            warmup: 10,
            before: () => {
              if (mode === "cold") cache = createPromptViewCache();
              if (mode === "after an edit") {
                // The next snapshot: one entry rewritten, every other entry the same object.
                edits += 1;
                const next = [...state.entries];
                const at = (edits * 7919) % next.length;
                const old = next[at]!;
                next[at] = freeze({
                  ...old,
                  content: `${old.content} (edit ${edits})`,
                  version: old.version + 1,
                  updatedAt: new Date(Date.UTC(2027, 0, 1) + edits * 1000).toISOString(),
                  metadata: { ...old.metadata },
                });
                state = {
                  workspaceId: "w",
                  harnessVersion: state.harnessVersion + 1,
                  entries: Object.freeze(next) as Entry[],
                };
              }
            },
          },
        );
        rows.push({
          entries: count,
          query: query ? "yes" : "no",
          render: mode,
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
