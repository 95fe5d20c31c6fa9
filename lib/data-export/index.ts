export { buildPersonalExport, type PersonalExportSummary } from "./build-personal-export";
export {
  DATA_EXPORT_JOB,
  DATA_EXPORT_KEEP_DAYS,
  dataExportJob,
  listDataExports,
  readDataExport,
  removeExpiredExports,
  requestDataExport,
  type DataExportJobPayload,
  type DataExportStatus,
  type DataExportView,
} from "./data-exports";
