import { diffLines } from "diff";

export interface DiffCell {
  line: number;
  text: string;
  kind: "same" | "removed" | "added";
}

/** One row of a side-by-side diff; a missing side is an empty cell. */
export interface DiffRow {
  left: DiffCell | null;
  right: DiffCell | null;
}

/**
 * Lines of `before` and `after` aligned in two columns: unchanged lines side by side, and each
 * removed block paired row by row with the added block that replaces it.
 */
export function sideBySideDiff(before: string, after: string): DiffRow[] {
  const rows: DiffRow[] = [];
  let leftLine = 1;
  let rightLine = 1;
  let pendingRemoved: DiffCell[] = [];
  const flushRemoved = (added: DiffCell[]) => {
    const count = Math.max(pendingRemoved.length, added.length);
    for (let index = 0; index < count; index++) {
      rows.push({ left: pendingRemoved[index] ?? null, right: added[index] ?? null });
    }
    pendingRemoved = [];
  };
  // A missing final newline is not a change worth a row of its own here.
  const withNewline = (text: string) => (text === "" || text.endsWith("\n") ? text : `${text}\n`);
  for (const part of diffLines(withNewline(before), withNewline(after))) {
    const lines = part.value.replace(/\n$/, "").split("\n");
    if (part.removed) {
      pendingRemoved.push(
        ...lines.map((text) => ({ line: leftLine++, text, kind: "removed" as const })),
      );
    } else if (part.added) {
      flushRemoved(lines.map((text) => ({ line: rightLine++, text, kind: "added" as const })));
    } else {
      flushRemoved([]);
      for (const text of lines) {
        rows.push({
          left: { line: leftLine++, text, kind: "same" },
          right: { line: rightLine++, text, kind: "same" },
        });
      }
    }
  }
  flushRemoved([]);
  return rows;
}
