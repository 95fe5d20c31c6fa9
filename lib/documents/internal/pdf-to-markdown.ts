import type * as PdfJsModule from "pdfjs-dist/legacy/build/pdf.mjs";
import { DocumentRefusedError } from "../document-refused-error";
import { markdownTables } from "./markdown-table";

/** One run of text on a page as pdf.js gives it, in page coordinates (y grows upwards). */
interface Run {
  text: string;
  x: number;
  y: number;
  width: number;
  size: number;
}

/** A line of a page: runs on one baseline, split into cells where a wide gap separates them. */
interface Line {
  y: number;
  size: number;
  cells: { text: string; x: number }[];
}

/** What a PDF converted to. */
export interface PdfConversion {
  markdown: string;
  pages: number;
  /** No page had a text layer (a scan): the Markdown only says so. */
  noText: boolean;
}

type PdfJs = typeof PdfJsModule;
let pdfjsModule: Promise<PdfJs> | null = null;
/** pdf.js's Node build, loaded on first use (it is large, and most processes never read a PDF). */
function loadPdfJs(): Promise<PdfJs> {
  pdfjsModule ??= import("pdfjs-dist/legacy/build/pdf.mjs");
  return pdfjsModule;
}

/** Whether the file's trailer names an encryption dictionary. */
function declaresEncryption(bytes: Uint8Array): boolean {
  // The trailer (or the xref stream's dictionary) sits near the end; a few KiB of it is enough,
  // and reading the whole file as latin1 would double a large PDF in memory.
  const tail = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    .subarray(Math.max(0, bytes.byteLength - 64 * 1024))
    .toString("latin1");
  return /\/Encrypt\s*(\d+\s+\d+\s+R|<<)/.test(tail);
}

type PdfDocument = Awaited<ReturnType<PdfJs["getDocument"]>["promise"]>;

/** Opens a PDF with pdf.js, refusing an encrypted or unreadable one (`DocumentRefusedError`). */
async function openPdfDocument(options: {
  fileName: string;
  bytes: Uint8Array;
}): Promise<PdfDocument> {
  const { fileName } = options;
  if (declaresEncryption(options.bytes)) {
    throw new DocumentRefusedError({
      fileName,
      reason: "encrypted",
      message:
        "the PDF is encrypted (password-protected); save an unprotected copy and upload that.",
    });
  }
  const pdfjs = await loadPdfJs();
  try {
    return await pdfjs.getDocument({
      // pdf.js takes ownership of (detaches) the buffer it is given: hand it a copy.
      data: new Uint8Array(options.bytes),
      isEvalSupported: false,
      disableFontFace: true,
      useSystemFonts: false,
      stopAtErrors: false,
      verbosity: 0,
    }).promise;
  } catch (error) {
    const name = (error as { name?: string } | null)?.name;
    if (name === "PasswordException") {
      throw new DocumentRefusedError({
        fileName,
        reason: "encrypted",
        message:
          "the PDF is encrypted (password-protected); save an unprotected copy and upload that.",
        cause: error,
      });
    }
    throw new DocumentRefusedError({
      fileName,
      reason: "corrupt",
      message: "the PDF could not be read (it is damaged or not really a PDF).",
      cause: error,
    });
  }
}

/**
 * Opens and closes a PDF without reading its pages: refuses an encrypted or corrupt PDF on the
 * request path, before anything is stored (the pages are read by the conversion job).
 */
export async function probePdf(options: { fileName: string; bytes: Uint8Array }): Promise<void> {
  const document = await openPdfDocument(options);
  await document.destroy();
}

function linesOf(runs: Run[]): Line[] {
  const sorted = [...runs].sort((a, b) => b.y - a.y || a.x - b.x);
  const lines: { y: number; size: number; runs: Run[] }[] = [];
  for (const run of sorted) {
    const line = lines.at(-1);
    if (line && Math.abs(line.y - run.y) <= Math.max(1, 0.4 * Math.min(line.size, run.size))) {
      line.runs.push(run);
      line.size = Math.max(line.size, run.size);
    } else lines.push({ y: run.y, size: run.size, runs: [run] });
  }
  return lines
    .map((line) => {
      const runsInLine = line.runs.sort((a, b) => a.x - b.x);
      const cells: { text: string; x: number }[] = [];
      let end = -Infinity;
      for (const run of runsInLine) {
        const gap = run.x - end;
        const cell = cells.at(-1);
        // A gap of about two spaces or more starts a new cell (a table column, a tab stop).
        if (cell && gap < 1.5 * run.size) {
          cell.text +=
            gap > 0.15 * run.size && !cell.text.endsWith(" ") && !run.text.startsWith(" ")
              ? ` ${run.text}`
              : run.text;
        } else cells.push({ text: run.text, x: run.x });
        end = Math.max(end, run.x + run.width);
      }
      return {
        y: line.y,
        size: line.size,
        cells: cells
          .map((cell) => ({ ...cell, text: cell.text.replace(/\s+/g, " ").trim() }))
          .filter((cell) => cell.text !== ""),
      };
    })
    .filter((line) => line.cells.length > 0);
}

