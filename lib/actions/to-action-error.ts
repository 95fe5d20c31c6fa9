import { z, ZodError } from "zod";
import { AccessTokenError } from "@/lib/access-tokens/access-tokens";
import { AccountError } from "@/lib/accounts/accounts";
import { toAppError } from "@/lib/app-error";
import { ActionFailure } from "./action-failure";
import type { ActionError } from "./result";

/**
 * The one mapping from what an action threw to what the person sees, with the HTTP-like status
 * that decides whether it becomes a 403. Deliberate refusals and the families whose messages are
 * written for people (core `HarnessError`s, `AccountError`, `AccessTokenError`) keep their text;
 * input the schema refused becomes one message plus the messages per field; anything else is
 * logged and shown as a generic failure, so nothing internal leaks.
 */
export function toActionError(error: unknown): { status: number; error: ActionError } {
  if (error instanceof ActionFailure)
    return { status: 400, error: { code: error.code, message: error.message } };
  if (error instanceof ZodError) {
    const fieldErrors = z.flattenError(error).fieldErrors as Record<string, string[]>;
    const appError = toAppError(error);
    return {
      status: 400,
      error: {
        code: appError.code,
        message: appError.message,
        ...(Object.keys(fieldErrors).length > 0 ? { fieldErrors } : {}),
      },
    };
  }
  // Their codes carry the family already (`account:<reason>`, `access_token:<reason>`).
  if (AccountError.isInstance(error) || AccessTokenError.isInstance(error))
    return { status: 400, error: { code: error.code, message: error.message } };
  const appError = toAppError(error);
  return { status: appError.status, error: { code: appError.code, message: appError.message } };
}
