export {
  HarnessError,
  hasErrorMarker,
  type HarnessErrorCode,
  type HarnessErrorOptions,
  type HarnessErrorSurface,
  type HarnessErrorType,
  type HarnessErrorTypes,
} from "./harness-error";
export { HarnessValidationError } from "./validation-error";
export { HarnessForbiddenError } from "./forbidden-error";
export { HarnessNotFoundError } from "./not-found-error";
export { HarnessConflictError } from "./conflict-error";
export {
  describeError,
  httpStatusOf,
  INTERNAL_ERROR_MESSAGE,
  registerErrorType,
  toErrorInfo,
  toPublicError,
  type ErrorInfo,
  type ErrorStatus,
  type PublicError,
} from "./error-info";
