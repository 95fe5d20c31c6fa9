import { z } from "zod";

import { isNotFoundError, isUniqueConstraintError } from "@/lib/db";
import {
  HarnessConflictError,
  HarnessError,
  HarnessNotFoundError,
  toPublicError,
  type PublicError,
} from "@/lib/harness";
import { ModelUnavailableError, RequestError } from "@/lib/request-error";
import { isUniqueViolation } from "@/lib/sql-storage/sql";

/** What an endpoint may show a person: a status, a stable code and a safe message. */
export type AppError = PublicError;

/**
 * The app's door to the core's one error mapping (`toPublicError` in `lib/harness/errors`):
 * database refusals are first turned into core errors (a unique-key clash is a conflict, a
 * missing row is not found), then everything goes through the same mapping. Unknown errors are
 * logged and shown as a generic failure. Every door speaks through it: route handlers with
 * `errorResponse`, server actions with `toActionError`, MCP tools with `toolErrorText`, the
 * CLI with `cliFailure`.
 */
export function toAppError(error: unknown): AppError {
  // Prisma's P2002, or the driver's own error from a query on the SQL layer.
  if (isUniqueConstraintError(error) || isUniqueViolation(error)) {
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

/**
 * The fields an error may add to a response body: what the app itself wrote for the client on
 * its door errors (`RequestError`, `ModelUnavailableError`), and the per-field issues of input
 * a schema refused. Other errors' details may hold internals and are never sent.
 */
function publicFields(error: unknown): Record<string, unknown> {
  if (RequestError.isInstance(error) || ModelUnavailableError.isInstance(error)) {
    return error.details;
  }
  if (error instanceof z.ZodError) return { issues: z.flattenError(error).fieldErrors };
  return {};
}

/**
 * The HTTP door: any error as one JSON body shape, `{ error, code, ...fields }`, with the
 * mapping's status (and `Retry-After` when the error says when to try again).
 */
export function errorResponse(error: unknown): Response {
  const appError = toAppError(error);
  const fields = publicFields(error);
  const retryAfter = fields.retryAfterSeconds;
  return Response.json(
    { ...fields, error: appError.message, code: appError.code },
    {
      status: appError.status,
      ...(typeof retryAfter === "number" && { headers: { "Retry-After": String(retryAfter) } }),
    },
  );
}

/**
 * The MCP door: the text of a tool error the client can act on (`code: message`), or `null`
 * for a server fault (status 500), which the caller lets through as an internal error.
 */
export function toolErrorText(error: unknown): string | null {
  if (!HarnessError.isInstance(error) && !(error instanceof z.ZodError)) return null;
  const appError = toAppError(error);
  if (appError.status === 500) return null;
  return error instanceof z.ZodError
    ? `invalid input: ${appError.message}`
    : `${appError.code}: ${appError.message}`;
}

/**
 * The CLI door: the line to print and the exit code — 2 when the command line or the input was
 * wrong (status 400: usage, validation, configuration), 1 for anything else. The CLI is run by
 * the operator, so an error outside the family keeps its own message.
 */
export function cliFailure(error: unknown): { exitCode: 1 | 2; message: string } {
  if (!HarnessError.isInstance(error) && !(error instanceof z.ZodError)) {
    return { exitCode: 1, message: (error as Error)?.message ?? String(error) };
  }
  const appError = toAppError(error);
  return { exitCode: appError.status === 400 ? 2 : 1, message: appError.message };
}
