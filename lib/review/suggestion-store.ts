import { randomUUID } from "node:crypto";
import {
  HarnessValidationError,
  type Actor,
  type ChangeSet,
  type DirCursor,
  type EntryKind,
  type FileContent,
  type GlobalEntryProposal,
} from "@/lib/harness";
import { recordAuditEvent, recordSuggestionDecided, type AuditVia } from "@/lib/audit";
import { toDate, toDateOrNull, type Sql, type SqlExecutor } from "@/lib/sql-storage/sql";

// The review queue's rows (`Suggestion`, docs/review.md): what was proposed, by whom, why and
// from where, and how it was decided. Stored in the database beside what they change, never in
// the dirs or the harness themselves (decision 0056): a suggestion is not knowledge yet.

/** What a suggestion changes. */
export type SuggestionTarget = "dir" | "entry";
/** Where it was made: an agent's turn, MCP, the Files editor, an entry's page, a promotion. */
export type SuggestionSource = "turn" | "mcp" | "editor" | "entry-page" | "promotion";
/** `applying` is a short claim while an approval is being applied (one approver at a time). */
export type SuggestionStatus = "open" | "applying" | "approved" | "rejected";

/** A file's content as a suggestion keeps it: text, or bytes as base64. */
export type StoredContent = string | { base64: string };

/** A proposed change to a persistent dir: the change set and the base it was made against. */
export interface DirProposal {
  changes: {
    created: { path: string; content: StoredContent }[];
    updated: { path: string; content: StoredContent }[];
    deleted: string[];
  };
  /** Each changed path's content at `baseCursor` (`null`: it did not exist). */
  base: Record<string, StoredContent | null>;
  baseCursor: DirCursor;
}

/** The fields of an entry a proposal sets (absent: unchanged). */
export type EntryProposalFields = Omit<
  GlobalEntryProposal,
  "action" | "kind" | "id" | "expectedVersion" | "reason"
>;

/** A proposed change to a global harness entry, against the version it was based on. */
export interface EntryProposal {
  action: "create" | "update" | "delete";
  kind: EntryKind;
  /** The entry's id (update, delete; a create may name the id it wants). */
  id?: string;
  /** The global entry's version the proposal was made against (`null`: a new entry). */
  baseVersion: number | null;
  fields: EntryProposalFields;
  /** What the entry held at `baseVersion`, for the diff (`null`: it did not exist). */
  base: { title: string; content: string } | null;
}

/** One suggestion as the review queue shows it. */
export interface SuggestionView {
  id: string;
  workspaceId: string;
  authorId: string;
  authorName: string | null;
  target: SuggestionTarget;
  source: SuggestionSource;
  status: SuggestionStatus;
  title: string;
  note: string;
  harnessDir: string | null;
  dir: DirProposal | null;
  entry: EntryProposal | null;
  chatId: string | null;
  turnId: string | null;
  via: string | null;
  createdAt: Date;
  updatedAt: Date;
  decidedById: string | null;
  decidedByName: string | null;
  decidedAt: Date | null;
  decisionNote: string | null;
  applied: Record<string, unknown> | null;
}

interface SuggestionRow {
  id: string;
  workspaceId: string;
  authorId: string;
  authorName: string | null;
  target: string;
  source: string;
  status: string;
  title: string;
  note: string;
  harnessDir: string | null;
  payload: string;
  chatId: string | null;
  turnId: string | null;
  via: string | null;
  createdAt: unknown;
  updatedAt: unknown;
  decidedById: string | null;
  decidedByName: string | null;
  decidedAt: unknown;
  decisionNote: string | null;
  applied: string | null;
}

const SELECT = `SELECT s."id", s."workspaceId", s."authorId", a."name" AS "authorName", s."target",
  s."source", s."status", s."title", s."note", s."harnessDir", s."payload", s."chatId",
  s."turnId", s."via", s."createdAt", s."updatedAt", s."decidedById", d."name" AS "decidedByName",
  s."decidedAt", s."decisionNote", s."applied"
  FROM "Suggestion" s
  LEFT JOIN "User" a ON a."id" = s."authorId"
  LEFT JOIN "User" d ON d."id" = s."decidedById"`;

/** An `applying` claim older than this is treated as open again (its approver's process died). */
export const APPLYING_CLAIM_MS = 5 * 60 * 1000;

