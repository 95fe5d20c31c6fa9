import { z } from "zod";
import { toBool, type SqlExecutor } from "@/lib/sql-storage/sql";

/**
 * One dir limit a workspace may set: a positive whole number, or `null` (an empty field) for the
 * server's (`CAIRN_DIR_MAX_*`). Whether it is within the server's is checked where the server's
 * are known (`dirLimitsOverServer`).
 */
const dirLimit = (what: string) =>
  z.preprocess(
    (value) =>
      value === "" || value === null || value === undefined
        ? null
        : typeof value === "string"
          ? Number(value.trim())
          : value,
    z
      .number({ error: `${what} must be a whole number (or empty for the server's default).` })
      .int(`${what} must be a whole number (or empty for the server's default).`)
      .positive(`${what} must be at least 1 (or empty for the server's default).`)
      .max(Number.MAX_SAFE_INTEGER, `${what} is too large.`)
      .nullable(),
  );

/** The six dir limits of a workspace's settings, by dir kind and limit (decision 0062). */
export const WORKSPACE_DIR_LIMIT_FIELDS = {
  company: {
    maxFiles: "companyMaxFiles",
    maxDirBytes: "companyMaxBytes",
    maxFileBytes: "companyMaxFileBytes",
  },
  memory: {
    maxFiles: "memoryMaxFiles",
    maxDirBytes: "memoryMaxBytes",
    maxFileBytes: "memoryMaxFileBytes",
  },
} as const;

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
  /** Company knowledge's limits in this workspace; `null`: the server's. */
  companyMaxFiles: dirLimit("Company knowledge's file count"),
  companyMaxBytes: dirLimit("Company knowledge's total size"),
  companyMaxFileBytes: dirLimit("Company knowledge's size per file"),
  /** Each person's memory's limits while they work in this workspace; `null`: the server's. */
  memoryMaxFiles: dirLimit("Memory's file count"),
  memoryMaxBytes: dirLimit("Memory's total size"),
  memoryMaxFileBytes: dirLimit("Memory's size per file"),
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
  companyMaxFiles: null,
  companyMaxBytes: null,
  companyMaxFileBytes: null,
  memoryMaxFiles: null,
  memoryMaxBytes: null,
  memoryMaxFileBytes: null,
};

/** The kinds of dir whose limits a workspace sets. */
export type WorkspaceDirLimitKind = keyof typeof WORKSPACE_DIR_LIMIT_FIELDS;

/** The limit names of `DirLimits` (lib/harness), kept here so settings need not import the core. */
type DirLimitName = keyof (typeof WORKSPACE_DIR_LIMIT_FIELDS)["company"];

/** The six dir limits of a workspace's settings; `null`: the server's. */
export type WorkspaceDirLimitValues = Pick<
  WorkspaceSettingsValues,
  (typeof WORKSPACE_DIR_LIMIT_FIELDS)[WorkspaceDirLimitKind][DirLimitName]
>;

/** A nullable number column as read (PostgreSQL's BIGINT may come back as text). */
function limitOf(value: unknown): number | null {
  return value === null || value === undefined ? null : Number(value);
}

/** The six dir limits from a row that selected them (`null` where unset or no row). */
export function dirLimitValuesOf(
  row: Partial<Record<keyof WorkspaceDirLimitValues, unknown>> | null | undefined,
): WorkspaceDirLimitValues {
  return {
    companyMaxFiles: limitOf(row?.companyMaxFiles),
    companyMaxBytes: limitOf(row?.companyMaxBytes),
    companyMaxFileBytes: limitOf(row?.companyMaxFileBytes),
    memoryMaxFiles: limitOf(row?.memoryMaxFiles),
    memoryMaxBytes: limitOf(row?.memoryMaxBytes),
    memoryMaxFileBytes: limitOf(row?.memoryMaxFileBytes),
  };
}

/** The columns of the six dir limits, for a SELECT (`prefix`: a table alias with its dot). */
export function dirLimitColumns(prefix = ""): string {
  return Object.keys(DEFAULT_DIR_LIMIT_VALUES)
    .map((column) => `${prefix}"${column}"`)
    .join(", ");
}

const DEFAULT_DIR_LIMIT_VALUES: WorkspaceDirLimitValues = dirLimitValuesOf(null);

