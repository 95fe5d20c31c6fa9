import { HarnessConflictError, HarnessNotFoundError, HarnessValidationError } from "../errors";
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, type EntryScope, type Page } from "../store";
import {
  AUTOMATIC_TRIGGERS,
  type NewRefinement,
  type Refinement,
  type RefinementStatus,
  type RefinementTrigger,
} from "./types";

/** Filters of `listRefinements`. All given filters must match (AND). */
export interface RefinementFilter {
  scope?: EntryScope;
  trigger?: RefinementTrigger | readonly RefinementTrigger[];
  status?: RefinementStatus | readonly RefinementStatus[];
  chatId?: string;
  /** What a chat can see: global refinements plus the local ones of this chat. */
  visibleToChat?: string;
  actorId?: string;
  rollbackOf?: string;
  /**
   * Imported history (status `imported`) is left out unless this is `true` or `status` names
   * `imported` explicitly.
   */
  includeImported?: boolean;
}

/** The fields of a refinement that change after it was recorded. */
export type RefinementPatch = Partial<
  Pick<
    Refinement,
    | "status"
    | "edits"
    | "error"
    | "harnessVersionBefore"
    | "harnessVersionAfter"
    | "approval"
    | "outcome"
    | "review"
    | "summary"
    | "rationale"
    | "expectedOutcome"
    | "instructions"
    | "model"
    | "usage"
  >
>;

/** What `createRefinement` is given. */
export interface CreateRefinementOptions {
  refinement: NewRefinement;
  abortSignal?: AbortSignal;
}

/** What `getRefinement` is given. */
export interface GetRefinementOptions {
  workspaceId: string;
  id: string;
  abortSignal?: AbortSignal;
}

/** What `listRefinements` is given. */
export interface ListRefinementsOptions {
  workspaceId: string;
  filter?: RefinementFilter;
  cursor?: string | null;
  limit?: number;
  abortSignal?: AbortSignal;
}

/** What `updateRefinement` is given. */
export interface UpdateRefinementOptions {
  workspaceId: string;
  id: string;
  patch: RefinementPatch;
  /** ISO 8601 UTC. */
  updatedAt: string;
  expectedStatus?: RefinementStatus;
  abortSignal?: AbortSignal;
}

/** What `getLastReviewAt` is given. */
export interface GetLastReviewAtOptions {
  workspaceId: string;
  chatId?: string;
  abortSignal?: AbortSignal;
}

/**
 * Where refinements are recorded. Every method is scoped to one workspace; nothing of another
 * workspace is read or written. Returned objects are the caller's to keep. Every
 * implementation must pass `runRefinementStoreConformance`.
 */
export interface RefinementStore {
  /**
   * Records a refinement with the given id (`updatedAt` = `createdAt`). Throws
   * `HarnessConflictError` (`conflict:refinement`) if the id is taken.
   */
  createRefinement(options: CreateRefinementOptions): Promise<Refinement>;

  /** The refinement, or `null` when it does not exist in this workspace. */
  getRefinement(options: GetRefinementOptions): Promise<Refinement | null>;

  /**
   * A page of refinements, newest first (`createdAt` desc, then `id` desc). `limit` is 1–500,
   * default 50; `cursor` is the previous page's opaque `nextCursor`.
   */
  listRefinements(options: ListRefinementsOptions): Promise<Page<Refinement>>;

  /**
   * Changes the given fields and sets `updatedAt`. With `expectedStatus`, applies only if the
   * refinement still has that status (else `HarnessConflictError`, nothing changed) — the
   * compare-and-swap that keeps a pending proposal from being approved twice. Throws
   * `HarnessNotFoundError` when missing.
   */
  updateRefinement(options: UpdateRefinementOptions): Promise<Refinement>;

  /**
   * When the review gate last ran: the `createdAt` of the newest refinement with an automatic
   * trigger (whatever its outcome — declined and failed reviews count), in this chat when
   * `chatId` is given, else anywhere in the workspace. `null` when never. Drives the cooldown.
   */
  getLastReviewAt(options: GetLastReviewAtOptions): Promise<string | null>;
}

