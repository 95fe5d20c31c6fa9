/**
 * Which MCP calls count as turns. Each `memory` call is a turn of its own (it opens a checkout of
 * every dir the person can see and, for a write, commits through the chat turn's path), and the
 * harness write tools and `refine_request` change shared state: these share the person's turn
 * limits with chat turns (concurrent slots and the rate, decision 0029). The read tools
 * (`harness_view`, `harness_search`, `harness_get`), resources, `tools/list` and `initialize`
 * are one query each, like loading a page, and are not limited.
 */

/** The most JSON-RPC messages one MCP request may carry as a batch. */
export const MAX_MCP_BATCH_MESSAGES = 20;

/** The tools whose calls count as turns. */
export const TURN_TOOL_NAMES: ReadonlySet<string> = new Set([
  "memory",
  "harness_create",
  "harness_update",
  "harness_delete",
  "refine_request",
]);

/** How many `tools/call` messages in a JSON-RPC message or batch call a turn tool. */
export function countTurnCalls(body: unknown): number {
  const messages = Array.isArray(body) ? (body as unknown[]) : [body];
  let count = 0;
  for (const message of messages) {
    const candidate = message as { method?: unknown; params?: { name?: unknown } } | null;
    if (candidate?.method !== "tools/call") continue;
    const name = candidate.params?.name;
    if (typeof name === "string" && TURN_TOOL_NAMES.has(name)) count += 1;
  }
  return count;
}
