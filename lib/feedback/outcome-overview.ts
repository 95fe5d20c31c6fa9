// Outcomes per harness-version range, and the automatic verdicts on refinements.
import { getSql, placeholders, toDate, type Sql, type SqlExecutor } from "@/lib/sql-storage/sql";
import type { WorkspaceSettingsValues } from "@/lib/workspace-settings";
import {
  beforeAfter,
  judgeRefinement,
  versionRanges,
  type BeforeAfter,
  type Judgement,
  type OutcomePoint,
  type RefinementBoundary,
  type VersionRange,
} from "./stats";
import { jsonOr } from "./turn-outcomes";

/** Which answers to count: the workspace's, or one chat's. */
export type OutcomeScope = { kind: "workspace" } | { kind: "chat"; chatId: string };

interface BoundaryRow {
  id: string;
  scope: string;
  chatId: string | null;
  trigger: string;
  status: string;
  harnessVersionAfter: number | null;
  createdAt: unknown;
  autoVerdict: string | null;
}

/** The refinements that changed the harness a scope's answers were produced with. */
async function boundariesOf(
  sql: SqlExecutor,
  workspaceId: string,
  scope: OutcomeScope,
): Promise<(RefinementBoundary & { row: BoundaryRow })[]> {
  const rows = await sql.all<BoundaryRow>(
    `SELECT "id", "scope", "chatId", "trigger", "status", "harnessVersionAfter", "createdAt", "autoVerdict"
     FROM "Refinement"
     WHERE "workspaceId" = ? AND "status" IN ('applied', 'partial')
       AND "harnessVersionAfter" IS NOT NULL
       AND ("scope" = 'global' ${scope.kind === "chat" ? `OR "chatId" = ?` : ""})
     ORDER BY "harnessVersionAfter" ASC`,
    scope.kind === "chat" ? [workspaceId, scope.chatId] : [workspaceId],
  );
  return rows.map((row) => ({
    id: row.id,
    harnessVersionAfter: Number(row.harnessVersionAfter),
    createdAt: toDate(row.createdAt).toISOString(),
    row,
  }));
}

/** The rated answers of a scope (every person's: counts carry no text). */
async function outcomePoints(
  sql: SqlExecutor,
  workspaceId: string,
  scope: OutcomeScope,
): Promise<OutcomePoint[]> {
  const rows = await sql.all<{ harnessVersion: number | null; rating: string; turnAt: unknown }>(
    `SELECT "harnessVersion", "rating", "turnAt" FROM "TurnOutcome"
     WHERE "workspaceId" = ? ${scope.kind === "chat" ? `AND "chatId" = ?` : ""}`,
    scope.kind === "chat" ? [workspaceId, scope.chatId] : [workspaceId],
  );
  return rows.map((row) => ({
    harnessVersion: row.harnessVersion === null ? null : Number(row.harnessVersion),
    rating: row.rating === "good" ? "good" : "bad",
    turnAt: toDate(row.turnAt).toISOString(),
  }));
}

/** The scope a refinement is measured in: its chat for a local one, the workspace for a global one. */
export function scopeOfRefinement(refinement: {
  scope: string;
  chatId: string | null;
}): OutcomeScope {
  return refinement.scope === "local" && refinement.chatId
    ? { kind: "chat", chatId: refinement.chatId }
    : { kind: "workspace" };
}

/** A scope's version ranges and the refinements between them (the overview's chart). */
export async function outcomeOverview(options: {
  workspaceId: string;
  scope: OutcomeScope;
  /**
   * Workspace scope: also list the local refinements of this person's own chats (marked on the
   * chart; they do not split the workspace's ranges, as they change one chat's harness only).
   */
  viewerId?: string;
  sql?: SqlExecutor;
}): Promise<{
  ranges: VersionRange[];
  refinements: {
    id: string;
    createdAt: string;
    harnessVersionAfter: number;
    scope: string;
    trigger: string;
  }[];
  total: number;
}> {
  const sql = options.sql ?? getSql();
  const [bounds, points, ownLocal] = await Promise.all([
    boundariesOf(sql, options.workspaceId, options.scope),
    outcomePoints(sql, options.workspaceId, options.scope),
    options.scope.kind === "workspace" && options.viewerId
      ? sql.all<BoundaryRow>(
          `SELECT r."id", r."scope", r."chatId", r."trigger", r."status", r."harnessVersionAfter",
             r."createdAt", r."autoVerdict"
           FROM "Refinement" r JOIN "Chat" c ON c."id" = r."chatId"
           WHERE r."workspaceId" = ? AND r."scope" = 'local' AND c."userId" = ?
             AND r."status" IN ('applied', 'partial') AND r."harnessVersionAfter" IS NOT NULL`,
          [options.workspaceId, options.viewerId],
        )
      : Promise.resolve([]),
  ]);
  const listed = [...bounds.map((bound) => bound.row), ...ownLocal].sort(
    (a, b) => Number(a.harnessVersionAfter) - Number(b.harnessVersionAfter),
  );
  return {
    ranges: versionRanges(points, bounds),
    refinements: listed.map((row) => ({
      id: row.id,
      createdAt: toDate(row.createdAt).toISOString(),
      harnessVersionAfter: Number(row.harnessVersionAfter),
      scope: row.scope,
      trigger: row.trigger,
    })),
    total: points.length,
  };
}

