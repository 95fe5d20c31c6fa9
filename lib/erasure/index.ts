export {
  deleteOwnMemory,
  erasePerson,
  type DeletedMemory,
  type ErasedPersonResult,
} from "./erasure";
export {
  applyRetention,
  RETENTION_JOB,
  retentionJob,
  scheduleRetention,
  type RetentionResult,
} from "./retention";
export {
  DEFAULT_RETENTION,
  getRetentionSettings,
  retentionSettingsSchema,
  saveRetentionSettings,
  type RetentionSettingsValues,
} from "./retention-settings";
