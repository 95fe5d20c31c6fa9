import "server-only";
import { tool, type ToolSet } from "ai";
import { z } from "zod";
import { currentActor } from "@/lib/accounts";
import { getRefineModel } from "@/lib/ai";
import { loadChatMessages } from "@/lib/chat/messages";
import { getDb } from "@/lib/db";
import { messageText, runRefinement, type Actor, type Refinement } from "@/lib/harness";
import { harnessFor } from "@/lib/harness-service";
import { PrismaRefinementStore } from "@/lib/store-prisma/refinement-store";
import { getWorkspaceSettings } from "@/lib/workspace-settings";

export type RefineRequest = {
  kind: "explicit" | "every-n-turns" | "compaction";
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

export function refinementStore() {
  return new PrismaRefinementStore(getDb());
}

/**
 * Runs one refinement for a chat now (call it after the response: it never delays the user's
 * stream). Records the outcome, failures included; returns null when no model is configured.
 */
export async function runChatRefinement(options: {
  actor: Actor;
  chatId: string;
  request: RefineRequest;
  turnsSinceLastReview?: number;
}): Promise<Refinement | null> {
  const model = await getRefineModel();
  if (model.status !== "ready") {
    console.warn(`cairn: refinement skipped: ${model.message}`);
    return null;
  }
  const db = getDb();
  // The role is read again now, not taken from the turn that scheduled this: a refinement of
  // an editor demoted since is refused for global entries (recorded as a failed refinement,
  // `forbidden:refinement`), and one of a removed member does not run.
  const actor = await currentActor(db, options.actor);
  if (!actor) {
    console.warn("cairn: refinement skipped: the member left the workspace");
    return null;
  }
  const [harness, settings, messages] = await Promise.all([
    harnessFor(actor, options.chatId),
    getWorkspaceSettings(db, actor.workspaceId),
    loadChatMessages(db, options.chatId),
  ]);
  return runRefinement({
    trigger: options.request,
    harness,
    store: refinementStore(),
    models: { review: model.model, plan: model.model },
    actor,
    chatId: options.chatId,
    conversation: messages
      .map((message) => ({ role: message.role, text: messageText(message) }))
      .filter((message) => message.text.trim() !== ""),
    now: new Date(),
    turnsSinceLastReview: options.turnsSinceLastReview,
    globalNeedsApproval: settings.globalRefineNeedsApproval,
  });
}

/** Fire and forget, with the failure logged (the refinement row records what went wrong). */
export function scheduleRefinement(options: Parameters<typeof runChatRefinement>[0]): void {
  void runChatRefinement(options).catch((error: unknown) =>
    console.error("cairn: refinement failed", error),
  );
}

/**
 * After a completed turn: every N assistant turns since the chat's last review, or after a
 * compaction, review for a refinement — unless the cooldown since the last review (declined and
 * failed ones count) has not passed.
 */
export async function maybeAutoRefine(options: {
  actor: Actor;
  chatId: string;
  compacted: boolean;
}): Promise<void> {
  const db = getDb();
  const settings = await getWorkspaceSettings(db, options.actor.workspaceId);
  const lastReviewAt = await refinementStore().getLastReviewAt({
    workspaceId: options.actor.workspaceId,
    chatId: options.chatId,
  });
  const since = lastReviewAt ? new Date(lastReviewAt) : new Date(0);
  if (Date.now() - since.getTime() < settings.refineCooldownMinutes * 60_000) return;
  const turns = await db.turn.count({
    where: { chatId: options.chatId, status: "completed", startedAt: { gt: since } },
  });
  const kind =
    options.compacted && settings.refineAfterCompaction
      ? "compaction"
      : settings.refineEveryTurns > 0 && turns >= settings.refineEveryTurns
        ? "every-n-turns"
        : null;
  if (kind)
    scheduleRefinement({
      actor: options.actor,
      chatId: options.chatId,
      request: { kind },
      turnsSinceLastReview: turns,
    });
}

/**
 * The agent's `refine` tool: asks for a refinement at the end of this turn. A second call in
 * the same turn replaces the first. `take()` hands the request to the host after the turn.
 */
export function createRefineTool(): { tools: ToolSet; take: () => RefineRequest | null } {
  let request: RefineRequest | null = null;
  return {
    tools: {
      refine: tool({
        description:
          "Ask for the harness to be refined after this turn, from evidence in this conversation (e.g. a lesson worth keeping). Local to this chat unless global: true (editors and admins only).",
        inputSchema: z.object({
          instructions: z.string().max(2000).optional(),
          global: z.boolean().optional(),
        }),
        execute: async ({ instructions, global }) => {
          request = { kind: "explicit", instructions, global: global ?? false };
          return "A refinement will run after this turn.";
        },
      }),
    },
    take: () => request,
  };
}
