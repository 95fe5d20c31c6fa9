const marker = Symbol.for("cairn.documents.error.refused");

/** Why a document was refused; stable, for tests and the UI. */
export type DocumentRefusalReason =
  | "name"
  | "too_large"
  | "unsupported_type"
  | "mislabeled"
  | "corrupt"
  | "encrypted"
  | "zip_bomb"
  | "forbidden";

/**
 * A document that is not taken: its name, size or content is refused. `message` names the file
 * and the reason in words a person understands; nothing of the document was stored.
 */
export class DocumentRefusedError extends Error {
  private readonly [marker] = true;
  readonly reason: DocumentRefusalReason;
  readonly fileName: string;

  constructor(options: {
    fileName: string;
    reason: DocumentRefusalReason;
    message: string;
    cause?: unknown;
  }) {
    super(`${options.fileName}: ${options.message}`, { cause: options.cause });
    this.name = "DocumentRefusedError";
    this.reason = options.reason;
    this.fileName = options.fileName;
  }

  static isInstance(error: unknown): error is DocumentRefusedError {
    return typeof error === "object" && error !== null && marker in error;
  }
}