/**
 * A refinement to record with every result field empty — no review, approval, text, edits,
 * error, versions, model, usage, rollback or outcome — and `instructions` null; `fields` gives
 * who, where and when, and may set any other field.
 */
export function newRefinement(
  fields: Pick<
    NewRefinement,
    "id" | "workspaceId" | "chatId" | "scope" | "trigger" | "status" | "actorId" | "createdAt"
  > &
    Partial<NewRefinement>,
): NewRefinement {
  return {
    review: null,
    approval: null,
    summary: "",
    rationale: "",
    expectedOutcome: "",
    instructions: null,
    edits: [],
    error: null,
    harnessVersionBefore: null,
    harnessVersionAfter: null,
    model: null,
    usage: null,
    rollbackOf: null,
    outcome: null,
    ...fields,
  };
}

/** Clamps a page size to 1–500 (default 50). */
export function clampRefinementLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return DEFAULT_PAGE_SIZE;
  return Math.min(MAX_PAGE_SIZE, Math.max(1, Math.floor(limit)));
}

/** The conflict every store throws when a new refinement's id is taken (`cause`: the driver's error). */
export function refinementIdTaken(id: string, cause?: unknown): HarnessConflictError {
  return new HarnessConflictError({
    surface: "refinement",
    message: `Refinement ${id} already exists`,
    details: { id },
    cause,
  });
}

/**
 * A page of refinements from `rows`, newest first and read one past `limit`: the first `limit`
 * as items, and the cursor after the last one when there were more.
 */
export function refinementPage<Row>(
  rows: readonly Row[],
  limit: number,
  toRefinement: (row: Row) => Refinement,
): Page<Refinement> {
  const items = rows.slice(0, limit).map(toRefinement);
  const last = items.at(-1);
  return {
    items,
    nextCursor: rows.length > limit && last ? encodeRefinementCursor(last) : null,
  };
}

/** Encodes the position after `refinement` in the newest-first order. */
export function encodeRefinementCursor(refinement: Pick<Refinement, "createdAt" | "id">): string {
  return Buffer.from(JSON.stringify([refinement.createdAt, refinement.id])).toString("base64url");
}

/** Decodes a cursor (`null` for none). Throws `HarnessValidationError` for an unreadable one. */
export function decodeRefinementCursor(
  cursor: string | null | undefined,
): { createdAt: string; id: string } | null {
  if (!cursor) return null;
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      typeof value[0] === "string" &&
      typeof value[1] === "string"
    ) {
      return { createdAt: value[0], id: value[1] };
    }
  } catch {
    // reported below
  }
  throw new HarnessValidationError({
    surface: "cursor",
    message: "Invalid pagination cursor",
    details: { cursor },
  });
}

function asList<T>(value: T | readonly T[] | undefined): readonly T[] | undefined {
  if (value === undefined) return undefined;
  return Array.isArray(value) ? (value as readonly T[]) : [value as T];
}

/** Whether imported rows are wanted by a filter. */
export function wantsImported(filter: RefinementFilter | undefined): boolean {
  return (
    filter?.includeImported === true || (asList(filter?.status)?.includes("imported") ?? false)
  );
}

/** The filter's `trigger` and `status` as lists (undefined = any). */
export function filterLists(filter: RefinementFilter | undefined): {
  triggers?: readonly RefinementTrigger[];
  statuses?: readonly RefinementStatus[];
} {
  return { triggers: asList(filter?.trigger), statuses: asList(filter?.status) };
}

