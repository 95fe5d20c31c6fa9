import { z } from "zod";
import type { Db } from "@/lib/db";

/** Workspace settings with their defaults and bounds (the admin settings page edits them). */
export const workspaceSettingsSchema = z.object({
  tokenBudget: z.coerce.number().int().min(500).max(64_000),
  refineEveryTurns: z.coerce.number().int().min(0).max(1000),
  refineAfterCompaction: z.boolean(),
  refineCooldownMinutes: z.coerce
    .number()
    .int()
    .min(0)
    .max(24 * 60),
  globalRefineNeedsApproval: z.boolean(),
  /** Thumbs-down in a chat (or across the workspace) since the last refinement that start a review; 0 = off. */
  feedbackRefineThreshold: z.coerce.number().int().min(0).max(1000),
  /** Rated answers after a refinement before it is judged supported / not supported. */
  feedbackJudgeAfter: z.coerce.number().int().min(1).max(10_000),
  /** Flag refinements whose rated answers got clearly worse (never rolled back by itself). */
  feedbackGuardRail: z.boolean(),
});

export type WorkspaceSettingsValues = z.infer<typeof workspaceSettingsSchema>;

export const DEFAULT_WORKSPACE_SETTINGS: WorkspaceSettingsValues = {
  tokenBudget: 4000,
  refineEveryTurns: 25,
  refineAfterCompaction: true,
  refineCooldownMinutes: 20,
  globalRefineNeedsApproval: false,
  feedbackRefineThreshold: 3,
  feedbackJudgeAfter: 10,
  feedbackGuardRail: false,
};

export async function getWorkspaceSettings(
  db: Db,
  workspaceId: string,
): Promise<WorkspaceSettingsValues> {
  const row = await db.workspaceSettings.findUnique({ where: { workspaceId } });
  if (!row) return DEFAULT_WORKSPACE_SETTINGS;
  return {
    tokenBudget: row.tokenBudget,
    refineEveryTurns: row.refineEveryTurns,
    refineAfterCompaction: row.refineAfterCompaction,
    refineCooldownMinutes: row.refineCooldownMinutes,
    globalRefineNeedsApproval: row.globalRefineNeedsApproval,
    feedbackRefineThreshold: row.feedbackRefineThreshold,
    feedbackJudgeAfter: row.feedbackJudgeAfter,
    feedbackGuardRail: row.feedbackGuardRail,
  };
}

export async function saveWorkspaceSettings(
  db: Db,
  workspaceId: string,
  values: WorkspaceSettingsValues,
): Promise<void> {
  await db.workspaceSettings.upsert({
    where: { workspaceId },
    create: { workspaceId, ...values },
    update: values,
  });
}
