import { describe, expect, it } from "vitest";
import { closedPortURL } from "./internal/test-http";
import { getModelOverview } from "./model-overview";
import { clearOllamaProbeCache } from "./probe-ollama";

describe("getModelOverview", () => {
  it("names provider, models and endpoint, and says whether a key is set without showing it", async () => {
    const overview = await getModelOverview({
      env: {
        AI_PROVIDER: "openai-compatible",
        AI_BASE_URL: "https://user:pw@llm.example.com/v1?token=abc",
        AI_MODEL: "qwen3:8b",
        AI_REFINE_MODEL: "qwen3:32b",
        AI_API_KEY: "sk-very-secret",
      },
    });
    expect(overview).toMatchObject({
      status: "ready",
      provider: "openai-compatible",
      source: "env",
      baseURL: "https://llm.example.com/v1",
      apiKeySet: true,
      chat: { modelId: "qwen3:8b" },
      refine: { modelId: "qwen3:32b" },
    });
    const shown = JSON.stringify(overview);
    for (const secret of ["sk-very-secret", "pw", "token=abc"]) expect(shown).not.toContain(secret);
  });

  it("says no key is set when the provider needs none", async () => {
    const overview = await getModelOverview({
      env: {
        AI_PROVIDER: "openai-compatible",
        AI_BASE_URL: "http://127.0.0.1:11434/v1",
        AI_MODEL: "llama3.2",
      },
    });
    expect(overview).toMatchObject({
      status: "ready",
      apiKeySet: false,
      refine: { modelId: "llama3.2" },
    });
  });

  it("passes on why no model can be used", async () => {
    clearOllamaProbeCache();
    const unavailable = await getModelOverview({
      env: { OLLAMA_BASE_URL: await closedPortURL() },
    });
    expect(unavailable.status).toBe("unavailable");
    const misconfigured = await getModelOverview({ env: { AI_PROVIDER: "openai" } });
    expect(misconfigured).toMatchObject({ status: "misconfigured" });
  });
});