function matches(refinement: Refinement, filter: RefinementFilter | undefined): boolean {
  if (!wantsImported(filter) && refinement.status === "imported") return false;
  if (!filter) return true;
  const { triggers, statuses } = filterLists(filter);
  if (filter.scope !== undefined && refinement.scope !== filter.scope) return false;
  if (triggers && !triggers.includes(refinement.trigger)) return false;
  if (statuses && !statuses.includes(refinement.status)) return false;
  if (filter.chatId !== undefined && refinement.chatId !== filter.chatId) return false;
  if (
    filter.visibleToChat !== undefined &&
    refinement.scope !== "global" &&
    refinement.chatId !== filter.visibleToChat
  )
    return false;
  if (filter.actorId !== undefined && refinement.actorId !== filter.actorId) return false;
  if (filter.rollbackOf !== undefined && refinement.rollbackOf !== filter.rollbackOf) return false;
  return true;
}

function newestFirst(a: Refinement, b: Refinement): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/** The reference `RefinementStore`, in memory. For tests and hosts without a database. */
export class InMemoryRefinementStore implements RefinementStore {
  private readonly rows = new Map<string, Refinement>();

  private key(workspaceId: string, id: string): string {
    return `${workspaceId}\u0000${id}`;
  }

  async createRefinement(options: CreateRefinementOptions): Promise<Refinement> {
    options.abortSignal?.throwIfAborted();
    const { refinement } = options;
    const key = this.key(refinement.workspaceId, refinement.id);
    if (this.rows.has(key)) {
      throw refinementIdTaken(refinement.id);
    }
    const row: Refinement = structuredClone({ ...refinement, updatedAt: refinement.createdAt });
    this.rows.set(key, row);
    return structuredClone(row);
  }

  async getRefinement(options: GetRefinementOptions): Promise<Refinement | null> {
    options.abortSignal?.throwIfAborted();
    const row = this.rows.get(this.key(options.workspaceId, options.id));
    return row ? structuredClone(row) : null;
  }

  async listRefinements(options: ListRefinementsOptions): Promise<Page<Refinement>> {
    options.abortSignal?.throwIfAborted();
    const limit = clampRefinementLimit(options.limit);
    const after = decodeRefinementCursor(options.cursor);
    const all = [...this.rows.values()]
      .filter((row) => row.workspaceId === options.workspaceId && matches(row, options.filter))
      .sort(newestFirst)
      .filter(
        (row) =>
          !after ||
          row.createdAt < after.createdAt ||
          (row.createdAt === after.createdAt && row.id < after.id),
      );
    return refinementPage(all, limit, (row) => structuredClone(row));
  }

  async updateRefinement(options: UpdateRefinementOptions): Promise<Refinement> {
    options.abortSignal?.throwIfAborted();
    const key = this.key(options.workspaceId, options.id);
    const row = this.rows.get(key);
    if (!row) {
      throw new HarnessNotFoundError({
        surface: "refinement",
        message: `No refinement ${options.id}`,
        details: { id: options.id },
      });
    }
    if (options.expectedStatus !== undefined && row.status !== options.expectedStatus) {
      throw new HarnessConflictError({
        surface: "refinement",
        message: `Refinement ${options.id} is ${row.status}, not ${options.expectedStatus}`,
        details: { id: options.id, status: row.status, expectedStatus: options.expectedStatus },
      });
    }
    const patch = Object.fromEntries(
      Object.entries(options.patch).filter(([, value]) => value !== undefined),
    );
    const next: Refinement = structuredClone({ ...row, ...patch, updatedAt: options.updatedAt });
    this.rows.set(key, next);
    return structuredClone(next);
  }

  async getLastReviewAt(options: GetLastReviewAtOptions): Promise<string | null> {
    options.abortSignal?.throwIfAborted();
    let latest: string | null = null;
    for (const row of this.rows.values()) {
      if (row.workspaceId !== options.workspaceId) continue;
      if (!(AUTOMATIC_TRIGGERS as readonly string[]).includes(row.trigger)) continue;
      if (options.chatId !== undefined && row.chatId !== options.chatId) continue;
      if (latest === null || row.createdAt > latest) latest = row.createdAt;
    }
    return latest;
  }
}
