/**
 * What the audit log records, one kind per action. The names are stable (they are stored and
 * filtered on); the labels are what the admin page and the CSV say.
 */
export const AUDIT_KINDS = {
  "signin.succeeded": "Signed in",
  "signin.failed": "Failed sign-in",
  "invite.created": "Invite created",
  "invite.revoked": "Invite revoked",
  "member.joined": "Joined with an invite",
  "member.role_changed": "Role changed",
  "member.removed": "Member removed",
  "member.erased": "Person erased",
  "token.created": "Access token created",
  "token.revoked": "Access token revoked",
  "model_settings.changed": "Model settings changed",
  "company.committed": "Company knowledge changed",
  "harness.global_changed": "Global harness changed",
  "refinement.applied": "Refinement applied",
  "refinement.rolled_back": "Refinement rolled back",
  "refinement.approved": "Refinement approved",
  "refinement.rejected": "Refinement rejected",
  "suggestion.created": "Suggestion made",
  "suggestion.decided": "Suggestion decided",
  "export.requested": "Data export requested",
  "export.downloaded": "Data export downloaded",
  "memory.deleted": "Memory deleted",
  "retention.changed": "Retention changed",
  "retention.applied": "Retention applied",
} as const;

/** One kind of audit event. */
export type AuditKind = keyof typeof AUDIT_KINDS;

export function isAuditKind(value: string): value is AuditKind {
  return Object.hasOwn(AUDIT_KINDS, value);
}

/** What an event's target is. */
export type AuditTargetType =
  | "user"
  | "invite"
  | "token"
  | "dir"
  | "entry"
  | "refinement"
  | "suggestion"
  | "export"
  | "workspace";

/**
 * Through which door an action came: the web app, a chat turn, an MCP token
 * (`mcp:<token> (<client>)`, as dir and harness history record it), an upload, an import
 * (the Files page's memory import), the `cairn` CLI, or a background job.
 */
export type AuditVia = "web" | "chat" | "upload" | "import" | "cli" | "job" | `mcp:${string}`;

/** Shown for an actor who was erased (or whose account is gone). */
export const FORMER_MEMBER = "a former member";
