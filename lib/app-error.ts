import { isNotFoundError, isUniqueConstraintError } from "@/lib/db";
import {
  HarnessConflictError,
  HarnessNotFoundError,
  toPublicError,
  type PublicError,
} from "@/lib/harness";

/** What an endpoint may show a person: a status, a stable code and a safe message. */
export type AppError = PublicError;

/**
 * The app's door to the core's one error mapping (`toPublicError` in `lib/harness/errors`):
 * database refusals are first turned into core errors (a unique-key clash is a conflict, a
 * missing row is not found), then everything goes through the same mapping. Unknown errors are
 * logged and shown as a generic failure.
 */
export function toAppError(error: unknown): AppError {
  if (isUniqueConstraintError(error)) {
    return toPublicError(
      new HarnessConflictError({
        surface: "record",
        message: "That already exists.",
        cause: error,
      }),
    );
  }
  if (isNotFoundError(error)) {
    return toPublicError(
      new HarnessNotFoundError({
        surface: "record",
        message: "That no longer exists.",
        cause: error,
      }),
    );
  }
  return toPublicError(error);
}
