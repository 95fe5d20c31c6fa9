export {
  modelKeyFromSecret,
  openSecret,
  sealSecret,
  SealedSecretUnreadable,
  type ModelKeyring,
} from "./secret-box";
export {
  deleteModelSettings,
  MODEL_PROVIDER_LABELS,
  modelConfigFromInput,
  modelSettingsInputSchema,
  readModelSettingsRow,
  readModelSettingsView,
  saveModelSettings,
  workspaceModelOf,
  type ModelSettingsInput,
  type ModelSettingsView,
  type WorkspaceModelResult,
} from "./model-settings-store";
export { createWorkspaceModels, type WorkspaceModels } from "./workspace-models";
