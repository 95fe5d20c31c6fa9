import { describe, expect, it } from "vitest";
import { contextWindowFor, resolveModelConfig, type ModelEnv } from "./resolve-model-config";

function configured(env: ModelEnv) {
  const result = resolveModelConfig(env);
  if (result.status !== "configured")
    throw new Error(`expected configured, got ${JSON.stringify(result)}`);
  return result.config;
}

function misconfigured(env: ModelEnv) {
  const result = resolveModelConfig(env);
  if (result.status !== "misconfigured")
    throw new Error(`expected misconfigured, got ${JSON.stringify(result)}`);
  return result;
}

describe("resolveModelConfig", () => {
  describe("configured providers", () => {
    it.each([
      [
        "openai with AI_API_KEY",
        { AI_PROVIDER: "openai", AI_MODEL: "gpt-4.1-mini", AI_API_KEY: "sk-a" },
        {
          provider: "openai",
          modelId: "gpt-4.1-mini",
          refineModelId: "gpt-4.1-mini",
          apiKey: "sk-a",
        },
      ],
      [
        "openai falling back to OPENAI_API_KEY",
        { AI_PROVIDER: "openai", AI_MODEL: "gpt-4o", OPENAI_API_KEY: "sk-b" },
        { provider: "openai", apiKey: "sk-b" },
      ],
      [
        "AI_API_KEY wins over the provider's variable",
        { AI_PROVIDER: "openai", AI_MODEL: "gpt-4o", AI_API_KEY: "sk-a", OPENAI_API_KEY: "sk-b" },
        { apiKey: "sk-a" },
      ],
      [
        "anthropic falling back to ANTHROPIC_API_KEY, with a base URL override",
        {
          AI_PROVIDER: "anthropic",
          AI_MODEL: "claude-sonnet-4-5",
          ANTHROPIC_API_KEY: "sk-ant",
          AI_BASE_URL: "https://proxy.example/v1/",
        },
        { provider: "anthropic", apiKey: "sk-ant", baseURL: "https://proxy.example/v1" },
      ],
      [
        "openai-compatible without a key, with a refine model and a context window",
        {
          AI_PROVIDER: "openai-compatible",
          AI_MODEL: "qwen3",
          AI_BASE_URL: "http://127.0.0.1:8000/v1",
          AI_REFINE_MODEL: "qwen3-small",
          AI_CONTEXT_WINDOW: "32_768",
        },
        {
          provider: "openai-compatible",
          baseURL: "http://127.0.0.1:8000/v1",
          refineModelId: "qwen3-small",
          contextWindowOverride: 32768,
          source: "env",
        },
      ],
      [
        "the provider name in any case, values trimmed",
        { AI_PROVIDER: " OpenAI ", AI_MODEL: " gpt-4o ", AI_API_KEY: " sk-a " },
        { provider: "openai", modelId: "gpt-4o", apiKey: "sk-a" },
      ],
    ])("%s", (_name, env, expected) => {
      expect(configured(env)).toMatchObject(expected);
    });

    it("never sends OPENAI_API_KEY to an openai-compatible server", () => {
      const config = configured({
        AI_PROVIDER: "openai-compatible",
        AI_MODEL: "m",
        AI_BASE_URL: "http://127.0.0.1:8000/v1",
        OPENAI_API_KEY: "sk-personal",
      });
      expect(config.apiKey).toBeUndefined();
    });
  });

  describe("misconfigurations", () => {
    it.each([
      [
        "unknown provider",
        { AI_PROVIDER: "gemini", AI_MODEL: "x" },
        /AI_PROVIDER must be one of openai, anthropic, openai-compatible; got "gemini"/,
      ],
      [
        "ollama as a provider name",
        { AI_PROVIDER: "ollama" },
        /For ollama, use AI_PROVIDER=openai-compatible/,
      ],
      [
        "openai-compatible without a base URL",
        { AI_PROVIDER: "openai-compatible", AI_MODEL: "m" },
        /AI_BASE_URL is required with AI_PROVIDER=openai-compatible/,
      ],
      [
        "openai without a key",
        { AI_PROVIDER: "openai", AI_MODEL: "gpt-4o" },
        /API key is required with AI_PROVIDER=openai: set AI_API_KEY or OPENAI_API_KEY/,
      ],
      [
        "anthropic with only OpenAI's key",
        { AI_PROVIDER: "anthropic", AI_MODEL: "claude-sonnet-4-5", OPENAI_API_KEY: "sk" },
        /set AI_API_KEY or ANTHROPIC_API_KEY/,
      ],
      [
        "a provider without a model",
        { AI_PROVIDER: "openai", AI_API_KEY: "sk" },
        /AI_MODEL is required with AI_PROVIDER=openai/,
      ],
      [
        "a base URL that is not http(s)",
        { AI_PROVIDER: "openai-compatible", AI_MODEL: "m", AI_BASE_URL: "127.0.0.1:8000" },
        /AI_BASE_URL must be an http\(s\) URL/,
      ],
      [
        "a context window that is not a number",
        { AI_PROVIDER: "openai", AI_MODEL: "gpt-4o", AI_API_KEY: "sk", AI_CONTEXT_WINDOW: "32k" },
        /AI_CONTEXT_WINDOW must be a whole number of tokens, got "32k"/,
      ],
      [
        "a base URL without a provider",
        { AI_BASE_URL: "http://127.0.0.1:8000/v1", AI_MODEL: "m" },
        /AI_BASE_URL is set but AI_PROVIDER is not/,
      ],
      [
        "a key without a provider",
        { AI_API_KEY: "sk" },
        /AI_API_KEY is set but AI_PROVIDER is not/,
      ],
    ])("%s", (_name, env, message) => {
      const result = misconfigured(env);
      expect(result.message).toMatch(message);
      expect(result.help.length).toBeGreaterThan(0);
    });

    it("reports every problem at once and leads the help with the chosen provider's example", () => {
      const result = misconfigured({ AI_PROVIDER: "openai-compatible", AI_CONTEXT_WINDOW: "-1" });
      expect(result.message).toContain("AI_MODEL is required");
      expect(result.message).toContain("AI_BASE_URL is required");
      expect(result.message).toContain("AI_CONTEXT_WINDOW must be");
      expect(result.help[0]?.lines).toContain("AI_PROVIDER=openai-compatible");
    });

    it("does not echo API keys in messages", () => {
      const result = misconfigured({ AI_PROVIDER: "openai", AI_API_KEY: "sk-secret-123" });
      expect(JSON.stringify(result)).not.toContain("sk-secret-123");
    });
  });

  describe("nothing configured", () => {
    it("asks for an Ollama probe at the default address", () => {
      expect(resolveModelConfig({})).toEqual({
        status: "unconfigured",
        ollamaBaseURL: "http://127.0.0.1:11434",
        hints: [],
      });
    });

    it("treats blank values as unset", () => {
      expect(resolveModelConfig({ AI_PROVIDER: "", AI_API_KEY: "  " }).status).toBe("unconfigured");
    });

    it("keeps AI_MODEL, AI_REFINE_MODEL and AI_CONTEXT_WINDOW for the probe, and OLLAMA_BASE_URL", () => {
      expect(
        resolveModelConfig({
          AI_MODEL: "llama3.2",
          AI_REFINE_MODEL: "qwen3",
          AI_CONTEXT_WINDOW: "8192",
          OLLAMA_BASE_URL: "http://gpu-box:11434/v1/",
        }),
      ).toMatchObject({
        status: "unconfigured",
        ollamaBaseURL: "http://gpu-box:11434",
        modelId: "llama3.2",
        refineModelId: "qwen3",
        contextWindowOverride: 8192,
      });
    });

    it("hints at a provider key that is set without AI_PROVIDER", () => {
      const result = resolveModelConfig({ OPENAI_API_KEY: "sk-x" });
      expect(result.status).toBe("unconfigured");
      if (result.status !== "unconfigured") return;
      expect(result.hints).toEqual([
        {
          title: "OPENAI_API_KEY is set; to use OpenAI, also set",
          lines: ["AI_PROVIDER=openai", "AI_MODEL=gpt-4.1-mini"],
        },
      ]);
    });

    it("rejects an OLLAMA_BASE_URL that is not a URL", () => {
      expect(misconfigured({ OLLAMA_BASE_URL: "localhost" }).message).toMatch(/OLLAMA_BASE_URL/);
    });
  });
});

describe("contextWindowFor", () => {
  it("prefers the override, then a known model, then the fallback", () => {
    expect(contextWindowFor({ modelId: "gpt-4o", override: 9000 })).toEqual({
      contextWindow: 9000,
      source: "env",
    });
    expect(contextWindowFor({ modelId: "gpt-4o-2024-08-06" })).toEqual({
      contextWindow: 128_000,
      source: "known-model",
    });
    expect(contextWindowFor({ modelId: "claude-sonnet-4-5" }).contextWindow).toBe(200_000);
    expect(contextWindowFor({ modelId: "gpt-4.1-mini" }).contextWindow).toBe(1_047_576);
    expect(contextWindowFor({ modelId: "my-local-model" })).toEqual({
      contextWindow: 128_000,
      source: "default",
    });
    expect(contextWindowFor({ modelId: "llama3.2:latest", fallback: 4096 }).contextWindow).toBe(
      4096,
    );
  });
});
