export { checkDocument, convertDocument, type ConvertedDocument } from "./convert-document";
export {
  DOCUMENT_EXTENSIONS,
  detectDocumentType,
  looksLikeText,
  type DocumentType,
} from "./detect-document-type";
export { DEFAULT_DOCUMENT_LIMITS, type DocumentLimits } from "./document-limits";
export { DocumentRefusedError, type DocumentRefusalReason } from "./document-refused-error";
export { normalizeUploadName } from "./upload-name";
export { probePdf } from "./internal/pdf-to-markdown";
