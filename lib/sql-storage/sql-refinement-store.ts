import { recordAuditEvent } from "@/lib/audit";
import {
  decodeRefinementCursor,
  type EntryScope,
  HarnessConflictError,
  HarnessNotFoundError,
  type Page,
  type RecordedEdit,
  type Refinement,
  type RefinementFilter,
  type RefinementStatus,
  type RefinementStore,
  type RefinementTrigger,
} from "@/lib/harness";
import {
  type ApprovalDecision,
  AUTOMATIC_TRIGGERS,
  type CreateRefinementOptions,
  type GetLastReviewAtOptions,
  type GetRefinementOptions,
  type ListRefinementsOptions,
  type UpdateRefinementOptions,
  clampRefinementLimit,
  filterLists,
  refinementIdTaken,
  refinementPage,
  type OutcomeVerdict,
  type RefinementErrorInfo,
  type RefinementUsage,
  type ReviewDecision,
  wantsImported,
} from "@/lib/harness/spi";
import {
  isUniqueViolation,
  placeholders,
  toDate,
  toDateOrNull,
  type Sql,
  type SqlExecutor,
  type SqlValue,
} from "./sql";

/** A `Refinement` row as the drivers return it. */
export interface RefinementRow {
  id: string;
  workspaceId: string;
  chatId: string | null;
  scope: string;
  trigger: string;
  status: string;
  reviewDecision: string | null;
  summary: string;
  rationale: string;
  expectedOutcome: string;
  instructions: string | null;
  edits: string;
  error: string | null;
  harnessVersionBefore: number | null;
  harnessVersionAfter: number | null;
  model: string | null;
  usage: string | null;
  actorId: string | null;
  rollbackOf: string | null;
  outcomeVerdict: string | null;
  outcomeNote: string | null;
  outcomeBy: string | null;
  outcomeAt: unknown;
  createdAt: unknown;
  updatedAt: unknown;
}

/** Every column but the imported history's `externalKey` and `payload`. */
const COLUMNS = `"id", "workspaceId", "chatId", "scope", "trigger", "status", "reviewDecision", "summary", "rationale", "expectedOutcome", "instructions", "edits", "error", "harnessVersionBefore", "harnessVersionAfter", "model", "usage", "actorId", "rollbackOf", "outcomeVerdict", "outcomeNote", "outcomeBy", "outcomeAt", "createdAt", "updatedAt"`;

/**
 * The `reviewDecision` column holds the review gate's decision and, for proposals made in
 * approval mode, the approval decision under `approval` (the table has no column of its own
 * for it).
 */
interface StoredDecision extends Partial<ReviewDecision> {
  approval?: ApprovalDecision;
}

function parseJson<T>(text: string | null): T | null {
  if (text === null || text === "") return null;
  try {
    return JSON.parse(text) as T;
  } catch {
    return null;
  }
}

function encodeDecision(
  review: ReviewDecision | null,
  approval: ApprovalDecision | null,
): string | null {
  if (!review && !approval) return null;
  const stored: StoredDecision = { ...review, ...(approval ? { approval } : {}) };
  return JSON.stringify(stored);
}

function decodeDecision(text: string | null): {
  review: ReviewDecision | null;
  approval: ApprovalDecision | null;
} {
  const stored = parseJson<StoredDecision>(text);
  if (!stored || typeof stored !== "object") return { review: null, approval: null };
  const { approval, ...rest } = stored;
  const review: ReviewDecision | null =
    typeof rest.shouldRefine === "boolean"
      ? {
          shouldRefine: rest.shouldRefine,
          rationale: typeof rest.rationale === "string" ? rest.rationale : "",
          ...(typeof rest.instructions === "string" ? { instructions: rest.instructions } : {}),
        }
      : null;
  return { review, approval: approval ?? null };
}

/** `error` is JSON `{ code, message, details? }`; a plain string (older rows) is kept as the message. */
function decodeError(text: string | null): RefinementErrorInfo | null {
  if (text === null) return null;
  const parsed = parseJson<RefinementErrorInfo>(text);
  if (parsed && typeof parsed === "object" && typeof parsed.code === "string") return parsed;
  return { code: "refine:error", message: text };
}

