import { z } from "zod";

import { AUDIT_KINDS, type AuditKind } from "./kinds";
import type { AuditFilters } from "./list-audit-events";

const day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/)
  .refine((value) => !Number.isNaN(Date.parse(`${value}T00:00:00Z`)))
  .optional()
  .catch(undefined);

/**
 * The audit page's query string (shared by the page and the CSV link): `person`, `kind`,
 * `from` and `to` (days, UTC, both inclusive), `cursor`. Anything unreadable is dropped rather
 * than refused, so a mangled link shows the unfiltered log.
 */
export const auditQuerySchema = z.object({
  person: z.string().max(100).optional().catch(undefined),
  kind: z
    .enum(Object.keys(AUDIT_KINDS) as [AuditKind, ...AuditKind[]])
    .optional()
    .catch(undefined),
  from: day,
  to: day,
  cursor: z.string().max(300).optional().catch(undefined),
});

export type AuditQuery = z.infer<typeof auditQuerySchema>;

const DAY_MS = 24 * 60 * 60 * 1000;

/** The filters a query names: `to` is inclusive, so it ends at the next day's start. */
export function auditFiltersOf(query: AuditQuery): AuditFilters {
  return {
    actorId: query.person || null,
    kind: query.kind ?? null,
    from: query.from ? new Date(`${query.from}T00:00:00Z`) : null,
    to: query.to ? new Date(Date.parse(`${query.to}T00:00:00Z`) + DAY_MS) : null,
  };
}
