import { APICallError, LoadAPIKeyError, RetryError } from "ai";

/** What went wrong when calling the model, in the terms a person can act on. */
export type ProviderErrorCode =
  | "unreachable"
  | "unauthorized"
  | "rate_limited"
  | "context_too_long"
  | "bad_request"
  | "provider_error";

/** A provider failure ready to show in the chat. `message` holds no secrets. */
export interface ProviderErrorDescription {
  code: ProviderErrorCode;
  message: string;
  /** The HTTP status the provider answered, when it answered. */
  statusCode?: number;
  /** Whether trying the same request again later may succeed. */
  retryable: boolean;
}

const networkErrorCodes: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host name lookup failed",
  ECONNRESET: "connection reset",
  ETIMEDOUT: "connection timed out",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  EPIPE: "connection closed",
  UND_ERR_SOCKET: "connection closed",
  UND_ERR_CONNECT_TIMEOUT: "connection timed out",
  UND_ERR_HEADERS_TIMEOUT: "no answer in time",
  UND_ERR_BODY_TIMEOUT: "the answer stalled",
  ConnectionRefused: "connection refused",
  ConnectionClosed: "connection closed",
  FailedToOpenSocket: "connection refused",
};

const contextTooLongPattern =
  /context[_ ]length|maximum context|context window|context size|too many tokens|prompt is too long|prompt too long|input is too long|exceeds? the (?:available |maximum )?context|reduce the length|token limit|max_tokens.*too large|request_too_large/i;

const maxDetailLength = 300;

/**
 * Classifies an error thrown by (or streamed from) an AI SDK call into a code and a clear message
 * for the chat. Looks through `RetryError` (retries exhausted), `NoOutputGeneratedError` and other
 * `cause` chains to the `APICallError` or network failure underneath, and understands the error
 * objects OpenAI-compatible servers send inside a stream. Never throws.
 *
 * - no answer (ECONNREFUSED, ENOTFOUND, timeouts, "fetch failed") → `unreachable`
 * - 401, 403, a missing key → `unauthorized`
 * - 429 → `rate_limited` (quota exhaustion included)
 * - 400/413/422 whose body mentions the context length, and 413 → `context_too_long`
 * - other 4xx → `bad_request`; 5xx and anything else → `provider_error`
 */
export function describeProviderError(error: unknown): ProviderErrorDescription {
  const chain = causeChain(error);
  const apiError = chain.find((item) => APICallError.isInstance(item));
  if (apiError) return describeAPICallError(apiError);
  if (chain.some((item) => LoadAPIKeyError.isInstance(item)))
    return {
      code: "unauthorized",
      message: "The model provider needs an API key: set AI_API_KEY and restart Cairn.",
      retryable: false,
    };
  const network = findNetworkFailure(chain);
  if (network)
    return {
      code: "unreachable",
      message: `The model provider could not be reached (${network}). Check that it is running and that AI_BASE_URL is right.`,
      retryable: true,
    };
  if (chain.some((item) => item instanceof Error && item.name === "AbortError"))
    return {
      code: "provider_error",
      message: "The request was stopped before the model finished answering.",
      retryable: true,
    };
  const streamed = chain.find(isProviderErrorObject);
  if (streamed) return describeErrorText(errorText(streamed));
  return {
    code: "provider_error",
    message: `The model provider failed${detailSuffix(errorText(chain.at(-1) ?? error))}. Try again.`,
    retryable: false,
  };
}

function describeAPICallError(error: APICallError): ProviderErrorDescription {
  const status = error.statusCode;
  const detail = providerDetail(error);
  const where = endpointOf(error.url);
  if (status === undefined) {
    const network = findNetworkFailure(causeChain(error.cause));
    return {
      code: "unreachable",
      message: `The model provider at ${where} could not be reached${network ? ` (${network})` : ""}. Check that it is running and that AI_BASE_URL is right.`,
      retryable: true,
    };
  }
  const base = { statusCode: status };
  if (status === 401 || status === 403)
    return {
      ...base,
      code: "unauthorized",
      message: `The model provider rejected the API key (${status}${detailSuffix(detail, ": ")}). Check AI_API_KEY.`,
      retryable: false,
    };
  if (status === 429) {
    const quota = /quota|billing|credit/i.test(detail);
    return {
      ...base,
      code: "rate_limited",
      message: quota
        ? `The model provider's quota is used up${detailSuffix(detail)}. Check the account's plan and billing.`
        : `The model provider is rate-limiting requests${detailSuffix(detail)}. Wait a moment and try again.`,
      retryable: !quota,
    };
  }
  if (status === 413 || ((status === 400 || status === 422) && contextTooLongPattern.test(detail)))
    return { ...base, ...contextTooLong(detail) };
  if (status === 404)
    return {
      ...base,
      code: "bad_request",
      message: `The model provider answered 404 at ${where}${detailSuffix(detail, ": ")}. Check AI_MODEL, and AI_BASE_URL (it usually ends in /v1).`,
      retryable: false,
    };
  if (status >= 400 && status < 500)
    return {
      ...base,
      code: "bad_request",
      message: `The model provider refused the request (${status}${detailSuffix(detail, ": ")}).`,
      retryable: false,
    };
  return {
    ...base,
    code: "provider_error",
    message:
      status === 503 || status === 529
        ? `The model provider is overloaded (${status}). Try again in a moment.`
        : `The model provider failed (${status}${detailSuffix(detail, ": ")}). Try again.`,
    retryable: true,
  };
}

