import type { AuditEventView } from "./list-audit-events";

const text = (value: unknown): string | null =>
  typeof value === "string" && value !== "" ? value : null;
const list = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];

/** What the event did, in a few words, from its details (the page's "What" column). */
export function describeAuditEvent(event: AuditEventView): string {
  const d = event.details;
  switch (event.kind) {
    case "signin.succeeded":
    case "signin.failed":
      return [
        text(d.method),
        text(d.email),
        text(d.reason),
        event.targetName && event.kind === "signin.failed" ? `account: ${event.targetName}` : null,
      ]
        .filter(Boolean)
        .join(" · ");
    case "member.role_changed":
      return `${event.targetName ?? "someone"}: ${text(d.from) ?? "?"} → ${text(d.to) ?? "?"}`;
    case "member.removed":
    case "member.erased":
      return event.targetName ?? "";
    case "member.joined":
    case "invite.created":
      return [text(d.role) ? `as ${String(d.role)}` : null, text(d.note)]
        .filter(Boolean)
        .join(" · ");
    case "token.created":
      return [text(d.name), text(d.prefix)].filter(Boolean).join(" · ");
    case "model_settings.changed":
      return d.action === "removed"
        ? "removed the saved model"
        : [text(d.provider), text(d.model), d.apiKey === "replaced" ? "new key" : null]
            .filter(Boolean)
            .join(" · ");
    case "company.committed": {
      const parts = [
        ...list(d.created).map((path) => `+${path}`),
        ...list(d.updated).map((path) => `~${path}`),
        ...list(d.deleted).map((path) => `−${path}`),
      ];
      const files = typeof d.files === "number" ? d.files : parts.length;
      const shown = parts.slice(0, 3).join(", ");
      return files > 3 ? `${shown} and ${files - 3} more` : shown;
    }
    case "harness.global_changed": {
      const changes = Array.isArray(d.changes) ? (d.changes as Array<Record<string, unknown>>) : [];
      return changes
        .slice(0, 3)
        .map((change) =>
          `${text(change.action) ?? ""} ${text(change.title) ?? text(change.entry) ?? ""}`.trim(),
        )
        .join(", ");
    }
    case "refinement.applied":
    case "refinement.rolled_back":
    case "refinement.approved":
    case "refinement.rejected":
      return [text(d.scope), text(d.summary), text(d.note)].filter(Boolean).join(" · ");
    case "suggestion.decided":
      return [text(d.decision), text(d.path), text(d.reason)].filter(Boolean).join(" · ");
    case "memory.deleted":
    case "retention.applied":
    case "retention.changed":
      return Object.entries(d)
        .map(([key, value]) => `${key}: ${value === null ? "forever" : String(value)}`)
        .join(" · ");
    default:
      return "";
  }
}
