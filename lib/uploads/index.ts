export {
  CONVERTING_MARKER,
  DOCUMENT_CONVERT_JOB,
  FAILED_MARKER,
  IMPORTED_NOTES_PATH,
  createUploadService,
  type AcceptedUpload,
  type ConversionStatus,
  type DocumentConvertPayload,
  type RefusedUpload,
  type UploadBatchResult,
  type UploadFile,
  type UploadService,
  type UploadServiceOptions,
} from "./upload-service";
export * from "./process-uploads";
