import { ZodError } from "zod";
import { isNotFoundError, isUniqueConstraintError } from "@/lib/db";
import { HarnessError } from "@/lib/harness";

/** What an endpoint may show a person: a status and a safe message. */
export interface AppError {
  status: 400 | 403 | 404 | 409 | 500;
  code: string;
  message: string;
}

/**
 * The one mapper from thrown errors to what the edge shows. Core errors carry messages written
 * for people; anything unknown is logged and shown as a generic failure.
 */
export function toAppError(error: unknown): AppError {
  if (HarnessError.isInstance(error)) {
    const [type] = error.code.split(":");
    // `refine:*` errors are about a refinement's state (not pending, nothing to roll back): 409.
    const status =
      type === "validation"
        ? 400
        : type === "forbidden"
          ? 403
          : type === "not_found"
            ? 404
            : type === "conflict" || type === "refine"
              ? 409
              : 500;
    return { status, code: error.code, message: error.message };
  }
  if (error instanceof ZodError) {
    return {
      status: 400,
      code: "validation:input",
      message: error.issues
        .map((issue) => `${issue.path.join(".") || "input"}: ${issue.message}`)
        .join("; "),
    };
  }
  if (isUniqueConstraintError(error))
    return { status: 409, code: "conflict:unique", message: "That already exists." };
  if (isNotFoundError(error))
    return { status: 404, code: "not_found:record", message: "That no longer exists." };
  console.error(error);
  return { status: 500, code: "internal", message: "Something went wrong. Try again." };
}
