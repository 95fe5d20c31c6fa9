import "server-only";
import { generateText } from "ai";
import { createModel, describeProviderError } from "@/lib/ai";
import type { ModelConfig, ModelProvider } from "@/lib/ai/resolve-model-config";

/** How long Test connection and the model listing wait for the endpoint. */
export const PROBE_TIMEOUT_MS = 20_000;

const DEFAULT_BASE_URL: Record<Exclude<ModelProvider, "openai-compatible">, string> = {
  openai: "https://api.openai.com/v1",
  anthropic: "https://api.anthropic.com/v1",
};

/** What Test connection found, in words a person can act on. */
export type ConnectionTest = { ok: true; reply: string } | { ok: false; message: string };

/**
 * Test connection: one real call of at most one output token to the model `config` names, so a
 * wrong address, key or model id shows here, not in the first chat.
 */
export async function testModelConnection(
  config: ModelConfig,
  options: { fetch?: typeof fetch } = {},
): Promise<ConnectionTest> {
  try {
    const result = await generateText({
      model: createModel({ settings: config, modelId: config.modelId, fetch: options.fetch }),
      prompt: "Reply with OK.",
      maxOutputTokens: 1,
      maxRetries: 0,
      abortSignal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    });
    return { ok: true, reply: result.text };
  } catch (error) {
    return { ok: false, message: describeProviderError(error).message };
  }
}

/**
 * The model ids the endpoint lists (`GET <base>/models`: OpenAI, Anthropic and OpenAI-compatible
 * servers all offer it), sorted; `null` when it does not answer with a list.
 */
export async function listEndpointModels(
  options: { provider: ModelProvider; baseURL?: string; apiKey?: string },
  fetchImpl: typeof fetch = fetch,
): Promise<string[] | null> {
  const base =
    options.baseURL?.replace(/\/+$/, "") ??
    (options.provider === "openai-compatible" ? undefined : DEFAULT_BASE_URL[options.provider]);
  if (!base) return null;
  const headers: Record<string, string> = { accept: "application/json" };
  if (options.apiKey) {
    if (options.provider === "anthropic") headers["x-api-key"] = options.apiKey;
    else headers.authorization = `Bearer ${options.apiKey}`;
  }
  if (options.provider === "anthropic") headers["anthropic-version"] = "2023-06-01";
  try {
    const response = await fetchImpl(`${base}/models?limit=1000`, {
      headers,
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    });
    if (!response.ok) return null;
    const body = (await response.json()) as { data?: unknown };
    if (!Array.isArray(body.data)) return null;
    const ids = body.data
      .map((item) => (item && typeof item === "object" ? (item as { id?: unknown }).id : undefined))
      .filter((id): id is string => typeof id === "string" && id.length > 0);
    return [...new Set(ids)].sort((a, b) => a.localeCompare(b));
  } catch {
    return null;
  }
}
