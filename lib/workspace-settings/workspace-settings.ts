import { z } from "zod";
import { toBool, type SqlExecutor } from "@/lib/sql-storage/sql";

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

/**
 * A workspace's settings, or the defaults when none are saved.
 */
export async function getWorkspaceSettings(
  sql: SqlExecutor,
  workspaceId: string,
): Promise<WorkspaceSettingsValues> {
  const row = await sql.get<Record<keyof WorkspaceSettingsValues, unknown>>(
    `SELECT "tokenBudget", "refineEveryTurns", "refineAfterCompaction", "refineCooldownMinutes",
            "globalRefineNeedsApproval", "feedbackRefineThreshold", "feedbackJudgeAfter",
            "feedbackGuardRail"
     FROM "WorkspaceSettings" WHERE "workspaceId" = ?`,
    [workspaceId],
  );
  if (!row) return DEFAULT_WORKSPACE_SETTINGS;
  return {
    tokenBudget: Number(row.tokenBudget),
    refineEveryTurns: Number(row.refineEveryTurns),
    refineAfterCompaction: toBool(row.refineAfterCompaction),
    refineCooldownMinutes: Number(row.refineCooldownMinutes),
    globalRefineNeedsApproval: toBool(row.globalRefineNeedsApproval),
    feedbackRefineThreshold: Number(row.feedbackRefineThreshold),
    feedbackJudgeAfter: Number(row.feedbackJudgeAfter),
    feedbackGuardRail: toBool(row.feedbackGuardRail),
  };
}

export async function saveWorkspaceSettings(
  sql: SqlExecutor,
  workspaceId: string,
  values: WorkspaceSettingsValues,
): Promise<void> {
  await sql.run(
    `INSERT INTO "WorkspaceSettings"
       ("workspaceId", "tokenBudget", "refineEveryTurns", "refineAfterCompaction",
        "refineCooldownMinutes", "globalRefineNeedsApproval", "feedbackRefineThreshold",
        "feedbackJudgeAfter", "feedbackGuardRail", "updatedAt")
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT ("workspaceId") DO UPDATE SET
       "tokenBudget" = excluded."tokenBudget", "refineEveryTurns" = excluded."refineEveryTurns",
       "refineAfterCompaction" = excluded."refineAfterCompaction",
       "refineCooldownMinutes" = excluded."refineCooldownMinutes",
       "globalRefineNeedsApproval" = excluded."globalRefineNeedsApproval",
       "feedbackRefineThreshold" = excluded."feedbackRefineThreshold",
       "feedbackJudgeAfter" = excluded."feedbackJudgeAfter",
       "feedbackGuardRail" = excluded."feedbackGuardRail", "updatedAt" = excluded."updatedAt"`,
    [
      workspaceId,
      values.tokenBudget,
      values.refineEveryTurns,
      values.refineAfterCompaction,
      values.refineCooldownMinutes,
      values.globalRefineNeedsApproval,
      values.feedbackRefineThreshold,
      values.feedbackJudgeAfter,
      values.feedbackGuardRail,
      new Date(),
    ],
  );
}
