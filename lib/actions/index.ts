export { formAction, type Action, type ActionOptions } from "./create-action";
export { ActionFailure, fail } from "./action-failure";
export { toActionError } from "./to-action-error";
export { errorOf, type ActionError, type ActionResult } from "./result";
export * from "./action-clients";
