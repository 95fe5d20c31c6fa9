import type { Sql, SqlValue } from "@/lib/sql-storage/sql";
import { toDate } from "@/lib/sql-storage/sql";

import { AUDIT_KINDS, FORMER_MEMBER, isAuditKind, type AuditKind } from "./kinds";

/** Which events a page shows. Every filter is optional; all that are set must hold. */
export interface AuditFilters {
  /** Events this person did. */
  actorId?: string | null;
  kind?: AuditKind | null;
  /** Inclusive lower bound. */
  from?: Date | null;
  /** Exclusive upper bound. */
  to?: Date | null;
}

/** One event as the admin page and the CSV show it. */
export interface AuditEventView {
  id: string;
  at: Date;
  actorId: string | null;
  /** The actor's name now; "a former member" once erased or gone; null for nobody. */
  actorName: string | null;
  kind: string;
  kindLabel: string;
  targetType: string | null;
  targetId: string | null;
  /** A user target's name (or "a former member"); null for other targets. */
  targetName: string | null;
  details: Record<string, unknown>;
  via: string;
}

/** One page, newest first, and the cursor of the next (null: this was the last). */
export interface AuditPage {
  events: AuditEventView[];
  nextCursor: string | null;
}

export const AUDIT_PAGE_SIZE = 50;

interface Row {
  id: string;
  workspaceId: string | null;
  actorId: string | null;
  kind: string;
  targetType: string | null;
  targetId: string | null;
  details: string;
  via: string;
  createdAt: unknown;
  actorName: string | null;
  actorErased: unknown;
  targetName: string | null;
  targetErased: unknown;
}

/** The keyset cursor: the last row's time and id, opaque to the page. */
export function encodeAuditCursor(at: Date, id: string): string {
  return Buffer.from(`${at.toISOString()}|${id}`).toString("base64url");
}

export function decodeAuditCursor(cursor: string): { at: Date; id: string } | null {
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  const bar = text.indexOf("|");
  if (bar <= 0) return null;
  const at = new Date(text.slice(0, bar));
  const id = text.slice(bar + 1);
  if (Number.isNaN(at.getTime()) || id === "") return null;
  return { at, id };
}

/**
 * One page of a workspace's audit log, newest first, paged by keyset (`createdAt`, `id`) so a
 * page costs the same at row 100,000 as at row 1 (the `[workspaceId, createdAt, id]` index and
 * its per-person and per-kind siblings; `bench/audit-log.ts`). Names are read with the page:
 * an actor or a user target who was erased from this workspace (`ErasedPerson`) or whose
 * account is gone reads "a former member" — the id stays in the row.
 */
export async function listAuditEvents(options: {
  sql: Sql;
  workspaceId: string;
  filters?: AuditFilters;
  cursor?: string | null;
  limit?: number;
}): Promise<AuditPage> {
  const { sql, workspaceId, filters = {} } = options;
  const limit = Math.max(1, Math.min(options.limit ?? AUDIT_PAGE_SIZE, 1000));
  const where: string[] = [`e."workspaceId" = ?`];
  const params: SqlValue[] = [workspaceId, workspaceId, workspaceId];
  if (filters.actorId) {
    where.push(`e."actorId" = ?`);
    params.push(filters.actorId);
  }
  if (filters.kind) {
    where.push(`e."kind" = ?`);
    params.push(filters.kind);
  }
  if (filters.from) {
    where.push(`e."createdAt" >= ?`);
    params.push(filters.from);
  }
  if (filters.to) {
    where.push(`e."createdAt" < ?`);
    params.push(filters.to);
  }
  const after = options.cursor ? decodeAuditCursor(options.cursor) : null;
  if (after) {
    // A row-value comparison, which both databases turn into one index range (an OR of the
    // two conditions made the deep pages scan: 52 ms at row 90,000 of 100,000 on SQLite).
    where.push(`(e."createdAt", e."id") < (?, ?)`);
    params.push(after.at, after.id);
  }
  params.push(limit + 1);
  const rows = await sql.all<Row>(
    `SELECT e."id", e."workspaceId", e."actorId", e."kind", e."targetType", e."targetId",
            e."details", e."via", e."createdAt",
            au."name" AS "actorName", ae."userId" AS "actorErased",
            tu."name" AS "targetName", te."userId" AS "targetErased"
       FROM "AuditEvent" e
       LEFT JOIN "User" au ON au."id" = e."actorId"
       LEFT JOIN "ErasedPerson" ae ON ae."workspaceId" = ? AND ae."userId" = e."actorId"
       LEFT JOIN "User" tu ON e."targetType" = 'user' AND tu."id" = e."targetId"
       LEFT JOIN "ErasedPerson" te ON te."workspaceId" = ? AND e."targetType" = 'user' AND te."userId" = e."targetId"
      WHERE ${where.join(" AND ")}
      ORDER BY e."createdAt" DESC, e."id" DESC
      LIMIT ?`,
    params,
  );
  const page = rows.slice(0, limit).map(viewOf);
  const last = page.at(-1);
  return {
    events: page,
    nextCursor: rows.length > limit && last ? encodeAuditCursor(last.at, last.id) : null,
  };
}

function nameOf(id: string | null, name: string | null, erased: unknown): string | null {
  if (id === null) return null;
  if (erased !== null && erased !== undefined) return FORMER_MEMBER;
  return name ?? FORMER_MEMBER;
}

function viewOf(row: Row): AuditEventView {
  let details: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(row.details);
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed))
      details = parsed as Record<string, unknown>;
  } catch {
    // A row is written by recordAuditEvent only; a malformed one shows without details.
  }
  return {
    id: row.id,
    at: toDate(row.createdAt),
    actorId: row.actorId,
    actorName: nameOf(row.actorId, row.actorName, row.actorErased),
    kind: row.kind,
    kindLabel: isAuditKind(row.kind) ? AUDIT_KINDS[row.kind] : row.kind,
    targetType: row.targetType,
    targetId: row.targetId,
    targetName:
      row.targetType === "user" ? nameOf(row.targetId, row.targetName, row.targetErased) : null,
    details,
    via: row.via,
  };
}

/** Every event the filters select, newest first, a page at a time (for the CSV). */
export async function* allAuditEvents(options: {
  sql: Sql;
  workspaceId: string;
  filters?: AuditFilters;
  batch?: number;
}): AsyncGenerator<AuditEventView> {
  let cursor: string | null = null;
  do {
    const page: AuditPage = await listAuditEvents({
      ...options,
      cursor,
      limit: options.batch ?? 1000,
    });
    yield* page.events;
    cursor = page.nextCursor;
  } while (cursor);
}

const CSV_COLUMNS = [
  "time",
  "person",
  "person id",
  "kind",
  "target",
  "target id",
  "via",
  "details",
];

function csvField(value: string): string {
  // Quote always; a leading =, +, - or @ would be a formula in a spreadsheet: prefix it.
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return `"${safe.replaceAll('"', '""')}"`;
}

/** One CSV line (CRLF-terminated) of an event; `auditCsvHeader` first. */
export function auditCsvLine(event: AuditEventView): string {
  return (
    [
      event.at.toISOString(),
      event.actorName ?? "",
      event.actorId ?? "",
      event.kind,
      event.targetName ?? event.targetType ?? "",
      event.targetId ?? "",
      event.via,
      JSON.stringify(event.details),
    ]
      .map(csvField)
      .join(",") + "\r\n"
  );
}

export const auditCsvHeader = CSV_COLUMNS.map(csvField).join(",") + "\r\n";
