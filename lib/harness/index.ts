export { ROLES, canWriteGlobal, hasRole, isRole, type Actor, type Role } from "./actor";
export {
  HarnessConflictError,
  HarnessError,
  HarnessForbiddenError,
  HarnessNotFoundError,
  HarnessValidationError,
} from "./errors";
