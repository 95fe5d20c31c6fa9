import { hasErrorMarker, HarnessError, type HarnessErrorOptions } from "./harness-error";

const marker = Symbol.for("cairn.harness.error.forbidden");

/** The actor may not do this (e.g. a member writing a global entry, a write to a read-only dir). Code `forbidden:<surface>` (default surface `harness`). */
export class HarnessForbiddenError extends HarnessError {
  private readonly [marker] = true;

  constructor(options: HarnessErrorOptions) {
    super({ code: `forbidden:${options.surface ?? "harness"}`, ...options });
  }

  static override isInstance(error: unknown): error is HarnessForbiddenError {
    return hasErrorMarker(error, marker);
  }
}