/** The size most of the text is set in (by characters): the body text. */
function bodySize(pages: Line[][]): number {
  const counts = new Map<number, number>();
  for (const line of pages.flat()) {
    const size = Math.round(line.size);
    const chars = line.cells.reduce((sum, cell) => sum + cell.text.length, 0);
    counts.set(size, (counts.get(size) ?? 0) + chars);
  }
  let best = 0;
  let bestCount = -1;
  for (const [size, count] of counts) if (count > bestCount) [best, bestCount] = [size, count];
  return best;
}

/**
 * A PDF's text layer as Markdown: `<!-- page N -->` before each page, lines set clearly larger
 * than the body text as headings (the largest size `#`, the next `##`, the rest `###`), runs of
 * two or more lines with the same number of gap-separated cells as a table, and other lines
 * joined into paragraphs. Refuses an encrypted PDF and one pdf.js cannot read; a PDF without any
 * text (a scan) converts to a note saying so (`noText`), since Cairn does no OCR.
 */
export async function pdfToMarkdown(options: {
  fileName: string;
  bytes: Uint8Array;
  maxPages: number;
  maxTableRows: number;
}): Promise<PdfConversion> {
  const { fileName } = options;
  const document = await openPdfDocument({ fileName, bytes: options.bytes });
  try {
    if (document.numPages > options.maxPages) {
      throw new DocumentRefusedError({
        fileName,
        reason: "too_large",
        message: `the PDF has ${document.numPages} pages; at most ${options.maxPages} are converted.`,
      });
    }
    const pages: Line[][] = [];
    for (let number = 1; number <= document.numPages; number += 1) {
      const page = await document.getPage(number);
      const content = await page.getTextContent();
      const runs: Run[] = [];
      for (const item of content.items) {
        // pdf.js fills gaps with whitespace runs as wide as the gap: they would hide the column
        // gaps tables are found by. Words are re-spaced from the positions instead.
        if (!("str" in item) || item.str.trim() === "") continue;
        const [a, b, c, d, x, y] = item.transform as number[];
        const size = Math.hypot(c!, d!) || Math.hypot(a!, b!) || item.height;
        runs.push({ text: item.str, x: x!, y: y!, width: item.width, size });
      }
      pages.push(linesOf(runs));
      page.cleanup();
    }
    const noText = pages.every((lines) => lines.length === 0);
    if (noText) {
      return {
        pages: pages.length,
        noText,
        markdown: `<!-- cairn: no text found -->\n\nNo text found in this PDF (${pages.length} page${pages.length === 1 ? "" : "s"}): it is probably scanned images. Cairn does not read text from images; the original is kept beside this file.`,
      };
    }
    const body = bodySize(pages);
    const headingSizes = [
      ...new Set(
        pages
          .flat()
          .filter((line) => line.cells.length === 1 && line.size >= body * 1.15)
          .map((line) => Math.round(line.size)),
      ),
    ].sort((a, b) => b - a);
    const levelOf = (size: number) => Math.min(3, headingSizes.indexOf(Math.round(size)) + 1);
    const blocks: string[] = [];
    pages.forEach((lines, index) => {
      blocks.push(`<!-- page ${index + 1} -->`);
      let paragraph: string[] = [];
      let previous: Line | null = null;
      const flush = () => {
        if (paragraph.length > 0) blocks.push(paragraph.join(" "));
        paragraph = [];
      };
      for (let i = 0; i < lines.length; i += 1) {
        const line = lines[i]!;
        if (line.cells.length >= 2) {
          // A table: this line and the following ones with the same number of cells.
          const rows: string[][] = [line.cells.map((cell) => cell.text)];
          while (lines[i + 1] && lines[i + 1]!.cells.length === line.cells.length) {
            i += 1;
            rows.push(lines[i]!.cells.map((cell) => cell.text));
          }
          flush();
          if (rows.length >= 2)
            blocks.push(markdownTables({ rows, maxRows: options.maxTableRows }));
          else blocks.push(rows[0]!.join(" "));
          previous = lines[i]!;
          continue;
        }
        const text = line.cells[0]!.text;
        if (line.cells.length === 1 && headingSizes.includes(Math.round(line.size))) {
          flush();
          blocks.push(`${"#".repeat(levelOf(line.size))} ${text}`);
        } else {
          const gap = previous ? previous.y - line.y : 0;
          if (previous && gap > 1.8 * line.size) flush();
          if (/^([•▪◦·\-*]|\d+[.)])\s/.test(text)) {
            flush();
            blocks.push(text.replace(/^[•▪◦·*]\s/, "- "));
          } else paragraph.push(text);
        }
        previous = line;
      }
      flush();
    });
    return { pages: pages.length, noText: false, markdown: blocks.join("\n\n") };
  } finally {
    await document.destroy();
  }
}
