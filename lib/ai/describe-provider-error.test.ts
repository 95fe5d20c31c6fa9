import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { APICallError, generateText, NoOutputGeneratedError, RetryError } from "ai";
import { describe, expect, it } from "vitest";
import { describeProviderError } from "./describe-provider-error";
import { closedPortURL } from "./internal/test-http";

function apiError(statusCode: number | undefined, body?: unknown, cause?: unknown) {
  const responseBody =
    body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body);
  return new APICallError({
    message: "provider said no",
    url: "https://api.example.com/v1/chat/completions?key=secret",
    requestBodyValues: {},
    statusCode,
    responseBody,
    cause,
  });
}

describe("describeProviderError", () => {
  it.each([
    [
      401,
      {
        error: { message: "Incorrect API key provided: sk-ab***yz", type: "invalid_request_error" },
      },
      "unauthorized",
    ],
    [403, "Forbidden", "unauthorized"],
    [
      429,
      { error: { message: "Rate limit reached for requests", type: "requests" } },
      "rate_limited",
    ],
    [
      400,
      {
        error: {
          message:
            "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.",
          code: "context_length_exceeded",
        },
      },
      "context_too_long",
    ],
    [
      400,
      {
        type: "error",
        error: {
          type: "invalid_request_error",
          message: "prompt is too long: 201234 tokens > 200000 maximum",
        },
      },
      "context_too_long",
    ],
    [
      400,
      {
        error: {
          message: "the request exceeds the available context size, try increasing it",
          type: "exceed_context_size_error",
        },
      },
      "context_too_long",
    ],
    [413, "Request Entity Too Large", "context_too_long"],
    [400, { error: { message: "Invalid value for 'temperature'" } }, "bad_request"],
    [404, { error: { message: "model 'llama9' not found" } }, "bad_request"],
    [500, { error: { message: "internal" } }, "provider_error"],
    [
      529,
      { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
      "provider_error",
    ],
  ] as const)("classifies %i %j as %s", (status, body, code) => {
    const description = describeProviderError(apiError(status, body));
    expect(description.code).toBe(code);
    expect(description.statusCode).toBe(status);
    expect(description.message).not.toContain("secret");
  });

  it("writes messages a person can act on", () => {
    expect(
      describeProviderError(apiError(401, { error: { message: "Invalid key" } })).message,
    ).toBe("The model provider rejected the API key (401: Invalid key). Check AI_API_KEY.");
    expect(describeProviderError(apiError(429, { error: { message: "Slow down" } }))).toEqual({
      code: "rate_limited",
      statusCode: 429,
      retryable: true,
      message:
        "The model provider is rate-limiting requests: Slow down. Wait a moment and try again.",
    });
    expect(
      describeProviderError(
        apiError(429, {
          error: { message: "You exceeded your current quota", code: "insufficient_quota" },
        }),
      ),
    ).toMatchObject({
      code: "rate_limited",
      retryable: false,
      message: expect.stringContaining("quota is used up") as string,
    });
    expect(describeProviderError(apiError(404, "Not Found")).message).toBe(
      "The model provider answered 404 at https://api.example.com/v1/chat/completions: Not Found. Check AI_MODEL, and AI_BASE_URL (it usually ends in /v1).",
    );
    expect(
      describeProviderError(
        apiError(400, { error: { message: "maximum context length is 4096 tokens" } }),
      ).message,
    ).toMatch(
      /^The conversation is too long for the model's context window: maximum context length is 4096 tokens\. Start a new chat/,
    );
  });

  it("looks through RetryError and NoOutputGeneratedError to the last attempt", () => {
    const retry = new RetryError({
      message: "Failed after 3 attempts",
      reason: "maxRetriesExceeded",
      errors: [apiError(500), apiError(500), apiError(429)],
    });
    expect(describeProviderError(retry).code).toBe("rate_limited");
    expect(describeProviderError(new NoOutputGeneratedError({ cause: retry })).code).toBe(
      "rate_limited",
    );
  });

  it("classifies a real failed fetch to a closed port as unreachable", async () => {
    const url = await closedPortURL();
    const raw = await fetch(`${url}/v1/chat/completions`).catch((error: unknown) => error);
    expect(describeProviderError(raw)).toMatchObject({
      code: "unreachable",
      message: expect.stringContaining("connection refused") as string,
    });

    const viaSdk = await generateText({
      model: createOpenAICompatible({ name: "closed", baseURL: `${url}/v1` }).chatModel("m"),
      prompt: "hello",
      maxRetries: 0,
    }).catch((error: unknown) => error);
    expect(APICallError.isInstance(viaSdk)).toBe(true);
    expect(describeProviderError(viaSdk)).toEqual({
      code: "unreachable",
      retryable: true,
      message: `The model provider at ${url}/v1/chat/completions could not be reached (connection refused). Check that it is running and that AI_BASE_URL is right.`,
    });
  });

  it("classifies DNS failures and timeouts as unreachable", () => {
    const dns = new TypeError("fetch failed", {
      cause: Object.assign(new Error("getaddrinfo ENOTFOUND llm.internal"), { code: "ENOTFOUND" }),
    });
    expect(describeProviderError(dns)).toMatchObject({
      code: "unreachable",
      message: expect.stringContaining("host not found") as string,
    });
    const timeout = new DOMException("The operation timed out.", "TimeoutError");
    expect(describeProviderError(timeout).code).toBe("unreachable");
  });

  it("understands error objects streamed by OpenAI-compatible servers", () => {
    expect(
      describeProviderError({
        message: "This model's maximum context length is 8192 tokens",
        type: "invalid_request_error",
      }).code,
    ).toBe("context_too_long");
    expect(describeProviderError({ message: "Upstream crashed", code: "server_error" })).toEqual({
      code: "provider_error",
      retryable: true,
      message:
        "The model provider failed while answering: Upstream crashed (server_error). Try again.",
    });
  });

  it("falls back to provider_error for anything else, and never throws", () => {
    expect(describeProviderError(new Error("boom")).code).toBe("provider_error");
    expect(describeProviderError(undefined).code).toBe("provider_error");
    expect(describeProviderError("weird").message).toBe(
      "The model provider failed: weird. Try again.",
    );
    const cyclic = new Error("loop");
    (cyclic as { cause?: unknown }).cause = cyclic;
    expect(describeProviderError(cyclic).code).toBe("provider_error");
  });
});
