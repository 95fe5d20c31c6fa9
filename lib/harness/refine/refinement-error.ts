import { HarnessError } from "../errors";
import { type RefinementErrorInfo } from "./types";

/**
 * A refinement-specific failure: `refine:truncated` (the model hit its output limit),
 * `refine:malformed` (the output was not JSON of the expected shape), `refine:model` (the
 * model call failed), `refine:locked`, `refine:not_rollbackable`, `refine:not_pending`, …
 * Extends `HarnessError`, so the edge mapper handles it like every core error.
 */
export class RefinementError extends HarnessError {
  constructor(options: {
    /** The part after `refine:`, e.g. `truncated`. */
    reason: string;
    message: string;
    details?: Record<string, unknown>;
    cause?: unknown;
  }) {
    super({
      code: `refine:${options.reason}`,
      message: options.message,
      details: options.details,
      cause: options.cause,
    });
  }
}

/** The JSON form of any error, as recorded on a refinement or an edit. */
export function toErrorInfo(error: unknown): RefinementErrorInfo {
  if (HarnessError.isInstance(error)) {
    const details = error.details;
    return Object.keys(details).length > 0
      ? { code: error.code, message: error.message, details: jsonSafe(details) }
      : { code: error.code, message: error.message };
  }
  if (error instanceof Error) return { code: "refine:error", message: error.message };
  return { code: "refine:error", message: String(error) };
}

function jsonSafe(value: Record<string, unknown>): Record<string, unknown> {
  try {
    return JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
  } catch {
    return {};
  }
}