function describeErrorText(detail: string): ProviderErrorDescription {
  if (contextTooLongPattern.test(detail)) return contextTooLong(detail);
  if (/rate limit|rate_limit|too many requests/i.test(detail))
    return {
      code: "rate_limited",
      message: `The model provider is rate-limiting requests${detailSuffix(detail)}. Wait a moment and try again.`,
      retryable: true,
    };
  return {
    code: "provider_error",
    message: `The model provider failed while answering${detailSuffix(detail)}. Try again.`,
    retryable: true,
  };
}

function contextTooLong(detail: string): Omit<ProviderErrorDescription, "statusCode"> {
  return {
    code: "context_too_long",
    message: `The conversation is too long for the model's context window${detailSuffix(detail)}. Start a new chat, or set AI_CONTEXT_WINDOW to the window the model really has so Cairn compacts earlier.`,
    retryable: false,
  };
}

/** The error, then its `cause`s and a `RetryError`'s attempts (last first), without cycles. */
function causeChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  const queue: unknown[] = [error];
  while (queue.length > 0 && chain.length < 20) {
    const item = queue.shift();
    if (item === undefined || item === null || chain.includes(item)) continue;
    chain.push(item);
    if (RetryError.isInstance(item)) queue.push(...[...item.errors].reverse());
    if (item instanceof Error && item.cause !== undefined) queue.push(item.cause);
    if (item instanceof AggregateError) queue.push(...(item.errors as unknown[]));
  }
  return chain;
}

function findNetworkFailure(chain: unknown[]): string | undefined {
  for (const item of chain) {
    if (typeof item !== "object" || item === null) continue;
    const code = "code" in item ? item.code : undefined;
    if (typeof code === "string" && code in networkErrorCodes) return networkErrorCodes[code];
    if (item instanceof Error && item.name === "TimeoutError") return "no answer in time";
  }
  for (const item of chain)
    if (item instanceof TypeError && /fetch failed|failed to fetch/i.test(item.message))
      return "the request failed";
  return undefined;
}

/** An `{ message, type?, code? }` error object as OpenAI-compatible servers stream it. */
function isProviderErrorObject(item: unknown): item is { message: string } {
  return (
    typeof item === "object" &&
    item !== null &&
    !(item instanceof Error) &&
    "message" in item &&
    typeof item.message === "string"
  );
}

function errorText(item: unknown): string {
  if (item instanceof Error) return item.message;
  if (isProviderErrorObject(item)) {
    const code = "code" in item && typeof item.code === "string" ? ` (${item.code})` : "";
    return `${item.message}${code}`;
  }
  return typeof item === "string" ? item : "";
}

/** The provider's own explanation: `error.message` from a JSON body, else the raw body. */
function providerDetail(error: APICallError): string {
  const body = error.responseBody;
  if (body) {
    try {
      const parsed = JSON.parse(body) as unknown;
      const inner =
        typeof parsed === "object" && parsed !== null && "error" in parsed ? parsed.error : parsed;
      const text = errorText(inner) || (typeof inner === "string" ? inner : "");
      if (text) return text;
    } catch {
      // Not JSON: the raw body is the best detail there is.
    }
    return body;
  }
  return error.message;
}

function detailSuffix(detail: string, separator = ": "): string {
  const clean = detail.replace(/\s+/g, " ").trim();
  if (!clean) return "";
  const short = clean.length > maxDetailLength ? `${clean.slice(0, maxDetailLength)}…` : clean;
  return `${separator}${short}`;
}

/** The endpoint's origin and path, without query strings (which may carry keys). */
function endpointOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return "its address";
  }
}
