import { createStderrLogger } from "../logger";
import { HarnessError, type HarnessErrorCode, type HarnessErrorType } from "./harness-error";

/**
 * The one mapping from a thrown error to what the edges report: the JSON form kept on records
 * (`toErrorInfo`, `describeError`), the HTTP status (`httpStatusOf`) and what a person may be
 * shown (`toPublicError`). API routes, server actions, the CLI and the stores all go through it.
 */

/** The JSON form of any error, as recorded on a refinement, an edit or a failed commit. */
export interface ErrorInfo {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

/** The HTTP statuses the edges answer with. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 410 | 413 | 415 | 429 | 500 | 503;

/** What an endpoint or action may show a person: a status, a stable code and a safe message. */
export interface PublicError {
  status: ErrorStatus;
  code: string;
  message: string;
}

/** The core's kinds of failure and their statuses. */
const CORE_STATUS_BY_TYPE = {
  validation: 400,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  // A refinement's state forbids the step (not pending, nothing to roll back): 409.
  refine: 409,
  failed: 500,
  interrupted: 500,
} as const satisfies Record<string, ErrorStatus>;

/** The statuses of the kinds hosts registered, and of codes whose status is not their kind's. */
const registeredTypes = new Map<string, ErrorStatus>();
const registeredCodes = new Map<string, ErrorStatus>();

/**
 * Registers a host's kind of failure (declared by augmenting `HarnessErrorTypes`): the status
 * its codes map to, and `codes` whose status differs from it. Called once, beside the class that
 * throws it; registering a core kind, or a kind again with other statuses, throws.
 */
export function registerErrorType(
  type: Exclude<HarnessErrorType, keyof typeof CORE_STATUS_BY_TYPE>,
  options: { status: ErrorStatus; codes?: Record<`${typeof type}:${string}`, ErrorStatus> },
): void {
  if (Object.hasOwn(CORE_STATUS_BY_TYPE, type)) {
    throw new Error(`"${type}" is one of the core's error types; it cannot be registered`);
  }
  const codes = Object.entries(options.codes ?? {}) as [string, ErrorStatus][];
  const known = registeredTypes.get(type);
  if (
    known !== undefined &&
    (known !== options.status ||
      codes.some(([code, status]) => registeredCodes.get(code) !== status))
  ) {
    throw new Error(`Error type "${type}" is registered already, with other statuses`);
  }
  registeredTypes.set(type, options.status);
  for (const [code, status] of codes) {
    if (!code.startsWith(`${type}:`)) throw new Error(`${code} is not a code of "${type}"`);
    registeredCodes.set(code, status);
  }
}

/** What a person is shown for a failure that is not theirs to fix (and is logged instead). */
export const INTERNAL_ERROR_MESSAGE = "Something went wrong. Try again.";

/** The HTTP status of an error (or of a code): 500 for anything outside the family. */
export function httpStatusOf(error: unknown): ErrorStatus {
  const code =
    typeof error === "string" ? error : HarnessError.isInstance(error) ? error.code : null;
  if (code === null) return isZodLike(error) ? 400 : 500;
  const type = code.slice(0, code.indexOf(":"));
  return (
    registeredCodes.get(code) ??
    (Object.hasOwn(CORE_STATUS_BY_TYPE, type)
      ? CORE_STATUS_BY_TYPE[type as keyof typeof CORE_STATUS_BY_TYPE]
      : registeredTypes.get(type)) ??
    500
  );
}

/**
 * `{ code, message }` of any error: a family error keeps its code and message; anything else
 * gets `fallbackCode` and its own message (for records and logs, not for people — see
 * `toPublicError`).
 */
export function describeError(
  error: unknown,
  fallbackCode: HarnessErrorCode = "failed:store",
): { code: string; message: string } {
  if (HarnessError.isInstance(error)) return { code: error.code, message: error.message };
  if (error instanceof Error) return { code: fallbackCode, message: error.message || error.name };
  return { code: fallbackCode, message: String(error) };
}

/** `describeError` plus the family error's `details` (made JSON-safe), when it has any. */
export function toErrorInfo(
  error: unknown,
  fallbackCode: HarnessErrorCode = "failed:internal",
): ErrorInfo {
  const described = describeError(error, fallbackCode);
  if (HarnessError.isInstance(error) && Object.keys(error.details).length > 0) {
    return { ...described, details: jsonSafe(error.details) };
  }
  return described;
}

/**
 * What an edge may show a person. Family errors carry messages written for people; a zod
 * error becomes `validation:input` with its issues; anything else is logged (via `log`) and
 * shown as a generic failure — its message may hold internals.
 */
export function toPublicError(
  error: unknown,
  log: (error: unknown) => void = (error) =>
    createStderrLogger().error({ err: error }, "an unexpected error reached an edge"),
): PublicError {
  if (HarnessError.isInstance(error)) {
    const status = httpStatusOf(error);
    if (status === 500) log(error);
    return { status, code: error.code, message: error.message };
  }
  if (isZodLike(error)) {
    return {
      status: 400,
      code: "validation:input",
      message: error.issues
        .map((issue) => `${issue.path.map(String).join(".") || "input"}: ${issue.message}`)
        .join("; "),
    };
  }
  log(error);
  return { status: 500, code: "failed:internal", message: INTERNAL_ERROR_MESSAGE };
}

/** A zod error (checked by shape: the core does not tie its mapping to one zod build). */
function isZodLike(
  error: unknown,
): error is { issues: { path: readonly PropertyKey[]; message: string }[] } {
  return (
    error instanceof Error &&
    error.name === "ZodError" &&
    Array.isArray((error as { issues?: unknown }).issues)
  );
}

function jsonSafe(value: Record<string, unknown>): Record<string, unknown> {
  try {
    return JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
  } catch {
    return {};
  }
}