function viewOf(row: SuggestionRow): SuggestionView {
  const payload = JSON.parse(row.payload) as DirProposal | EntryProposal;
  const target = row.target as SuggestionTarget;
  return {
    id: row.id,
    workspaceId: row.workspaceId,
    authorId: row.authorId,
    authorName: row.authorName,
    target,
    source: row.source as SuggestionSource,
    status: row.status as SuggestionStatus,
    title: row.title,
    note: row.note,
    harnessDir: row.harnessDir,
    dir: target === "dir" ? (payload as DirProposal) : null,
    entry: target === "entry" ? (payload as EntryProposal) : null,
    chatId: row.chatId,
    turnId: row.turnId,
    via: row.via,
    createdAt: toDate(row.createdAt),
    updatedAt: toDate(row.updatedAt),
    decidedById: row.decidedById,
    decidedByName: row.decidedByName,
    decidedAt: toDateOrNull(row.decidedAt),
    decisionNote: row.decisionNote,
    applied: row.applied === null ? null : (JSON.parse(row.applied) as Record<string, unknown>),
  };
}

/** A content as a suggestion stores it. */
export function storedContent(content: FileContent): StoredContent {
  return typeof content === "string"
    ? content
    : { base64: Buffer.from(content).toString("base64") };
}

/** A stored content back as a file's content. */
export function fileContentOf(content: StoredContent): FileContent {
  return typeof content === "string"
    ? content
    : new Uint8Array(Buffer.from(content.base64, "base64"));
}

/** The text of a stored content, or `null` for bytes (the diff shows "binary"). */
export function textOf(content: StoredContent | null | undefined): string | null {
  return typeof content === "string" ? content : null;
}

/** A change set and its base as a suggestion stores them. */
export function dirProposalOf(options: {
  changes: ChangeSet;
  base: Record<string, FileContent | null>;
  baseCursor: DirCursor;
}): DirProposal {
  return {
    changes: {
      created: options.changes.created.map((f) => ({
        path: f.path,
        content: storedContent(f.content),
      })),
      updated: options.changes.updated.map((f) => ({
        path: f.path,
        content: storedContent(f.content),
      })),
      deleted: [...options.changes.deleted],
    },
    base: Object.fromEntries(
      Object.entries(options.base).map(([path, content]) => [
        path,
        content === null ? null : storedContent(content),
      ]),
    ),
    baseCursor: options.baseCursor,
  };
}

/** The paths a dir proposal touches, in a stable order. */
export function proposalPaths(proposal: DirProposal): string[] {
  return [
    ...proposal.changes.created.map((f) => f.path),
    ...proposal.changes.updated.map((f) => f.path),
    ...proposal.changes.deleted,
  ].sort();
}

function titleOfDir(harnessDir: string, proposal: DirProposal): string {
  const paths = proposalPaths(proposal);
  const first = paths[0] ?? "";
  const more = paths.length > 1 ? ` and ${paths.length - 1} more` : "";
  return `${harnessDir}/${first}${more}`;
}

function titleOfEntry(proposal: EntryProposal): string {
  const name =
    proposal.fields.title ?? proposal.fields.name ?? proposal.base?.title ?? proposal.id ?? "";
  const verb =
    proposal.action === "create" ? "New" : proposal.action === "update" ? "Change" : "Delete";
  return `${verb} global ${proposal.kind}: ${name}`.slice(0, 200);
}

/** What `createSuggestion` records. */
export interface NewSuggestion {
  actor: Pick<Actor, "userId" | "workspaceId">;
  source: SuggestionSource;
  note?: string;
  chatId?: string | null;
  turnId?: string | null;
  via?: string | null;
  /** A stable id (e.g. a turn's `turn:<turnId>:<dir>`): recording it twice keeps one row. */
  id?: string;
  now?: Date;
  proposal:
    | { target: "dir"; harnessDir: string; dir: DirProposal }
    | { target: "entry"; entry: EntryProposal };
}

const MAX_NOTE = 4000;

/**
 * Records a suggestion, `open`. Idempotent under a given `id` (a turn's commit that runs twice
 * — a retry after a crash — records it once). Returns its id.
 */