/** Before / after counts of each of `refinements`, each in its own scope. */
export async function refinementOutcomes(options: {
  workspaceId: string;
  refinements: readonly { id: string; scope: string; chatId: string | null }[];
  sql?: SqlExecutor;
}): Promise<Map<string, BeforeAfter>> {
  const sql = options.sql ?? getSql();
  const result = new Map<string, BeforeAfter>();
  const byScope = new Map<string, { scope: OutcomeScope; ids: string[] }>();
  for (const refinement of options.refinements) {
    const scope = scopeOfRefinement(refinement);
    const key = scope.kind === "chat" ? `chat:${scope.chatId}` : "workspace";
    const entry = byScope.get(key) ?? { scope, ids: [] };
    entry.ids.push(refinement.id);
    byScope.set(key, entry);
  }
  for (const { scope, ids } of byScope.values()) {
    const [bounds, points] = await Promise.all([
      boundariesOf(sql, options.workspaceId, scope),
      outcomePoints(sql, options.workspaceId, scope),
    ]);
    for (const id of ids) {
      const counts = beforeAfter(id, points, bounds);
      if (counts) result.set(id, counts);
    }
  }
  return result;
}

/** A stored automatic verdict. */
export interface AutoVerdict extends Judgement {
  at: string;
}

/** Triggers whose refinements are judged (undo operations and imports are boundaries only). */
const JUDGED_TRIGGERS = ["explicit", "every-n-turns", "compaction", "feedback"] as const;

/**
 * Judges, once, each refinement that could count this chat's answers and has none yet: once
 * `feedbackJudgeAfter` rated answers follow it, its verdict (supported / not supported, with the
 * counts and whether it regressed) is stored and no longer changes.
 */
export async function judgeRefinements(options: {
  workspaceId: string;
  chatId: string;
  settings: WorkspaceSettingsValues;
  sql?: Sql;
  now?: Date;
}): Promise<string[]> {
  const sql = options.sql ?? getSql();
  const judged: string[] = [];
  for (const scope of [
    { kind: "chat", chatId: options.chatId } as const,
    { kind: "workspace" } as const,
  ]) {
    const bounds = await boundariesOf(sql, options.workspaceId, scope);
    const open = bounds.filter(
      (bound) =>
        bound.row.autoVerdict === null &&
        (JUDGED_TRIGGERS as readonly string[]).includes(bound.row.trigger) &&
        // Each refinement is judged in its own scope only.
        (scope.kind === "chat"
          ? bound.row.scope === "local" && bound.row.chatId === options.chatId
          : bound.row.scope === "global"),
    );
    if (open.length === 0) continue;
    const points = await outcomePoints(sql, options.workspaceId, scope);
    for (const bound of open) {
      const counts = beforeAfter(bound.id, points, bounds);
      const judgement = counts
        ? judgeRefinement(counts, options.settings.feedbackJudgeAfter)
        : null;
      if (!judgement) continue;
      const { changes } = await sql.run(
        `UPDATE "Refinement" SET "autoVerdict" = ?, "autoVerdictAt" = ?, "autoVerdictStats" = ?
         WHERE "id" = ? AND "autoVerdict" IS NULL`,
        [
          judgement.verdict,
          options.now ?? new Date(),
          JSON.stringify({
            before: judgement.before,
            after: judgement.after,
            regressed: judgement.regressed,
          }),
          bound.id,
        ],
      );
      if (changes > 0) judged.push(bound.id);
    }
  }
  return judged;
}

/** The automatic verdicts of `ids` (absent: not judged yet). */
export async function getAutoVerdicts(
  ids: readonly string[],
  sql: SqlExecutor = getSql(),
): Promise<Map<string, AutoVerdict>> {
  if (ids.length === 0) return new Map();
  const rows = await sql.all<{
    id: string;
    autoVerdict: string | null;
    autoVerdictAt: unknown;
    autoVerdictStats: string | null;
  }>(
    `SELECT "id", "autoVerdict", "autoVerdictAt", "autoVerdictStats" FROM "Refinement"
     WHERE "id" IN (${placeholders(ids.length)}) AND "autoVerdict" IS NOT NULL`,
    [...ids],
  );
  return new Map(
    rows.map((row) => {
      const stats = jsonOr<Omit<Judgement, "verdict">>(row.autoVerdictStats, {
        before: { total: 0, good: 0, share: null, low: null, high: null },
        after: { total: 0, good: 0, share: null, low: null, high: null },
        regressed: false,
      });
      return [
        row.id,
        {
          verdict: row.autoVerdict === "supported" ? "supported" : "not_supported",
          at: toDate(row.autoVerdictAt).toISOString(),
          ...stats,
        },
      ];
    }),
  );
}
