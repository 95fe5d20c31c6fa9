export {
  isLoopbackHostname,
  mcpAllowedOriginsFromEnv,
  parseMcpAllowedOrigins,
  refuseRebindingRequest,
  type McpOriginEnv,
} from "./dns-rebinding-guard";
export { configuredImageOrigins, parseImageOrigins } from "./image-origins";
export { parseOriginList } from "./origin-list";
export { hasMalformedEscape, malformedPathResponse } from "./malformed-path";
export {
  refuseForeignRequest,
  requestHost,
  requestOrigin,
  type RefusedRequest,
} from "./request-guards";
export {
  contentSecurityPolicy,
  securityHeaders,
  type SecurityHeaderOptions,
} from "./security-headers";
export {
  declaredBodyLength,
  DISCARD_LIMITS,
  readBodyWithLimit,
  refuseBody,
  readJsonWithLimit,
  type BodyReadResult,
  type DiscardOptions,
  type JsonReadResult,
} from "./read-body-with-limit";
export {
  hasSessionCookie,
  MAX_SIGNED_OUT_ACTION_BYTES,
  refuseSignedOutActionBody,
  type RefusedActionBody,
} from "./signed-out-action-guard";