function fromRow(row: RefinementRow): Refinement {
  const updatedAt = toDate(row.updatedAt);
  const { review, approval } = decodeDecision(row.reviewDecision);
  const outcome: OutcomeVerdict | null =
    row.outcomeVerdict === "confirmed" || row.outcomeVerdict === "refuted"
      ? {
          verdict: row.outcomeVerdict,
          note: row.outcomeNote ?? "",
          by: row.outcomeBy ?? "",
          at: (toDateOrNull(row.outcomeAt) ?? updatedAt).toISOString(),
        }
      : null;
  return {
    id: row.id,
    workspaceId: row.workspaceId,
    chatId: row.chatId,
    scope: row.scope as EntryScope,
    trigger: row.trigger as RefinementTrigger,
    status: row.status as RefinementStatus,
    review,
    approval,
    summary: row.summary,
    rationale: row.rationale,
    expectedOutcome: row.expectedOutcome,
    instructions: row.instructions,
    edits: parseJson<RecordedEdit[]>(row.edits) ?? [],
    error: decodeError(row.error),
    harnessVersionBefore:
      row.harnessVersionBefore === null ? null : Number(row.harnessVersionBefore),
    harnessVersionAfter: row.harnessVersionAfter === null ? null : Number(row.harnessVersionAfter),
    model: row.model,
    usage: parseJson<RefinementUsage>(row.usage),
    actorId: row.actorId,
    rollbackOf: row.rollbackOf,
    outcome,
    createdAt: toDate(row.createdAt).toISOString(),
    updatedAt: updatedAt.toISOString(),
  };
}

function outcomeColumns(outcome: OutcomeVerdict | null) {
  return {
    outcomeVerdict: outcome?.verdict ?? null,
    outcomeNote: outcome?.note ?? null,
    outcomeBy: outcome?.by ?? null,
    outcomeAt: outcome ? new Date(outcome.at) : null,
  };
}

function whereOf(
  workspaceId: string,
  filter: RefinementFilter | undefined,
): { where: string[]; parameters: SqlValue[] } {
  const where = [`"workspaceId" = ?`];
  const parameters: SqlValue[] = [workspaceId];
  const { triggers, statuses } = filterLists(filter);
  if (!wantsImported(filter)) where.push(`"status" <> 'imported'`);
  if (filter?.scope !== undefined) {
    where.push(`"scope" = ?`);
    parameters.push(filter.scope);
  }
  if (triggers) {
    where.push(`"trigger" IN (${placeholders(triggers.length)})`);
    parameters.push(...triggers);
  }
  if (statuses) {
    where.push(`"status" IN (${placeholders(statuses.length)})`);
    parameters.push(...statuses);
  }
  if (filter?.chatId !== undefined) {
    where.push(`"chatId" = ?`);
    parameters.push(filter.chatId);
  }
  if (filter?.visibleToChat !== undefined) {
    where.push(`("scope" = 'global' OR "chatId" = ?)`);
    parameters.push(filter.visibleToChat);
  }
  if (filter?.actorId !== undefined) {
    where.push(`"actorId" = ?`);
    parameters.push(filter.actorId);
  }
  if (filter?.rollbackOf !== undefined) {
    where.push(`"rollbackOf" = ?`);
    parameters.push(filter.rollbackOf);
  }
  return { where, parameters };
}

const APPLIED = new Set(["applied", "partial"]);

/**
 * The audit log's part of a refinement write, in its transaction: applied (or a rollback /
 * restore applied) once it reaches `applied`/`partial` from another status, approved or
 * rejected when a person decided a pending one.
 */
async function auditRefinement(
  tx: SqlExecutor,
  refinement: Refinement,
  previousStatus: string | null,
): Promise<void> {
  const base = {
    workspaceId: refinement.workspaceId,
    target: { type: "refinement" as const, id: refinement.id },
  };
  const approval = refinement.approval;
  if (previousStatus === "pending" && approval && refinement.status !== "pending") {
    await recordAuditEvent(tx, {
      ...base,
      actorId: approval.by,
      kind: approval.decision === "approved" ? "refinement.approved" : "refinement.rejected",
      details: {
        scope: refinement.scope,
        summary: refinement.summary,
        ...(approval.note ? { note: approval.note } : {}),
      },
      via: "web",
    });
  }
  if (APPLIED.has(refinement.status) && !(previousStatus && APPLIED.has(previousStatus))) {
    const rollback = refinement.trigger === "rollback" || refinement.trigger === "restore";
    await recordAuditEvent(tx, {
      ...base,
      actorId: refinement.actorId,
      kind: rollback ? "refinement.rolled_back" : "refinement.applied",
      details: {
        scope: refinement.scope,
        trigger: refinement.trigger,
        status: refinement.status,
        summary: refinement.summary,
        harnessVersionAfter: refinement.harnessVersionAfter,
        ...(refinement.rollbackOf ? { rollbackOf: refinement.rollbackOf } : {}),
      },
      via: rollback || refinement.trigger === "explicit" ? "web" : "job",
    });
  }
}

/**
 * `RefinementStore` on the `Refinement` table (SQLite or PostgreSQL, the SQL layer). Rows with
 * status `imported` are the read-only history `SqlRefinementHistory` writes; they are left out
 * of every query unless the filter asks for them.
 */
export class SqlRefinementStore implements RefinementStore {
  constructor(private readonly sql: Sql) {}

