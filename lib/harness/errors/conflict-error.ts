import { hasErrorMarker, HarnessError, type HarnessErrorOptions } from "./harness-error";

const marker = Symbol.for("cairn.harness.error.conflict");

/** Optimistic concurrency: the caller's expected version/cursor is stale. Nothing was changed. Code `conflict:<surface>` (default surface `harness`). */
export class HarnessConflictError extends HarnessError {
  private readonly [marker] = true;

  constructor(options: HarnessErrorOptions) {
    super({ code: `conflict:${options.surface ?? "harness"}`, ...options });
  }

  static override isInstance(error: unknown): error is HarnessConflictError {
    return hasErrorMarker(error, marker);
  }
}
