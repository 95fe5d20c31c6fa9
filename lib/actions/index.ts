import "server-only";
import { requireActor } from "@/lib/auth";
import { createActionClient } from "./create-action";

export const { action, publicAction } = createActionClient({ resolveActor: requireActor });
export { formAction, type Action, type ActionOptions } from "./create-action";
export { ActionFailure, fail } from "./action-failure";
export { toActionError } from "./to-action-error";
export { errorOf, type ActionError, type ActionResult } from "./result";
