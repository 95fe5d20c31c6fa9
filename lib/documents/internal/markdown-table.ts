/** A cell's text for a Markdown table: one line, pipes escaped. */
export function tableCell(value: string): string {
  return value.replace(/\s+/g, " ").trim().replace(/\|/g, "\\|");
}

/**
 * Rows as Markdown tables, the first row the header; more than `maxRows` body rows are split into
 * several tables, each repeating the header, so no table is too long to read or quote.
 */
export function markdownTables(options: { rows: string[][]; maxRows: number }): string {
  const { rows, maxRows } = options;
  if (rows.length === 0) return "";
  const width = Math.max(1, ...rows.map((row) => row.length));
  const line = (row: string[]) =>
    `| ${Array.from({ length: width }, (_, i) => tableCell(row[i] ?? "")).join(" | ")} |`;
  const header = `${line(rows[0]!)}\n|${" --- |".repeat(width)}`;
  const body = rows.slice(1);
  if (body.length === 0) return header;
  const tables: string[] = [];
  for (let start = 0; start < body.length; start += maxRows) {
    const part = body.slice(start, start + maxRows);
    const label =
      body.length > maxRows
        ? `<!-- rows ${start + 1}–${start + part.length} of ${body.length} -->\n`
        : "";
    tables.push(`${label}${header}\n${part.map(line).join("\n")}`);
  }
  return tables.join("\n\n");
}