  async createRefinement(options: CreateRefinementOptions): Promise<Refinement> {
    options.abortSignal?.throwIfAborted();
    const { refinement } = options;
    const createdAt = new Date(refinement.createdAt);
    const outcome = outcomeColumns(refinement.outcome);
    try {
      const insert = (executor: SqlExecutor) =>
        executor.get<RefinementRow>(
          `INSERT INTO "Refinement" (${COLUMNS})
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         RETURNING ${COLUMNS}`,
          [
            refinement.id,
            refinement.workspaceId,
            refinement.chatId,
            refinement.scope,
            refinement.trigger,
            refinement.status,
            encodeDecision(refinement.review, refinement.approval),
            refinement.summary,
            refinement.rationale,
            refinement.expectedOutcome,
            refinement.instructions,
            JSON.stringify(refinement.edits),
            refinement.error ? JSON.stringify(refinement.error) : null,
            refinement.harnessVersionBefore,
            refinement.harnessVersionAfter,
            refinement.model,
            refinement.usage ? JSON.stringify(refinement.usage) : null,
            refinement.actorId,
            refinement.rollbackOf,
            outcome.outcomeVerdict,
            outcome.outcomeNote,
            outcome.outcomeBy,
            outcome.outcomeAt,
            createdAt,
            createdAt,
          ],
        );
      // An applied refinement or rollback is audited with its row, in one transaction; a queued
      // or pending one (the chat turn's automatic trigger) stays one statement.
      const row = APPLIED.has(refinement.status)
        ? await this.sql.transaction(async (tx) => {
            const inserted = await insert(tx);
            await auditRefinement(tx, fromRow(inserted!), null);
            return inserted;
          })
        : await insert(this.sql);
      return fromRow(row!);
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      throw refinementIdTaken(refinement.id, error);
    }
  }

  async getRefinement(options: GetRefinementOptions): Promise<Refinement | null> {
    options.abortSignal?.throwIfAborted();
    const row = await this.sql.get<RefinementRow>(
      `SELECT ${COLUMNS} FROM "Refinement" WHERE "id" = ? AND "workspaceId" = ?`,
      [options.id, options.workspaceId],
    );
    return row ? fromRow(row) : null;
  }

  async listRefinements(options: ListRefinementsOptions): Promise<Page<Refinement>> {
    return this.listWhere(options, null);
  }

  /**
   * `listRefinements` narrowed to what one person may see: global refinements plus the local
   * ones of chats that person owns (in the workspace), in one statement — however many chats
   * they have (issue 31: the timeline ran one query per chat). Not part of the core's port:
   * chats and their owners are the app's tables.
   */
  async listRefinementsVisibleTo(
    options: ListRefinementsOptions & { userId: string },
  ): Promise<Page<Refinement>> {
    return this.listWhere(options, options.userId);
  }

  private async listWhere(
    options: ListRefinementsOptions,
    ownerId: string | null,
  ): Promise<Page<Refinement>> {
    options.abortSignal?.throwIfAborted();
    const limit = clampRefinementLimit(options.limit);
    const after = decodeRefinementCursor(options.cursor);
    const { where, parameters } = whereOf(options.workspaceId, options.filter);
    if (ownerId !== null) {
      where.push(`("scope" = 'global' OR EXISTS (SELECT 1 FROM "Chat" AS c
        WHERE c."id" = "Refinement"."chatId" AND c."workspaceId" = ? AND c."userId" = ?))`);
      parameters.push(options.workspaceId, ownerId);
    }
    if (after) {
      const createdAt = new Date(after.createdAt);
      where.push(`("createdAt" < ? OR ("createdAt" = ? AND "id" < ?))`);
      parameters.push(createdAt, createdAt, after.id);
    }
    const rows = await this.sql.all<RefinementRow>(
      `SELECT ${COLUMNS} FROM "Refinement" WHERE ${where.join(" AND ")}
       ORDER BY "createdAt" DESC, "id" DESC LIMIT ?`,
      [...parameters, limit + 1],
    );
    return refinementPage(rows, limit, fromRow);
  }

