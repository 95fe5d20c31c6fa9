/**
 * The core's error family, after the AI SDK's `AISDKError` pattern: every class carries a
 * marker of its own (a registered symbol, so `isInstance` works across bundles and realms where
 * `instanceof` does not), and `X.isInstance(error)` is true only for `X` and its subclasses.
 */
const baseMarker = Symbol.for("cairn.harness.error");

/** The kind of failure, the part of `code` before the colon. */
export type HarnessErrorType =
  "validation" | "forbidden" | "not_found" | "conflict" | (string & {});

/** Stable, machine-readable: `type:surface`, e.g. `conflict:entry`, `validation:path`. */
export type HarnessErrorCode = `${HarnessErrorType}:${string}`;

interface ErrorOptions {
  message: string;
  surface?: string;
  details?: Record<string, unknown>;
  cause?: unknown;
}

function hasMarker(error: unknown, marker: symbol): boolean {
  return (
    typeof error === "object" &&
    error !== null &&
    (error as Record<symbol, unknown>)[marker] === true
  );
}

/**
 * The one base class of every error the core throws. `code` is stable and machine-readable
 * (`type:surface`, e.g. `conflict:entry`); `details` carries structured fields for the edge
 * mapper and logs; `cause` keeps the underlying error.
 */
export class HarnessError extends Error {
  private readonly [baseMarker] = true;
  readonly code: HarnessErrorCode;
  readonly details: Record<string, unknown>;

  constructor(options: {
    code: HarnessErrorCode;
    message: string;
    details?: Record<string, unknown>;
    cause?: unknown;
  }) {
    super(options.message, { cause: options.cause });
    this.name = new.target.name;
    this.code = options.code;
    this.details = options.details ?? {};
  }

  /** The type part of the code (`conflict` for `conflict:entry`). */
  get type(): HarnessErrorType {
    return this.code.slice(0, this.code.indexOf(":"));
  }

  static isInstance(error: unknown): error is HarnessError {
    return hasMarker(error, baseMarker);
  }
}

const validationMarker = Symbol.for("cairn.harness.error.validation");

/** Input that breaks a rule: bad field, contract violation, size limit, hostile path. */
export class HarnessValidationError extends HarnessError {
  private readonly [validationMarker] = true;

  constructor(options: ErrorOptions) {
    super({ code: `validation:${options.surface ?? "input"}`, ...options });
  }

  static override isInstance(error: unknown): error is HarnessValidationError {
    return hasMarker(error, validationMarker);
  }
}

const forbiddenMarker = Symbol.for("cairn.harness.error.forbidden");

/** The actor may not do this (e.g. a member writing a global entry, a write to a read-only dir). */
export class HarnessForbiddenError extends HarnessError {
  private readonly [forbiddenMarker] = true;

  constructor(options: ErrorOptions) {
    super({ code: `forbidden:${options.surface ?? "harness"}`, ...options });
  }

  static override isInstance(error: unknown): error is HarnessForbiddenError {
    return hasMarker(error, forbiddenMarker);
  }
}

const notFoundMarker = Symbol.for("cairn.harness.error.not_found");

/** The thing asked for does not exist. */
export class HarnessNotFoundError extends HarnessError {
  private readonly [notFoundMarker] = true;

  constructor(options: ErrorOptions) {
    super({ code: `not_found:${options.surface ?? "harness"}`, ...options });
  }

  static override isInstance(error: unknown): error is HarnessNotFoundError {
    return hasMarker(error, notFoundMarker);
  }
}

const conflictMarker = Symbol.for("cairn.harness.error.conflict");

/** Optimistic concurrency: the caller's expected version/cursor is stale. Nothing was changed. */
export class HarnessConflictError extends HarnessError {
  private readonly [conflictMarker] = true;

  constructor(options: ErrorOptions) {
    super({ code: `conflict:${options.surface ?? "harness"}`, ...options });
  }

  static override isInstance(error: unknown): error is HarnessConflictError {
    return hasMarker(error, conflictMarker);
  }
}
