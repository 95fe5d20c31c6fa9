const marker = Symbol.for("cairn.harness.error");

/**
 * The one base class of every error the core throws. `code` is stable and machine-readable
 * (`type:surface`, e.g. `conflict:entry`); `details` carries structured fields for the edge
 * mapper and logs; `cause` keeps the underlying error.
 */
export class HarnessError extends Error {
  readonly [marker] = true;
  readonly code: string;
  readonly details: Record<string, unknown>;

  constructor(options: {
    code: string;
    message: string;
    details?: Record<string, unknown>;
    cause?: unknown;
  }) {
    super(options.message, { cause: options.cause });
    this.name = new.target.name;
    this.code = options.code;
    this.details = options.details ?? {};
  }

  static isInstance(error: unknown): error is HarnessError {
    return typeof error === "object" && error !== null && marker in error;
  }
}

/** Input that breaks a rule: bad field, contract violation, size limit, hostile path. */
export class HarnessValidationError extends HarnessError {
  constructor(options: {
    message: string;
    surface?: string;
    details?: Record<string, unknown>;
    cause?: unknown;
  }) {
    super({ code: `validation:${options.surface ?? "input"}`, ...options });
  }
}

/** The actor may not do this (e.g. a member writing a global entry, a write to a read-only dir). */
export class HarnessForbiddenError extends HarnessError {
  constructor(options: {
    message: string;
    surface?: string;
    details?: Record<string, unknown>;
    cause?: unknown;
  }) {
    super({ code: `forbidden:${options.surface ?? "harness"}`, ...options });
  }
}

/** The thing asked for does not exist. */
export class HarnessNotFoundError extends HarnessError {
  constructor(options: {
    message: string;
    surface?: string;
    details?: Record<string, unknown>;
    cause?: unknown;
  }) {
    super({ code: `not_found:${options.surface ?? "harness"}`, ...options });
  }
}

/** Optimistic concurrency: the caller's expected version/cursor is stale. Nothing was changed. */
export class HarnessConflictError extends HarnessError {
  constructor(options: {
    message: string;
    surface?: string;
    details?: Record<string, unknown>;
    cause?: unknown;
  }) {
    super({ code: `conflict:${options.surface ?? "harness"}`, ...options });
  }
}
