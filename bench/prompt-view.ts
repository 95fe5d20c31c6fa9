// Prompt-view rendering time: formatHarnessStateForPrompt over 100, 1,000 and 10,000 entries,
// with and without a query, 4,000-token budget. Target: under 5 ms at 10,000 entries.
import { formatHarnessStateForPrompt, type Entry } from "@/lib/harness";
import { ms, table, timeIt } from "./stats";

const words =
  "deploy build test release schema migration cache queue worker token budget memory skill note agent review".split(
    " ",
  );

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
  const rows: Record<string, string | number>[] = [];
  for (const count of [100, 1_000, 10_000]) {
    const entries = makeEntries(count);
    const state = { workspaceId: "w", harnessVersion: count, entries };
    for (const query of [undefined, "how do we deploy the release after the schema migration?"]) {
      const result = await timeIt(
        () => formatHarnessStateForPrompt({ state, tokenBudget: 4000, query }),
        {
          iterations: count >= 10_000 ? 60 : 200,
          warmup: 10,
        },
      );
      rows.push({
        entries: count,
        query: query ? "yes" : "no",
        p50: ms(result.p50),
        p95: ms(result.p95),
        min: ms(result.min),
      });
    }
  }
  return `Prompt view (formatHarnessStateForPrompt, 4,000-token budget; target p50 < 5 ms at 10,000)\n${table(rows)}`;
}