/**
 * A workspace's limits for one kind of dir: each saved value, or the server's where none is
 * saved; never above the server's (`server`: `CAIRN_DIR_MAX_*`), which are the ceiling an admin
 * cannot pass — a value saved under a higher ceiling is held to the current one.
 */
export function workspaceDirLimits(options: {
  saved: WorkspaceDirLimitValues;
  kind: WorkspaceDirLimitKind;
  server: { maxFiles: number; maxDirBytes: number; maxFileBytes: number };
}): { maxFiles: number; maxDirBytes: number; maxFileBytes: number } {
  const fields = WORKSPACE_DIR_LIMIT_FIELDS[options.kind];
  const pick = (name: DirLimitName) =>
    Math.min(options.saved[fields[name]] ?? options.server[name], options.server[name]);
  return {
    maxFiles: pick("maxFiles"),
    maxDirBytes: pick("maxDirBytes"),
    maxFileBytes: pick("maxFileBytes"),
  };
}

/**
 * The saved dir limits above the server's, as messages for the admin (empty: none). The
 * server's values are the most a workspace may set.
 */
export function dirLimitsOverServer(
  values: WorkspaceDirLimitValues,
  server: { maxFiles: number; maxDirBytes: number; maxFileBytes: number },
): string[] {
  const problems: string[] = [];
  const labels = {
    company: "Company knowledge",
    memory: "Memory",
  } as const;
  const names = {
    maxFiles: ["file count", "CAIRN_DIR_MAX_FILES"],
    maxDirBytes: ["total size", "CAIRN_DIR_MAX_BYTES"],
    maxFileBytes: ["size per file", "CAIRN_DIR_MAX_FILE_BYTES"],
  } as const;
  for (const kind of ["company", "memory"] as const) {
    for (const name of ["maxFiles", "maxDirBytes", "maxFileBytes"] as const) {
      const value = values[WORKSPACE_DIR_LIMIT_FIELDS[kind][name]];
      if (value !== null && value > server[name]) {
        const [what, variable] = names[name];
        problems.push(
          `${labels[kind]}'s ${what} can be at most ${server[name]} (the server's ${variable}); ${value} was given.`,
        );
      }
    }
  }
  return problems;
}

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
            "feedbackGuardRail", ${dirLimitColumns()}
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
    ...dirLimitValuesOf(row),
  };
}

/** A workspace's six dir limits alone (`null` where the server's apply). */
export async function getWorkspaceDirLimits(
  sql: SqlExecutor,
  workspaceId: string,
): Promise<WorkspaceDirLimitValues> {
  const row = await sql.get<Record<keyof WorkspaceDirLimitValues, unknown>>(
    `SELECT ${dirLimitColumns()} FROM "WorkspaceSettings" WHERE "workspaceId" = ?`,
    [workspaceId],
  );
  return dirLimitValuesOf(row);
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
        "feedbackJudgeAfter", "feedbackGuardRail", ${dirLimitColumns()}, "updatedAt")
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT ("workspaceId") DO UPDATE SET
       "tokenBudget" = excluded."tokenBudget", "refineEveryTurns" = excluded."refineEveryTurns",
       "refineAfterCompaction" = excluded."refineAfterCompaction",
       "refineCooldownMinutes" = excluded."refineCooldownMinutes",
       "globalRefineNeedsApproval" = excluded."globalRefineNeedsApproval",
       "feedbackRefineThreshold" = excluded."feedbackRefineThreshold",
       "feedbackJudgeAfter" = excluded."feedbackJudgeAfter",
       "feedbackGuardRail" = excluded."feedbackGuardRail",
       "companyMaxFiles" = excluded."companyMaxFiles", "companyMaxBytes" = excluded."companyMaxBytes",
       "companyMaxFileBytes" = excluded."companyMaxFileBytes",
       "memoryMaxFiles" = excluded."memoryMaxFiles", "memoryMaxBytes" = excluded."memoryMaxBytes",
       "memoryMaxFileBytes" = excluded."memoryMaxFileBytes", "updatedAt" = excluded."updatedAt"`,
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
      values.companyMaxFiles,
      values.companyMaxBytes,
      values.companyMaxFileBytes,
      values.memoryMaxFiles,
      values.memoryMaxBytes,
      values.memoryMaxFileBytes,
      new Date(),
    ],
  );
}
