import type { Db } from "@/lib/db";
import { isUniqueConstraintError } from "@/lib/db";
import {
  decodeRefinementCursor,
  encodeRefinementCursor,
  type EntryScope,
  HarnessConflictError,
  HarnessNotFoundError,
  type NewRefinement,
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
  clampRefinementLimit,
  filterLists,
  type OutcomeVerdict,
  type RefinementErrorInfo,
  type RefinementPatch,
  type RefinementUsage,
  type ReviewDecision,
  wantsImported,
} from "@/lib/harness/spi";

type RefinementRow = NonNullable<Awaited<ReturnType<Db["refinement"]["findUnique"]>>>;
type RefinementWhere = NonNullable<
  NonNullable<Parameters<Db["refinement"]["findMany"]>[0]>["where"]
>;
type RefinementData = Parameters<Db["refinement"]["update"]>[0]["data"];

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
  const { review, approval } = decodeDecision(row.reviewDecision);
  const outcome: OutcomeVerdict | null =
    row.outcomeVerdict === "confirmed" || row.outcomeVerdict === "refuted"
      ? {
          verdict: row.outcomeVerdict,
          note: row.outcomeNote ?? "",
          by: row.outcomeBy ?? "",
          at: (row.outcomeAt ?? row.updatedAt).toISOString(),
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
    harnessVersionBefore: row.harnessVersionBefore,
    harnessVersionAfter: row.harnessVersionAfter,
    model: row.model,
    usage: parseJson<RefinementUsage>(row.usage),
    actorId: row.actorId,
    rollbackOf: row.rollbackOf,
    outcome,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
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

function whereOf(workspaceId: string, filter: RefinementFilter | undefined): RefinementWhere {
  const and: RefinementWhere[] = [{ workspaceId }];
  const { triggers, statuses } = filterLists(filter);
  if (!wantsImported(filter)) and.push({ status: { not: "imported" } });
  if (filter?.scope !== undefined) and.push({ scope: filter.scope });
  if (triggers) and.push({ trigger: { in: [...triggers] } });
  if (statuses) and.push({ status: { in: [...statuses] } });
  if (filter?.chatId !== undefined) and.push({ chatId: filter.chatId });
  if (filter?.visibleToChat !== undefined) {
    and.push({ OR: [{ scope: "global" }, { chatId: filter.visibleToChat }] });
  }
  if (filter?.actorId !== undefined) and.push({ actorId: filter.actorId });
  if (filter?.rollbackOf !== undefined) and.push({ rollbackOf: filter.rollbackOf });
  return { AND: and };
}

/**
 * `RefinementStore` on the `Refinement` table (SQLite or PostgreSQL). Rows with status
 * `imported` are the read-only history `PrismaRefinementHistory` writes; they are left out of
 * every query unless the filter asks for them.
 */
export class PrismaRefinementStore implements RefinementStore {
  constructor(private readonly db: Db) {}

  async createRefinement(options: {
    refinement: NewRefinement;
    abortSignal?: AbortSignal;
  }): Promise<Refinement> {
    options.abortSignal?.throwIfAborted();
    const { refinement } = options;
    const createdAt = new Date(refinement.createdAt);
    try {
      const row = await this.db.refinement.create({
        data: {
          id: refinement.id,
          workspaceId: refinement.workspaceId,
          chatId: refinement.chatId,
          scope: refinement.scope,
          trigger: refinement.trigger,
          status: refinement.status,
          reviewDecision: encodeDecision(refinement.review, refinement.approval),
          summary: refinement.summary,
          rationale: refinement.rationale,
          expectedOutcome: refinement.expectedOutcome,
          instructions: refinement.instructions,
          edits: JSON.stringify(refinement.edits),
          error: refinement.error ? JSON.stringify(refinement.error) : null,
          harnessVersionBefore: refinement.harnessVersionBefore,
          harnessVersionAfter: refinement.harnessVersionAfter,
          model: refinement.model,
          usage: refinement.usage ? JSON.stringify(refinement.usage) : null,
          actorId: refinement.actorId,
          rollbackOf: refinement.rollbackOf,
          ...outcomeColumns(refinement.outcome),
          createdAt,
          updatedAt: createdAt,
        },
      });
      return fromRow(row);
    } catch (error) {
      if (!isUniqueConstraintError(error)) throw error;
      throw new HarnessConflictError({
        surface: "refinement",
        message: `Refinement ${refinement.id} already exists`,
        details: { id: refinement.id },
        cause: error,
      });
    }
  }

  async getRefinement(options: {
    workspaceId: string;
    id: string;
    abortSignal?: AbortSignal;
  }): Promise<Refinement | null> {
    options.abortSignal?.throwIfAborted();
    const row = await this.db.refinement.findFirst({
      where: { id: options.id, workspaceId: options.workspaceId },
    });
    return row ? fromRow(row) : null;
  }

  async listRefinements(options: {
    workspaceId: string;
    filter?: RefinementFilter;
    cursor?: string | null;
    limit?: number;
    abortSignal?: AbortSignal;
  }): Promise<Page<Refinement>> {
    options.abortSignal?.throwIfAborted();
    const limit = clampRefinementLimit(options.limit);
    const after = decodeRefinementCursor(options.cursor);
    const where = whereOf(options.workspaceId, options.filter);
    if (after) {
      const createdAt = new Date(after.createdAt);
      (where.AND as RefinementWhere[]).push({
        OR: [{ createdAt: { lt: createdAt } }, { createdAt, id: { lt: after.id } }],
      });
    }
    const rows = await this.db.refinement.findMany({
      where,
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: limit + 1,
    });
    const items = rows.slice(0, limit).map(fromRow);
    const last = items.at(-1);
    return {
      items,
      nextCursor: rows.length > limit && last ? encodeRefinementCursor(last) : null,
    };
  }

  async updateRefinement(options: {
    workspaceId: string;
    id: string;
    patch: RefinementPatch;
    updatedAt: string;
    expectedStatus?: RefinementStatus;
    abortSignal?: AbortSignal;
  }): Promise<Refinement> {
    options.abortSignal?.throwIfAborted();
    const { patch } = options;
    const data: RefinementData = { updatedAt: new Date(options.updatedAt) };
    if (patch.status !== undefined) data.status = patch.status;
    if (patch.edits !== undefined) data.edits = JSON.stringify(patch.edits);
    if (patch.error !== undefined) data.error = patch.error ? JSON.stringify(patch.error) : null;
    if (patch.harnessVersionBefore !== undefined)
      data.harnessVersionBefore = patch.harnessVersionBefore;
    if (patch.harnessVersionAfter !== undefined)
      data.harnessVersionAfter = patch.harnessVersionAfter;
    if (patch.outcome !== undefined) Object.assign(data, outcomeColumns(patch.outcome));
    if (patch.summary !== undefined) data.summary = patch.summary;
    if (patch.rationale !== undefined) data.rationale = patch.rationale;
    if (patch.expectedOutcome !== undefined) data.expectedOutcome = patch.expectedOutcome;
    if (patch.instructions !== undefined) data.instructions = patch.instructions;
    if (patch.model !== undefined) data.model = patch.model;
    if (patch.usage !== undefined) data.usage = patch.usage ? JSON.stringify(patch.usage) : null;
    return this.db.$transaction(async (tx) => {
      const current = await tx.refinement.findFirst({
        where: { id: options.id, workspaceId: options.workspaceId },
      });
      if (!current) {
        throw new HarnessNotFoundError({
          surface: "refinement",
          message: `No refinement ${options.id}`,
          details: { id: options.id },
        });
      }
      if (patch.approval !== undefined || patch.review !== undefined) {
        const stored = decodeDecision(current.reviewDecision);
        data.reviewDecision = encodeDecision(
          patch.review !== undefined ? patch.review : stored.review,
          patch.approval !== undefined ? patch.approval : stored.approval,
        );
      }
      // The status condition in the write itself makes the compare-and-swap hold across
      // instances, not only inside this transaction.
      const { count } = await tx.refinement.updateMany({
        where: {
          id: options.id,
          workspaceId: options.workspaceId,
          ...(options.expectedStatus !== undefined ? { status: options.expectedStatus } : {}),
        },
        data,
      });
      if (count === 0) {
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
      const row = await tx.refinement.findUniqueOrThrow({ where: { id: options.id } });
      return fromRow(row);
    });
  }

  async getLastReviewAt(options: {
    workspaceId: string;
    chatId?: string;
    abortSignal?: AbortSignal;
  }): Promise<string | null> {
    options.abortSignal?.throwIfAborted();
    const row = await this.db.refinement.findFirst({
      where: {
        workspaceId: options.workspaceId,
        trigger: { in: [...AUTOMATIC_TRIGGERS] },
        ...(options.chatId !== undefined ? { chatId: options.chatId } : {}),
      },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      select: { createdAt: true },
    });
    return row ? row.createdAt.toISOString() : null;
  }
}
