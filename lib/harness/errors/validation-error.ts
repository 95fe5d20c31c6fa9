import { hasErrorMarker, HarnessError, type HarnessErrorOptions } from "./harness-error";

const marker = Symbol.for("cairn.harness.error.validation");

/** Input that breaks a rule: bad field, contract violation, size limit, hostile path. Code `validation:<surface>` (default surface `input`). */
export class HarnessValidationError extends HarnessError {
  private readonly [marker] = true;

  constructor(options: HarnessErrorOptions) {
    super({ code: `validation:${options.surface ?? "input"}`, ...options });
  }

  static override isInstance(error: unknown): error is HarnessValidationError {
    return hasErrorMarker(error, marker);
  }
}
