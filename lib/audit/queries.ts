import { getSql } from "@/lib/sql-storage/sql";

import { allAuditEvents, listAuditEvents, type AuditFilters } from "./list-audit-events";

/** The admin audit page's queries, on the app's database. Callers authorize (admins only). */

export function auditEventsPage(options: {
  workspaceId: string;
  filters: AuditFilters;
  cursor?: string | null;
}) {
  return listAuditEvents({ sql: getSql(), ...options });
}

export function auditEventsForCsv(options: { workspaceId: string; filters: AuditFilters }) {
  return allAuditEvents({ sql: getSql(), ...options });
}
