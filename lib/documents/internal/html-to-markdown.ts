import TurndownService from "turndown";
import { markdownTables } from "./markdown-table";

/** Elements whose content is never text for a reader: dropped with everything inside. */
const DROPPED = [
  "script",
  "style",
  "noscript",
  "iframe",
  "object",
  "embed",
  "template",
  "head",
  "title",
] as const;

/** Reads a `<table>` node's rows as cell texts (nested tables flatten into their cell). */
function tableRows(table: HTMLElement): string[][] {
  const rows: string[][] = [];
  for (const row of Array.from(table.querySelectorAll("tr"))) {
    if (row.closest("table") !== table) continue;
    rows.push(
      Array.from(row.children)
        .filter((cell) => cell.nodeName === "TD" || cell.nodeName === "TH")
        .map((cell) => cell.textContent ?? ""),
    );
  }
  return rows;
}

/**
 * HTML (a web page, or mammoth's rendering of a DOCX) as Markdown: ATX headings, `-` lists,
 * fenced code, tables as Markdown tables (split past `maxTableRows`), and scripts, styles,
 * frames and embedded objects dropped with their content. Images keep only their alt text.
 */
export function htmlToMarkdown(options: { html: string; maxTableRows: number }): string {
  const service = new TurndownService({
    headingStyle: "atx",
    bulletListMarker: "-",
    codeBlockStyle: "fenced",
    emDelimiter: "*",
  });
  service.remove([...DROPPED]);
  service.addRule("table", {
    filter: "table",
    replacement: (_content, node) =>
      `\n\n${markdownTables({ rows: tableRows(node as HTMLElement), maxRows: options.maxTableRows })}\n\n`,
  });
  // Inline images would be data: URLs (mammoth) or links to elsewhere: the alt text is what reads.
  service.addRule("image", {
    filter: "img",
    replacement: (_content, node) => {
      const alt = (node as HTMLElement).getAttribute("alt")?.trim();
      return alt ? `[image: ${alt}]` : "";
    },
  });
  return (
    service
      .turndown(options.html)
      // turndown pads list markers to four columns (`-   item`); one space reads as Markdown does.
      .replace(/^(\s*)(-|\d+\.)\s{2,}/gm, "$1$2 ")
      .replace(/\n{3,}/g, "\n\n")
      .trim()
  );
}
