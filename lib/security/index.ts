export { imageOriginsFromEnv, parseImageOrigins } from "./image-origins";
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
