import "server-only";
import { tool, type ToolSet } from "ai";
import { z } from "zod";
import { canWriteGlobal, type Actor } from "@/lib/harness";
import { actorNow } from "./refinement-jobs";

export type RefineRequest = {
  kind: "explicit" | "every-n-turns" | "compaction" | "feedback";
  instructions?: string;
  global?: boolean;
};

/** Parses `/refine [--global] [instructions]`; null when the text is not a refine command. */
export function parseRefineCommand(
  text: string,
): { instructions?: string; global: boolean } | null {
  const match = /^\/refine(?:\s+([\s\S]*))?$/i.exec(text.trim());
  if (!match) return null;
  let rest = (match[1] ?? "").trim();
  let global = false;
  if (/^--global\b/.test(rest)) {
    global = true;
    rest = rest.slice("--global".length).trim();
  }
  return { global, ...(rest ? { instructions: rest } : {}) };
}

/** Built once per process (a stable schema object keeps the AI SDK's JSON Schema cached). */
const refineToolInput = z.object({
  instructions: z.string().max(2000).optional(),
  global: z.boolean().optional(),
});

/** What the `refine` tool answers a global request by someone who may not write global entries. */
export const GLOBAL_REFINE_TOOL_REFUSED =
  "Refused: only editors and admins can refine company knowledge (global: true). Nothing was requested; call refine without global to refine this chat.";

/**
 * The agent's `refine` tool for `actor`'s turn: asks for a refinement at the end of this turn. A
 * second call in the same turn replaces the first. `take()` hands the request to the host after
 * the turn. A global request reads the person's role when the tool is called, like the turn's
 * other writes (`harnessForTurn`): one by a member — or by an editor demoted during the turn, or
 * a person removed — is refused in the tool's result and nothing is requested (a refused call
 * leaves an earlier request of the turn in place).
 */
export function createRefineTool(options: { actor: Actor }): {
  tools: ToolSet;
  take: () => RefineRequest | null;
} {
  let request: RefineRequest | null = null;
  return {
    tools: {
      refine: tool({
        description:
          "Ask for the harness to be refined after this turn, from evidence in this conversation (e.g. a lesson worth keeping). Local to this chat unless global: true (editors and admins only).",
        inputSchema: refineToolInput,
        execute: async ({ instructions, global }) => {
          if (global) {
            const current = await actorNow(options.actor);
            if (!current || !canWriteGlobal(current)) return GLOBAL_REFINE_TOOL_REFUSED;
          }
          request = { kind: "explicit", instructions, global: global ?? false };
          return "A refinement will run after this turn.";
        },
      }),
    },
    take: () => request,
  };
}
