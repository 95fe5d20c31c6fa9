import { detectDocumentType, type DocumentType } from "./detect-document-type";
import { DEFAULT_DOCUMENT_LIMITS, type DocumentLimits } from "./document-limits";
import { DocumentRefusedError } from "./document-refused-error";
import { htmlToMarkdown } from "./internal/html-to-markdown";
import { pdfToMarkdown } from "./internal/pdf-to-markdown";
import { csvToMarkdown, xlsxToMarkdown } from "./internal/sheets";
import { formatBytes } from "@/lib/harness/format-bytes";
import { assertZipWithinLimits } from "./internal/zip-guard";

/** A converted document. */
export interface ConvertedDocument {
  type: DocumentType;
  /** The text the agent reads. */
  markdown: string;
  /** Whether the original must be kept beside the Markdown (everything but Markdown and text). */
  keepsOriginal: boolean;
  /** A PDF without a text layer: stored, flagged "no text found", nothing converted. */
  noText: boolean;
  /** Pages of a PDF, `null` for other types. */
  pages: number | null;
}

/**
 * Checks what can be checked without converting: the name's extension against the content's
 * magic bytes, the size, and for a DOCX/XLSX the zip's declared uncompressed size. Cheap enough
 * for the request path, so a bad file is refused before anything is stored. Throws
 * `DocumentRefusedError`.
 */
export function checkDocument(options: {
  name: string;
  bytes: Uint8Array;
  limits?: Partial<DocumentLimits>;
}): DocumentType {
  const limits = { ...DEFAULT_DOCUMENT_LIMITS, ...options.limits };
  const { name, bytes } = options;
  if (bytes.byteLength > limits.maxFileBytes) {
    throw new DocumentRefusedError({
      fileName: name,
      reason: "too_large",
      message: `it is ${formatBytes(bytes.byteLength)}; the limit is ${formatBytes(limits.maxFileBytes)}.`,
    });
  }
  const type = detectDocumentType({ name, bytes });
  if (type === "docx" || type === "xlsx") {
    assertZipWithinLimits({ fileName: name, bytes, maxUnzippedBytes: limits.maxUnzippedBytes });
  }
  return type;
}

/**
 * Converts one document to Markdown — the one code path for uploads in the browser, chat
 * attachments and the command line. PDF: its text layer with page markers (`<!-- page 2 -->`),
 * headings by font size and tables by column gaps; DOCX: mammoth's HTML as Markdown; HTML:
 * Markdown without scripts and styles; CSV and XLSX: Markdown tables, split past
 * `maxTableRows`; Markdown and text as they are. Throws `DocumentRefusedError` (naming `name`)
 * for anything refused: size, type, a mislabeled file, a zip bomb, a corrupt or encrypted file.
 */
export async function convertDocument(options: {
  name: string;
  bytes: Uint8Array;
  limits?: Partial<DocumentLimits>;
}): Promise<ConvertedDocument> {
  const limits = { ...DEFAULT_DOCUMENT_LIMITS, ...options.limits };
  const { name, bytes } = options;
  const type = checkDocument({ name, bytes, limits });
  const result = (markdown: string, extra: Partial<ConvertedDocument> = {}): ConvertedDocument => ({
    type,
    markdown: markdown.endsWith("\n") ? markdown : `${markdown}\n`,
    keepsOriginal: type !== "markdown" && type !== "text",
    noText: false,
    pages: null,
    ...extra,
  });
  const text = () => new TextDecoder("utf-8").decode(bytes).replace(/^\ufeff/, "");
  const corrupt = (what: string, cause: unknown): never => {
    throw new DocumentRefusedError({
      fileName: name,
      reason: "corrupt",
      message: `the ${what} could not be read (it is damaged, or not really a ${what}).`,
      cause,
    });
  };
  switch (type) {
    case "markdown":
    case "text":
      return result(text());
    case "csv":
      return result(csvToMarkdown({ text: text(), maxTableRows: limits.maxTableRows }));
    case "html":
      return result(htmlToMarkdown({ html: text(), maxTableRows: limits.maxTableRows }));
    case "docx": {
      let html: string;
      try {
        const mammoth = await import("mammoth");
        ({ value: html } = await mammoth.convertToHtml({ buffer: Buffer.from(bytes) }));
      } catch (error) {
        return corrupt("Word document", error);
      }
      return result(htmlToMarkdown({ html, maxTableRows: limits.maxTableRows }));
    }
    case "xlsx": {
      let markdown: string;
      try {
        markdown = await xlsxToMarkdown({ bytes, maxTableRows: limits.maxTableRows });
      } catch (error) {
        return corrupt("spreadsheet", error);
      }
      return result(markdown);
    }
    case "pdf": {
      const pdf = await pdfToMarkdown({
        fileName: name,
        bytes,
        maxPages: limits.maxPdfPages,
        maxTableRows: limits.maxTableRows,
      });
      return result(pdf.markdown, { noText: pdf.noText, pages: pdf.pages });
    }
  }
}
