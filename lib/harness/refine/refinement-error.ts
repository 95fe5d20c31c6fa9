import { hasErrorMarker, HarnessError } from "../errors";

const marker = Symbol.for("cairn.harness.error.refine");

/**
 * A refinement-specific failure: `refine:truncated` (the model hit its output limit),
 * `refine:malformed` (the output was not JSON of the expected shape), `refine:model` (the
 * model call failed), `refine:locked`, `refine:not_rollbackable`, `refine:not_pending`, …
 * Extends `HarnessError`, so the edge mapper handles it like every core error.
 */
export class RefinementError extends HarnessError {
  private readonly [marker] = true;

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

  static override isInstance(error: unknown): error is RefinementError {
    return hasErrorMarker(error, marker);
  }
}
