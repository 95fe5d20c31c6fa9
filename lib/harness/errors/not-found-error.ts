import { hasErrorMarker, HarnessError, type HarnessErrorOptions } from "./harness-error";

const marker = Symbol.for("cairn.harness.error.not_found");

/** The thing asked for does not exist. Code `not_found:<surface>` (default surface `harness`). */
export class HarnessNotFoundError extends HarnessError {
  private readonly [marker] = true;

  constructor(options: HarnessErrorOptions) {
    super({ code: `not_found:${options.surface ?? "harness"}`, ...options });
  }

  static override isInstance(error: unknown): error is HarnessNotFoundError {
    return hasErrorMarker(error, marker);
  }
}
