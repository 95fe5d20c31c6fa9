"use server";

import { action, fail } from "@/lib/actions";
import { getSql } from "@/lib/sql-storage/sql";
import { rateTurn, rateTurnInputSchema, type ChatRating } from "@/lib/feedback";
import { requestFeedbackRefinement } from "@/lib/refinement-runs";
import { getWorkspaceSettings } from "@/lib/workspace-settings";

/**
 * Thumbs up / down on one answer of the person's own chat (`rating: null` takes it back). A turn
 * of someone else's chat, of another workspace or that never completed is "not found".
 */
export const rateAnswerAction = action(
  { input: rateTurnInputSchema },
  async ({ input, actor }): Promise<{ rating: ChatRating | null; refinementId: string | null }> => {
    const settings = await getWorkspaceSettings(getSql(), actor.workspaceId);
    const result = await rateTurn({
      actor,
      input,
      source: "chat",
      settings,
      requestRefinement: requestFeedbackRefinement,
    });
    if (result.status === "not_found")
      fail("not_found:turn", "That answer does not exist or is not in one of your chats.");
    if (result.status === "cleared") return { rating: null, refinementId: null };
    const { rating, comment, tags } = result.outcome;
    return { rating: { rating, comment, tags }, refinementId: result.refinementId };
  },
);