export async function createSuggestion(
  sql: Sql,
  suggestion: NewSuggestion,
): Promise<{ id: string }> {
  const id = suggestion.id ?? randomUUID();
  const now = suggestion.now ?? new Date();
  const { proposal } = suggestion;
  if (proposal.target === "dir" && proposalPaths(proposal.dir).length === 0) {
    throw new HarnessValidationError({
      surface: "suggestion",
      message: "A suggestion needs at least one changed file.",
    });
  }
  const title =
    proposal.target === "dir"
      ? titleOfDir(proposal.harnessDir, proposal.dir)
      : titleOfEntry(proposal.entry);
  await sql.transaction(async (tx) => {
    const { changes } = await tx.run(
      `INSERT INTO "Suggestion" ("id", "workspaceId", "authorId", "target", "source", "status",
       "title", "note", "harnessDir", "payload", "chatId", "turnId", "via", "createdAt", "updatedAt")
     VALUES (?, ?, ?, ?, ?, 'open', ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT ("id") DO NOTHING`,
      [
        id,
        suggestion.actor.workspaceId,
        suggestion.actor.userId,
        proposal.target,
        suggestion.source,
        title,
        (suggestion.note ?? "").slice(0, MAX_NOTE),
        proposal.target === "dir" ? proposal.harnessDir : null,
        JSON.stringify(proposal.target === "dir" ? proposal.dir : proposal.entry),
        suggestion.chatId ?? null,
        suggestion.turnId ?? null,
        suggestion.via ?? null,
        now,
        now,
      ],
    );
    // In the suggestion's own transaction: recorded once, with it or not at all.
    if (changes === 1) {
      await recordAuditEvent(tx, {
        workspaceId: suggestion.actor.workspaceId,
        actorId: suggestion.actor.userId,
        kind: "suggestion.created",
        target: { type: "suggestion", id },
        details: { title, source: suggestion.source },
        via: auditViaOf(suggestion.source, suggestion.via ?? null),
        at: now,
      });
    }
  });
  return { id };
}

/** The audit log's door for a suggestion made from `source`. */
function auditViaOf(source: SuggestionSource, via: string | null): AuditVia {
  if (via?.startsWith("mcp:")) return via as AuditVia;
  if (source === "mcp") return "mcp:unknown";
  return source === "turn" ? "chat" : "web";
}

/** One suggestion of the workspace, or `null`. */
export async function getSuggestion(
  sql: Sql | SqlExecutor,
  options: { workspaceId: string; id: string },
): Promise<SuggestionView | null> {
  const row = await sql.get<SuggestionRow>(`${SELECT} WHERE s."workspaceId" = ? AND s."id" = ?`, [
    options.workspaceId,
    options.id,
  ]);
  return row ? viewOf(row) : null;
}

/**
 * Suggestions of the workspace, newest first: `open` (and stale `applying` claims) or decided
 * ones; `authorId` narrows to one person's (a member sees only their own).
 */
export async function listSuggestions(
  sql: Sql,
  options: {
    workspaceId: string;
    status: "open" | "decided";
    authorId?: string;
    limit?: number;
  },
): Promise<SuggestionView[]> {
  const params: (string | number)[] = [options.workspaceId];
  let where = `s."workspaceId" = ?`;
  where +=
    options.status === "open"
      ? ` AND s."status" IN ('open', 'applying')`
      : ` AND s."status" IN ('approved', 'rejected')`;
  if (options.authorId) {
    where += ` AND s."authorId" = ?`;
    params.push(options.authorId);
  }
  params.push(Math.min(Math.max(options.limit ?? 50, 1), 200));
  const rows = await sql.all<SuggestionRow>(
    `${SELECT} WHERE ${where} ORDER BY s."${options.status === "open" ? "createdAt" : "updatedAt"}" DESC LIMIT ?`,
    params,
  );
  return rows.map(viewOf);
}

/** How many suggestions of the workspace wait for review. */
export async function countOpenSuggestions(
  sql: Sql,
  options: { workspaceId: string },
): Promise<number> {
  const row = await sql.get<{ n: number | bigint }>(
    `SELECT COUNT(*) AS "n" FROM "Suggestion" WHERE "workspaceId" = ? AND "status" IN ('open', 'applying')`,
    [options.workspaceId],
  );
  return Number(row?.n ?? 0);
}

/**
 * Claims an open suggestion for applying (`open` → `applying`, or an `applying` claim older than
 * `APPLYING_CLAIM_MS`): only one approver applies it. `false` when it was decided or claimed.
 */
export async function claimSuggestion(
  sql: Sql,
  options: { workspaceId: string; id: string; now?: Date },
): Promise<boolean> {
  const now = options.now ?? new Date();
  const stale = new Date(now.getTime() - APPLYING_CLAIM_MS);
  const { changes } = await sql.run(
    `UPDATE "Suggestion" SET "status" = 'applying', "updatedAt" = ?
     WHERE "workspaceId" = ? AND "id" = ?
       AND ("status" = 'open' OR ("status" = 'applying' AND "updatedAt" < ?))`,
    [now, options.workspaceId, options.id, stale],
  );
  return changes === 1;
}

