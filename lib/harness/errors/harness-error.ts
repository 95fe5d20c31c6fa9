/**
 * The base of the core's error family, after the AI SDK's `AISDKError` pattern: every class
 * carries a marker of its own (a registered symbol, so `isInstance` works across bundles and
 * realms where `instanceof` does not), and `X.isInstance(error)` is true only for `X` and its
 * subclasses. Each class lives in a file of its own; `index.ts` lists them.
 */
const marker = Symbol.for("cairn.harness.error");

/**
 * The kinds of failure, the part of `code` before the colon: the core's own below. A host adds
 * its kinds by augmenting this interface and registering each kind's HTTP status with
 * `registerErrorType` (`error-info.ts`), beside the class that throws it — the core lists no
 * host vocabulary:
 *
 * ```ts
 * declare module "@/lib/harness" {
 *   interface HarnessErrorTypes { account: true }
 * }
 * registerErrorType("account", { status: 400, codes: { "account:email_taken": 409 } });
 * ```
 */
export interface HarnessErrorTypes {
  validation: true;
  forbidden: true;
  not_found: true;
  conflict: true;
  /** A refinement's state forbids the step (not pending, nothing to roll back, locked, …). */
  refine: true;
  /** Something underneath failed (a store, a journal, an injected fault). */
  failed: true;
  /** A turn or commit was cut short (a crash, a restart). */
  interrupted: true;
}

/** A kind of failure: the core's or one a host registered. */
export type HarnessErrorType = keyof HarnessErrorTypes;

/** Stable, machine-readable: `type:detail`, e.g. `conflict:entry`, `validation:path`. */
export type HarnessErrorCode = `${HarnessErrorType}:${string}`;

/** What the four generic classes' codes name after the colon: the thing that was refused. */
export type HarnessErrorSurface =
  | "input"
  | "harness"
  | "entry"
  | "edit"
  | "path"
  | "dir"
  | "commit"
  | "cursor"
  | "revision"
  | "snapshot"
  | "refinement"
  | "import"
  | "export"
  | "portability"
  | "frontmatter"
  | "turn"
  | "chat"
  /** A proposed change awaiting review (the app's review queue). */
  | "suggestion"
  /** A database row (a unique-key clash, a row gone meanwhile). */
  | "record";

/** The options of the generic classes (validation, forbidden, not found, conflict). */
export interface HarnessErrorOptions {
  message: string;
  surface?: HarnessErrorSurface;
  details?: Record<string, unknown>;
  cause?: unknown;
}

/** True when `error` is an object carrying `marker`: the test behind every `isInstance`. */
export function hasErrorMarker(error: unknown, marker: symbol): boolean {
  return (
    typeof error === "object" &&
    error !== null &&
    (error as Record<symbol, unknown>)[marker] === true
  );
}

/**
 * The one base class of every error the core throws. `code` is stable and machine-readable
 * (`type:detail`, e.g. `conflict:entry`); `details` carries structured fields for the edge
 * mapper and logs; `cause` keeps the underlying error.
 */
export class HarnessError extends Error {
  private readonly [marker] = true;
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
    return this.code.slice(0, this.code.indexOf(":")) as HarnessErrorType;
  }

  static isInstance(error: unknown): error is HarnessError {
    return hasErrorMarker(error, marker);
  }
}

/**
 * The four generic classes (validation, forbidden, not found, conflict) differ only in their
 * type, the surface their code names by default, and their marker
 * (`cairn.harness.error.<type>`): `export class X extends genericHarnessError(type, surface) {}`.
 */
export function genericHarnessError(type: HarnessErrorType, defaultSurface: HarnessErrorSurface) {
  const marker = Symbol.for(`cairn.harness.error.${type}`);
  return class GenericHarnessError extends HarnessError {
    constructor(options: HarnessErrorOptions) {
      super({ code: `${type}:${options.surface ?? defaultSurface}`, ...options });
      (this as unknown as Record<symbol, boolean>)[marker] = true;
    }

    static override isInstance(error: unknown): error is GenericHarnessError {
      return hasErrorMarker(error, marker);
    }
  };
}
