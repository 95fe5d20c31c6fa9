import type { Entry, ProposedEdit } from "@/lib/harness";

/**
 * The whole state of an entry as text, so a diff shows every field that changed; `absent` for
 * no entry (before a create, after a delete).
 */
export function entryAsText(entry: Entry | null, absent = ""): string {
  if (!entry) return absent;
  const metadata = Object.keys(entry.metadata).length
    ? JSON.stringify(entry.metadata, null, 2)
    : "{}";
  return [
    `title: ${entry.title}`,
    `path: ${entry.path}`,
    `pinned: ${entry.pinned}`,
    `metadata: ${metadata}`,
    "",
    entry.content,
  ].join("\n");
}

/**
 * A proposed edit's fields as text, in the same layout as `entryAsText`, for edits that never
 * produced an entry state (failed or skipped) — so the page still shows what was proposed.
 */
export function proposedAsText(edit: ProposedEdit): string {
  if (edit.action === "delete") return "";
  const lines: string[] = [];
  if (edit.title !== undefined) lines.push(`title: ${edit.title}`);
  if (edit.path !== undefined) lines.push(`path: ${edit.path}`);
  if (edit.metadata !== undefined)
    lines.push(`metadata: ${JSON.stringify(edit.metadata, null, 2)}`);
  if (edit.content !== undefined) lines.push("", edit.content);
  return lines.join("\n");
}
