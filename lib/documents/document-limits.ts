/** Bounds on one document's conversion (configured through lib/config, `CAIRN_UPLOAD_*`). */
export interface DocumentLimits {
  /** Largest original accepted, in bytes. */
  maxFileBytes: number;
  /** Largest uncompressed content of a DOCX or XLSX (a zip): past it the file counts as a zip bomb. */
  maxUnzippedBytes: number;
  /** Most PDF pages read; longer documents are refused rather than cut silently. */
  maxPdfPages: number;
  /** Rows per Markdown table before a sheet is split into several tables. */
  maxTableRows: number;
}

/** The defaults; the README's Configuration table states the same numbers. */
export const DEFAULT_DOCUMENT_LIMITS: Readonly<DocumentLimits> = Object.freeze({
  maxFileBytes: 10 * 1024 * 1024,
  maxUnzippedBytes: 100 * 1024 * 1024,
  maxPdfPages: 2000,
  maxTableRows: 200,
});
