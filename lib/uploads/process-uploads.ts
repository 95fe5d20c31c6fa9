import { cairn } from "@/lib/cairn";
import { getJobQueue } from "@/lib/jobs";
import { createUploadService, type UploadService } from "./upload-service";

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
