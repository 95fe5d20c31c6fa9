export {
  AUDIT_KINDS,
  FORMER_MEMBER,
  isAuditKind,
  type AuditKind,
  type AuditTargetType,
  type AuditVia,
} from "./kinds";
export {
  auditViaOfDirCommit,
  recordAuditEvent,
  recordSuggestionDecided,
  type AuditEventInput,
  type AuditWriter,
} from "./record-audit-event";
export { recordSignIn } from "./record-sign-in";
export {
  AUDIT_PAGE_SIZE,
  allAuditEvents,
  auditCsvHeader,
  auditCsvLine,
  decodeAuditCursor,
  encodeAuditCursor,
  listAuditEvents,
  type AuditEventView,
  type AuditFilters,
  type AuditPage,
} from "./list-audit-events";
export { describeAuditEvent } from "./describe-audit-event";
export { auditFiltersOf, auditQuerySchema, type AuditQuery } from "./filters";
