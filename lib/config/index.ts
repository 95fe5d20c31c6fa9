export { loadConfig, ConfigError, type ConfigIssue } from "./load-config";
export {
  CONFIG_DEFAULTS,
  envSchema,
  type CairnConfig,
  type LogLevel,
  type ModelEnvironment,
  type OidcConfig,
} from "./schema";
export { cairnConfig } from "./process-config";
export { domainList, groupRoles } from "./oidc-lists";
