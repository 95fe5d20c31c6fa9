export { imageOriginsFromEnv, parseImageOrigins } from "./image-origins";
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
