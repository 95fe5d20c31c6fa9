import { cairn } from "@/lib/cairn";
import { getJobQueue } from "@/lib/jobs";
import { createUploadService, type UploadService } from "./upload-service";

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

let service: { for: ReturnType<typeof cairn>; value: UploadService } | null = null;

/**
 * The process's upload service: the app's dirs, its job queue and `CAIRN_UPLOAD_MAX_FILE_BYTES`
 * (the service holds no state of its own; it is kept only to build it once per Cairn).
 */
export function getUploads(): UploadService {
  const current = cairn();
  if (service?.for !== current) {
    service = {
      for: current,
      value: createUploadService({
        dirs: current.persistentDirs,
        sql: () => current.sql,
        queue: getJobQueue,
        limits: { maxFileBytes: current.config.upload.maxFileBytes },
        job: { expireInSeconds: current.config.jobExpireSeconds },
      }),
    };
  }
  return service.value;
}
