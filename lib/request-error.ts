import { hasErrorMarker, HarnessError, registerErrorType } from "@/lib/harness";

/**
 * Why an HTTP request was refused before the work it asks for began: the app's kind `request`
 * (and `model:unavailable`), registered here beside the class, so the one mapping
 * (`lib/app-error.ts`) gives every door the same status, code and words.
 */
export type RequestErrorReason =
  "unauthenticated" | "foreign" | "media_type" | "too_large" | "invalid" | "rate_limited";

declare module "@/lib/harness" {
  interface HarnessErrorTypes {
    /** An HTTP request refused at the door (session, origin, body, rate). */
    request: true;
    /** No model is connected, or the one set up cannot be reached. */
    model: true;
  }
}

registerErrorType("request", {
  status: 400,
  codes: {
    "request:unauthenticated": 401,
    "request:foreign": 403,
    "request:media_type": 415,
    "request:too_large": 413,
    "request:rate_limited": 429,
  },
});
registerErrorType("model", { status: 503 });

const requestMarker = Symbol.for("cairn.app.error.request");
const modelMarker = Symbol.for("cairn.app.error.model");

/**
 * A request refused at the door. `details` are written by the app for the client (a field's
 * issues, `retryAfterSeconds`) and are sent with the error; the message is written for people.
 */
export class RequestError extends HarnessError {
  private readonly [requestMarker] = true;

  constructor(
    readonly reason: RequestErrorReason,
    message: string,
    details?: Record<string, unknown>,
  ) {
    super({ code: `request:${reason}`, message, ...(details && { details }) });
  }

  static override isInstance(error: unknown): error is RequestError {
    return hasErrorMarker(error, requestMarker);
  }
}

/**
 * A turn that could not be sent because no model is connected (or it is unreachable): 503,
 * `model:unavailable`. `details` (e.g. `stored`: the kept message) are sent with the error.
 */
export class ModelUnavailableError extends HarnessError {
  private readonly [modelMarker] = true;

  constructor(message: string, details?: Record<string, unknown>) {
    super({ code: "model:unavailable", message, ...(details && { details }) });
  }

  static override isInstance(error: unknown): error is ModelUnavailableError {
    return hasErrorMarker(error, modelMarker);
  }
}

/** `refuseForeignRequest`'s (or the rebinding guard's) refusal as a `RequestError`. */
export function refusalError(refused: { status: 403 | 415; error: string }): RequestError {
  return new RequestError(refused.status === 415 ? "media_type" : "foreign", refused.error);
}
