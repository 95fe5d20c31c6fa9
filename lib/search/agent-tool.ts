import { tool } from "ai";
import { z } from "zod";

import { markUntrusted } from "@/lib/harness";
import type { SearchKind } from "./index-store";
import { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT, type SearchHit } from "./search";
import { formatSnippet } from "./snippet";

/** The scopes an agent names; `chats` is the kind `chat`. */
export const SEARCH_SCOPES = ["memory", "company", "docs", "harness", "chats"] as const;
export type SearchScope = (typeof SEARCH_SCOPES)[number];

export const kindOfScope = (scope: SearchScope): SearchKind => (scope === "chats" ? "chat" : scope);

/** The search tool's input, the same in a turn and on MCP. */
export const searchToolInput = z.object({
  query: z
    .string()
    .min(1)
    .max(500)
    .describe(
      'words to find; "quoted phrase" for an exact phrase; the last word also matches as a prefix',
    ),
  scope: z
    .array(z.enum(SEARCH_SCOPES))
    .optional()
    .describe("where to look (default everywhere): memory, company, docs, harness, chats"),
  limit: z
    .number()
    .int()
    .min(1)
    .max(MAX_SEARCH_LIMIT)
    .optional()
    .describe(`how many passages (default ${DEFAULT_SEARCH_LIMIT})`),
});
export type SearchToolInput = z.infer<typeof searchToolInput>;

export const SEARCH_TOOL_DESCRIPTION =
  "Search your memory, company knowledge, company docs, harness entries and your past chats by words. " +
  "Returns ranked passages with their file path and line range: open exactly those lines with " +
  "memory view and view_range [start, end] instead of reading whole folders or running grep.";

/** A hit as one line for a model: where it is, which lines, and the snippet. */
export function describeHit(hit: SearchHit, index: number): string {
  const snippet = formatSnippet(hit.snippet);
  const when = hit.updatedAt.toISOString().slice(0, 10);
  switch (hit.kind) {
    case "chat":
      return `${index}. [chat] "${hit.title}" (chat ${hit.chatId}, message ${hit.messageId}, ${when}): ${snippet}`;
    case "harness":
      return `${index}. [harness] ${hit.location} "${hit.title}"${hit.path ? ` (${hit.path})` : ""}: ${snippet}`;
    default: {
      const heading = hit.title ? ` § ${hit.title}` : "";
      return `${index}. [${hit.kind}] ${hit.location} lines ${hit.lineStart}-${hit.lineEnd}${heading} (${when}): ${snippet}`;
    }
  }
}

/** The tool's text result: ranked passages, or a line saying nothing matched. */
export function formatSearchResult(query: string, hits: readonly SearchHit[]): string {
  if (hits.length === 0) return `No passages match "${query}".`;
  const lines = hits.map((hit, index) => describeHit(hit, index + 1));
  return `${hits.length} passage${hits.length === 1 ? "" : "s"} for "${query}" (lexical ranking; best first):\n${lines.join("\n")}`;
}

/**
 * The `search` tool of a turn. `run` searches as the turn's person (the app's search service
 * reads their membership per call); the result is marked as data others may have written.
 */
export function createSearchTool(
  run: (input: { query: string; kinds?: SearchKind[]; limit?: number }) => Promise<SearchHit[]>,
) {
  return tool({
    description: SEARCH_TOOL_DESCRIPTION,
    inputSchema: searchToolInput,
    execute: async (input) => {
      const hits = await run({
        query: input.query,
        kinds: input.scope?.map(kindOfScope),
        limit: input.limit,
      });
      return markUntrusted({ source: "search", text: formatSearchResult(input.query, hits) });
    },
  });
}
