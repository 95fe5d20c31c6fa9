export { createSavedOidc, type SavedOidc } from "./saved-oidc";
export {
  deleteOidcSettings,
  mayManageOidcSettings,
  OIDC_SETTINGS_ID,
  OidcClientSecretMissing,
  oidcKeyFromSecret,
  oidcSettingsInputSchema,
  readOidcSettingsView,
  readSavedOidcConfig,
  saveOidcSettings,
  type OidcSettingsInput,
  type OidcSettingsView,
  type SavedOidcResult,
} from "./oidc-settings-store";
