import { randomUUID } from "node:crypto";

import type { SqlExecutor } from "@/lib/sql-storage/sql";

import type { AuditKind, AuditTargetType, AuditVia } from "./kinds";

/**
 * Where an event is written: the SQL-layer transaction of the action it records
 * (`sql.transaction(async (tx) => …)`). The SQL client itself works too, for actions that are
 * one statement of their own; then the event is its own transaction.
 */
export type AuditWriter = SqlExecutor;

/** One event, as a caller records it. */
export interface AuditEventInput {
  /** The workspace it happened in; `null` only for instance events (see docs/audit.md). */
  workspaceId: string | null;
  /** Who did it; `null` when nobody signed in did (a failed sign-in, a job). */
  actorId: string | null;
  kind: AuditKind;
  target?: { type: AuditTargetType; id: string } | null;
  /** What a reader needs besides the target. Never secrets (a token's value, a key). */
  details?: Record<string, unknown>;
  via: AuditVia;
  /** Default: now. */
  at?: Date;
}

/**
 * Records one audit event through `writer` — inside the caller's transaction, so the event and
 * the action commit together or not at all (a rolled-back action leaves no event, and an event
 * that cannot be written rolls the action back). One INSERT; never updates or deletes: the log
 * is append-only, and only the retention job (`applyRetention`) removes old rows.
 */
export async function recordAuditEvent(writer: AuditWriter, event: AuditEventInput): Promise<void> {
  const row = {
    id: randomUUID(),
    workspaceId: event.workspaceId,
    actorId: event.actorId,
    kind: event.kind,
    targetType: event.target?.type ?? null,
    targetId: event.target?.id ?? null,
    details: JSON.stringify(event.details ?? {}),
    via: event.via,
    createdAt: event.at ?? new Date(),
  };
  await writer.run(
    `INSERT INTO "AuditEvent" ("id", "workspaceId", "actorId", "kind", "targetType", "targetId", "details", "via", "createdAt")
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      row.id,
      row.workspaceId,
      row.actorId,
      row.kind,
      row.targetType,
      row.targetId,
      row.details,
      row.via,
      row.createdAt,
    ],
  );
}

/**
 * A suggestion's decision (approved, approved after an edit, rejected), for the review queue:
 * call it with the transaction that settles the suggestion.
 */
export function recordSuggestionDecided(
  writer: AuditWriter,
  input: {
    workspaceId: string;
    actorId: string;
    suggestionId: string;
    decision: "approved" | "edited_and_approved" | "rejected";
    /** The suggester, so the log says whose suggestion it was. */
    suggestedBy?: string | null;
    /** Where it applies: a company-knowledge path or a global entry. */
    targetPath?: string;
    reason?: string;
    via?: AuditVia;
    at?: Date;
  },
): Promise<void> {
  return recordAuditEvent(writer, {
    workspaceId: input.workspaceId,
    actorId: input.actorId,
    kind: "suggestion.decided",
    target: { type: "suggestion", id: input.suggestionId },
    details: {
      decision: input.decision,
      ...(input.suggestedBy ? { suggestedBy: input.suggestedBy } : {}),
      ...(input.targetPath ? { path: input.targetPath } : {}),
      ...(input.reason ? { reason: input.reason } : {}),
    },
    via: input.via ?? "web",
    at: input.at,
  });
}

/**
 * The audit `via` of a dir commit, from what the dir history records: an MCP write keeps its
 * `mcp:` via, an upload or import says so, a CLI import (`source: "import"` without a via) is
 * `cli`, a turn is `chat`, anything else a person did on the web.
 */
export function auditViaOfDirCommit(commit: { source: string; via: string | null }): AuditVia {
  if (commit.via?.startsWith("mcp:")) return commit.via as AuditVia;
  if (commit.via === "upload" || commit.via === "import") return commit.via;
  if (commit.source === "mcp") return "mcp:unknown";
  if (commit.source === "import") return "cli";
  if (commit.source === "turn") return "chat";
  return "web";
}