/** Gives a claim back (the approval did not apply: a conflict, a failure). */
export async function releaseSuggestion(
  sql: Sql,
  options: { workspaceId: string; id: string; now?: Date },
): Promise<void> {
  await sql.run(
    `UPDATE "Suggestion" SET "status" = 'open', "updatedAt" = ?
     WHERE "workspaceId" = ? AND "id" = ? AND "status" = 'applying'`,
    [options.now ?? new Date(), options.workspaceId, options.id],
  );
}

/**
 * Records the decision: `approved` (from the approver's claim, with what was applied) or
 * `rejected` (from `open`, with the reason the suggester reads). `false` when the suggestion was
 * no longer in the state the decision needs.
 */
export async function decideSuggestion(
  sql: Sql,
  options: {
    workspaceId: string;
    id: string;
    decision: "approved" | "rejected";
    deciderId: string;
    note: string | null;
    applied?: Record<string, unknown> | null;
    /** For the audit log: whose suggestion, what it changes, and whether it was edited. */
    audit?: { suggestedBy: string; title: string; edited: boolean };
    now?: Date;
  },
): Promise<boolean> {
  const now = options.now ?? new Date();
  const from = options.decision === "approved" ? "applying" : "open";
  return sql.transaction(async (tx) => {
    const { changes } = await tx.run(
      `UPDATE "Suggestion" SET "status" = ?, "decidedById" = ?, "decidedAt" = ?, "decisionNote" = ?,
       "applied" = ?, "updatedAt" = ?
     WHERE "workspaceId" = ? AND "id" = ? AND "status" = ?`,
      [
        options.decision,
        options.deciderId,
        now,
        options.note,
        options.applied ? JSON.stringify(options.applied) : null,
        now,
        options.workspaceId,
        options.id,
        from,
      ],
    );
    if (changes !== 1) return false;
    // The decision and its audit event commit together (docs/audit.md).
    await recordSuggestionDecided(tx, {
      workspaceId: options.workspaceId,
      actorId: options.deciderId,
      suggestionId: options.id,
      decision:
        options.decision === "rejected"
          ? "rejected"
          : options.audit?.edited
            ? "edited_and_approved"
            : "approved",
      suggestedBy: options.audit?.suggestedBy ?? null,
      ...(options.audit ? { targetPath: options.audit.title } : {}),
      ...(options.decision === "rejected" && options.note ? { reason: options.note } : {}),
      via: "web",
      at: now,
    });
    return true;
  });
}

/** A global refinement waiting for approval, as the review queue lists it. */
export interface PendingRefinementView {
  id: string;
  summary: string;
  trigger: string;
  editCount: number;
  createdAt: Date;
}

/**
 * Global refinements the pipeline's approval mode left `pending`: they share the review queue
 * with suggestions (approved or rejected on their own page, `/refinements/<id>`).
 */
export async function listPendingRefinements(
  sql: Sql,
  options: { workspaceId: string; limit?: number },
): Promise<PendingRefinementView[]> {
  const rows = await sql.all<{
    id: string;
    summary: string;
    trigger: string;
    edits: string;
    createdAt: unknown;
  }>(
    `SELECT "id", "summary", "trigger", "edits", "createdAt" FROM "Refinement"
     WHERE "workspaceId" = ? AND "scope" = 'global' AND "status" = 'pending'
     ORDER BY "createdAt" DESC LIMIT ?`,
    [options.workspaceId, Math.min(Math.max(options.limit ?? 50, 1), 200)],
  );
  return rows.map((row) => {
    let editCount = 0;
    try {
      const edits = JSON.parse(row.edits) as unknown;
      editCount = Array.isArray(edits) ? edits.length : 0;
    } catch {
      editCount = 0;
    }
    return {
      id: row.id,
      summary: row.summary,
      trigger: row.trigger,
      editCount,
      createdAt: toDate(row.createdAt),
    };
  });
}

/** How many global refinements wait for approval. */
export async function countPendingRefinements(
  sql: Sql,
  options: { workspaceId: string },
): Promise<number> {
  const row = await sql.get<{ n: number | bigint }>(
    `SELECT COUNT(*) AS "n" FROM "Refinement" WHERE "workspaceId" = ? AND "scope" = 'global' AND "status" = 'pending'`,
    [options.workspaceId],
  );
  return Number(row?.n ?? 0);
}
