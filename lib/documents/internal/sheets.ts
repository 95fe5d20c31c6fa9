import ExcelJS from "exceljs";
import { markdownTables } from "./markdown-table";

/** RFC 4180 CSV: quoted fields may hold commas, doubled quotes and line breaks. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  for (let i = 0; i < source.length; i += 1) {
    const char = source[i]!;
    if (quoted) {
      if (char === '"') {
        if (source[i + 1] === '"') {
          field += '"';
          i += 1;
        } else quoted = false;
      } else field += char;
    } else if (char === '"' && field === "") quoted = true;
    else if (char === ",") {
      row.push(field);
      field = "";
    } else if (char === "\n" || char === "\r") {
      if (char === "\r" && source[i + 1] === "\n") i += 1;
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
    } else field += char;
  }
  if (field !== "" || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows.filter((cells) => cells.some((cell) => cell.trim() !== ""));
}

/** A CSV file as Markdown tables. */
export function csvToMarkdown(options: { text: string; maxTableRows: number }): string {
  return markdownTables({ rows: parseCsv(options.text), maxRows: options.maxTableRows });
}

/** A cell's value as text: formulas by their result, dates as ISO dates, rich text joined. */
function cellText(value: ExcelJS.CellValue): string {
  if (value === null || value === undefined) return "";
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  if (typeof value === "object") {
    if ("result" in value) return cellText(value.result as ExcelJS.CellValue);
    if ("richText" in value) return value.richText.map((part) => part.text).join("");
    if ("text" in value) return String(value.text);
    if ("error" in value) return String(value.error);
    return "";
  }
  return String(value);
}

/** Each sheet of an XLSX as a `## <sheet>` section with its used range as Markdown tables. */
export async function xlsxToMarkdown(options: {
  bytes: Uint8Array;
  maxTableRows: number;
}): Promise<string> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(Buffer.from(options.bytes) as unknown as ExcelJS.Buffer);
  const sections: string[] = [];
  workbook.eachSheet((sheet) => {
    const rows: string[][] = [];
    sheet.eachRow({ includeEmpty: false }, (row) => {
      const values = row.values as ExcelJS.CellValue[];
      // `row.values` is 1-based: index 0 is always empty.
      rows.push(values.slice(1).map(cellText));
    });
    const table = markdownTables({ rows, maxRows: options.maxTableRows });
    sections.push(`## ${sheet.name}\n\n${table || "*(empty sheet)*"}`);
  });
  return sections.join("\n\n");
}
