import { DocumentRefusedError } from "./document-refused-error";

/** The kinds of document Cairn converts. */
export type DocumentType = "pdf" | "docx" | "xlsx" | "html" | "markdown" | "text" | "csv";

const EXTENSIONS: Record<string, DocumentType> = {
  pdf: "pdf",
  docx: "docx",
  xlsx: "xlsx",
  html: "html",
  htm: "html",
  md: "markdown",
  markdown: "markdown",
  txt: "text",
  text: "text",
  csv: "csv",
};

/** The extensions accepted, for messages and the file picker's `accept`. */
export const DOCUMENT_EXTENSIONS = Object.freeze(Object.keys(EXTENSIONS).map((ext) => `.${ext}`));

/** What the first bytes say a file really is, or `null` for text (or unknown binary). */
function sniff(bytes: Uint8Array): string | null {
  const starts = (...signature: number[]) => signature.every((byte, i) => bytes[i] === byte);
  if (starts(0x25, 0x50, 0x44, 0x46, 0x2d)) return "pdf"; // %PDF-
  if (starts(0x50, 0x4b, 0x03, 0x04) || starts(0x50, 0x4b, 0x05, 0x06)) return "zip";
  if (starts(0x4d, 0x5a)) return "a Windows executable";
  if (starts(0x7f, 0x45, 0x4c, 0x46)) return "a Linux executable";
  if (
    starts(0xcf, 0xfa, 0xed, 0xfe) ||
    starts(0xfe, 0xed, 0xfa, 0xcf) ||
    starts(0xca, 0xfe, 0xba, 0xbe)
  )
    return "a macOS executable";
  if (starts(0x23, 0x21)) return "a script";
  if (starts(0xd0, 0xcf, 0x11, 0xe0))
    return "an old Office file (.doc/.xls; save it as .docx/.xlsx)";
  if (starts(0x1f, 0x8b)) return "a gzip archive";
  if (starts(0x89, 0x50, 0x4e, 0x47)) return "a PNG image";
  if (starts(0xff, 0xd8, 0xff)) return "a JPEG image";
  if (starts(0x47, 0x49, 0x46, 0x38)) return "a GIF image";
  if (starts(0x52, 0x61, 0x72, 0x21)) return "a RAR archive";
  if (starts(0x37, 0x7a, 0xbc, 0xaf)) return "a 7z archive";
  return null;
}

/** Whether `bytes` read as UTF-8 text (no NUL, valid encoding), judged on the first 64 KiB. */
export function looksLikeText(bytes: Uint8Array): boolean {
  const head = bytes.subarray(0, 64 * 1024);
  if (head.includes(0)) return false;
  try {
    // A multi-byte character cut at the 64 KiB boundary is not an error: stream mode.
    new TextDecoder("utf-8", { fatal: true }).decode(head, { stream: head.length < bytes.length });
    return true;
  } catch {
    return false;
  }
}

/**
 * The document type of `name` with content `bytes`, by its extension checked against its first
 * bytes (the magic numbers): a PDF must start `%PDF-`, a DOCX/XLSX must be a zip, text types must
 * be UTF-8 text. An executable renamed `.pdf`, or a PDF renamed `.txt`, is refused as mislabeled;
 * an unknown extension as unsupported. Throws `DocumentRefusedError`.
 */
export function detectDocumentType(options: { name: string; bytes: Uint8Array }): DocumentType {
  const { name, bytes } = options;
  const extension = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase() ?? "";
  const declared = EXTENSIONS[extension];
  const found = sniff(bytes);
  if (!declared) {
    throw new DocumentRefusedError({
      fileName: name,
      reason: "unsupported_type",
      message: `${extension ? `.${extension} files are` : "files without an extension are"} not supported (supported: ${DOCUMENT_EXTENSIONS.join(", ")}).`,
    });
  }
  const mislabeled = (what: string): never => {
    throw new DocumentRefusedError({
      fileName: name,
      reason: "mislabeled",
      message: `it is named .${extension} but its content is ${what}; refused.`,
    });
  };
  const described = (kind: string | null) =>
    kind === "pdf" ? "a PDF" : kind === "zip" ? "a zip archive" : (kind ?? "binary data");
  if (declared === "pdf") {
    if (found !== "pdf") mislabeled(described(found));
  } else if (declared === "docx" || declared === "xlsx") {
    if (found !== "zip") mislabeled(described(found));
  } else if (found !== null || !looksLikeText(bytes)) {
    mislabeled(described(found));
  }
  return declared;
}