  async updateRefinement(options: UpdateRefinementOptions): Promise<Refinement> {
    options.abortSignal?.throwIfAborted();
    const { patch } = options;
    const columns: Record<string, SqlValue> = { updatedAt: new Date(options.updatedAt) };
    if (patch.status !== undefined) columns.status = patch.status;
    if (patch.edits !== undefined) columns.edits = JSON.stringify(patch.edits);
    if (patch.error !== undefined) columns.error = patch.error ? JSON.stringify(patch.error) : null;
    if (patch.harnessVersionBefore !== undefined)
      columns.harnessVersionBefore = patch.harnessVersionBefore;
    if (patch.harnessVersionAfter !== undefined)
      columns.harnessVersionAfter = patch.harnessVersionAfter;
    if (patch.outcome !== undefined) Object.assign(columns, outcomeColumns(patch.outcome));
    if (patch.summary !== undefined) columns.summary = patch.summary;
    if (patch.rationale !== undefined) columns.rationale = patch.rationale;
    if (patch.expectedOutcome !== undefined) columns.expectedOutcome = patch.expectedOutcome;
    if (patch.instructions !== undefined) columns.instructions = patch.instructions;
    if (patch.model !== undefined) columns.model = patch.model;
    if (patch.usage !== undefined) columns.usage = patch.usage ? JSON.stringify(patch.usage) : null;
    return this.sql.transaction(async (tx) => {
      const current = await tx.get<RefinementRow>(
        `SELECT ${COLUMNS} FROM "Refinement" WHERE "id" = ? AND "workspaceId" = ?`,
        [options.id, options.workspaceId],
      );
      if (!current) {
        throw new HarnessNotFoundError({
          surface: "refinement",
          message: `No refinement ${options.id}`,
          details: { id: options.id },
        });
      }
      if (patch.approval !== undefined || patch.review !== undefined) {
        const stored = decodeDecision(current.reviewDecision);
        columns.reviewDecision = encodeDecision(
          patch.review !== undefined ? patch.review : stored.review,
          patch.approval !== undefined ? patch.approval : stored.approval,
        );
      }
      // The status condition in the write itself makes the compare-and-swap hold across
      // instances, not only inside this transaction.
      const names = Object.keys(columns);
      const row = await tx.get<RefinementRow>(
        `UPDATE "Refinement" SET ${names.map((name) => `"${name}" = ?`).join(", ")}
         WHERE "id" = ? AND "workspaceId" = ?${options.expectedStatus !== undefined ? ` AND "status" = ?` : ""}
         RETURNING ${COLUMNS}`,
        [
          ...names.map((name) => columns[name]),
          options.id,
          options.workspaceId,
          ...(options.expectedStatus !== undefined ? [options.expectedStatus] : []),
        ],
      );
      if (!row) {
        throw new HarnessConflictError({
          surface: "refinement",
          message: `Refinement ${options.id} is ${current.status}, not ${String(options.expectedStatus)}`,
          details: {
            id: options.id,
            status: current.status,
            expectedStatus: options.expectedStatus,
          },
        });
      }
      const updated = fromRow(row);
      await auditRefinement(tx, updated, current.status);
      return updated;
    });
  }

  async getLastReviewAt(options: GetLastReviewAtOptions): Promise<string | null> {
    options.abortSignal?.throwIfAborted();
    const row = await this.sql.get<{ createdAt: unknown }>(
      `SELECT "createdAt" FROM "Refinement"
       WHERE "workspaceId" = ? AND "trigger" IN (${placeholders(AUTOMATIC_TRIGGERS.length)})
       ${options.chatId !== undefined ? `AND "chatId" = ?` : ""}
       ORDER BY "createdAt" DESC, "id" DESC LIMIT 1`,
      [
        options.workspaceId,
        ...AUTOMATIC_TRIGGERS,
        ...(options.chatId !== undefined ? [options.chatId] : []),
      ],
    );
    return row ? toDate(row.createdAt).toISOString() : null;
  }

  /**
   * What the automatic review of a chat needs after each turn, in one statement: when the
   * chat's last automatic review was (`getLastReviewAt` with a `chatId`), and how many of the
   * chat's turns completed after it (all of them when there was none). The app's extension,
   * not part of the `RefinementStore` port: it reads the app's `Turn` rows.
   */
  async getChatReviewProgress(options: {
    workspaceId: string;
    chatId: string;
    abortSignal?: AbortSignal;
  }): Promise<{ lastReviewAt: string | null; turnsSince: number }> {
    options.abortSignal?.throwIfAborted();
    // Both times are written the same way (the SQL layer's and Prisma's format), so they
    // compare as they are; MAX is the latest, as getLastReviewAt's ORDER BY … LIMIT 1.
    const row = await this.sql.get<{ lastReviewAt: unknown; turns: number | bigint }>(
      `SELECT r."createdAt" AS "lastReviewAt",
         (SELECT COUNT(*) FROM "Turn" t WHERE t."chatId" = ? AND t."status" = 'completed'
            AND (r."createdAt" IS NULL OR t."startedAt" > r."createdAt")) AS "turns"
       FROM (SELECT MAX("createdAt") AS "createdAt" FROM "Refinement"
             WHERE "workspaceId" = ? AND "trigger" IN (${placeholders(AUTOMATIC_TRIGGERS.length)})
               AND "chatId" = ?) r`,
      [options.chatId, options.workspaceId, ...AUTOMATIC_TRIGGERS, options.chatId],
    );
    return {
      lastReviewAt: toDateOrNull(row?.lastReviewAt)?.toISOString() ?? null,
      turnsSince: Number(row?.turns ?? 0),
    };
  }
}
