import { describe, expect, it } from "vitest";
import { getChatModel, getEmbeddingModel, getRefineModel, type ModelResolution } from "./get-model";
import { closedPortURL, registerTestServers } from "./internal/test-http";

function ready(result: ModelResolution) {
  if (result.status !== "ready") throw new Error(`expected ready, got ${JSON.stringify(result)}`);
  if (typeof result.model === "string") throw new Error("expected a model instance");
  return { ...result, model: result.model };
}

describe("getChatModel / getRefineModel", () => {
  const { fakeOllama } = registerTestServers();

  it("uses OpenAI's Responses API for openai", async () => {
    const result = ready(
      await getChatModel({
        env: { AI_PROVIDER: "openai", AI_MODEL: "gpt-4.1-mini", OPENAI_API_KEY: "sk-test" },
      }),
    );
    expect(result).toMatchObject({
      provider: "openai",
      modelId: "gpt-4.1-mini",
      contextWindow: 1_047_576,
      contextWindowSource: "known-model",
      source: "env",
    });
    expect(result.model.provider).toBe("openai.responses");
    expect(result.model.modelId).toBe("gpt-4.1-mini");
    expect(result).not.toHaveProperty("baseURL");
  });

  it("uses Anthropic's Messages API for anthropic, and AI_REFINE_MODEL for refinement", async () => {
    const env = {
      AI_PROVIDER: "anthropic",
      AI_MODEL: "claude-sonnet-4-5",
      AI_REFINE_MODEL: "claude-haiku-4-5",
      AI_API_KEY: "sk-ant-test",
    };
    const chat = ready(await getChatModel({ env }));
    const refine = ready(await getRefineModel({ env }));
    expect(chat.model.provider).toBe("anthropic.messages");
    expect(chat.modelId).toBe("claude-sonnet-4-5");
    expect(refine.model.modelId).toBe("claude-haiku-4-5");
    expect(refine.contextWindow).toBe(200_000);
  });

  it("uses the chat model for refinement when AI_REFINE_MODEL is unset", async () => {
    const env = {
      AI_PROVIDER: "openai-compatible",
      AI_MODEL: "qwen3",
      AI_BASE_URL: "http://127.0.0.1:8000/v1",
      AI_CONTEXT_WINDOW: "32768",
    };
    const refine = ready(await getRefineModel({ env }));
    expect(refine).toMatchObject({
      provider: "openai-compatible",
      modelId: "qwen3",
      baseURL: "http://127.0.0.1:8000/v1",
      contextWindow: 32768,
      contextWindowSource: "env",
    });
    expect(refine.model.provider).toBe("openai-compatible.chat");
  });

  it("shows the endpoint without credentials", async () => {
    const result = ready(
      await getChatModel({
        env: {
          AI_PROVIDER: "openai-compatible",
          AI_MODEL: "m",
          AI_BASE_URL: "https://user:pw@llm.example/v1?key=abc",
        },
      }),
    );
    expect(result.baseURL).toBe("https://llm.example/v1");
  });

  it("passes a misconfiguration through without probing", async () => {
    let probed = false;
    const result = await getChatModel({
      env: { AI_PROVIDER: "openai-compatible", AI_MODEL: "m" },
      fetch: () => {
        probed = true;
        return Promise.reject(new Error("no network in this test"));
      },
    });
    expect(result).toMatchObject({ status: "misconfigured" });
    expect(probed).toBe(false);
  });

  it("uses a local Ollama's first chat model when nothing is configured", async () => {
    const ollama = await fakeOllama(["nomic-embed-text:latest", "llama3.2:latest", "qwen3:8b"]);
    const result = ready(await getChatModel({ env: { OLLAMA_BASE_URL: ollama.url } }));
    expect(result).toMatchObject({
      provider: "openai-compatible",
      modelId: "llama3.2:latest",
      baseURL: `${ollama.url}/v1`,
      source: "ollama",
      contextWindow: 4096,
      contextWindowSource: "default",
    });
    expect(result.model.provider).toBe("ollama.chat");
  });

  it("uses AI_MODEL (and AI_CONTEXT_WINDOW) with a probed Ollama", async () => {
    const ollama = await fakeOllama(["llama3.2:latest", "qwen3:8b"]);
    const env = {
      OLLAMA_BASE_URL: ollama.url,
      AI_MODEL: "qwen3:8b",
      AI_REFINE_MODEL: "llama3.2",
      AI_CONTEXT_WINDOW: "32768",
    };
    expect(ready(await getChatModel({ env }))).toMatchObject({
      modelId: "qwen3:8b",
      contextWindow: 32768,
    });
    expect(ready(await getRefineModel({ env })).modelId).toBe("llama3.2:latest");
  });

  it("says which model to pull when AI_MODEL is not in Ollama", async () => {
    const ollama = await fakeOllama(["llama3.2:latest"]);
    const result = await getChatModel({ env: { OLLAMA_BASE_URL: ollama.url, AI_MODEL: "qwen3" } });
    expect(result).toMatchObject({
      status: "misconfigured",
      message: expect.stringContaining(
        "has no model named qwen3 (it has llama3.2:latest)",
      ) as string,
      help: [
        { title: "Pull the model", lines: ["ollama pull qwen3"] },
        { title: "Or use a model it has", lines: ["AI_MODEL=llama3.2:latest"] },
      ],
    });
  });

  it("reports an Ollama without chat models as unavailable", async () => {
    const ollama = await fakeOllama(["nomic-embed-text:latest"]);
    const result = await getChatModel({ env: { OLLAMA_BASE_URL: ollama.url } });
    expect(result.status).toBe("unavailable");
    if (result.status === "ready") return;
    expect(result.message).toContain("has no chat model");
    expect(result.help[0]?.lines).toEqual(["ollama pull llama3.2"]);
  });

  it("reports no model when nothing is configured and Ollama does not answer", async () => {
    const url = await closedPortURL();
    const result = await getChatModel({ env: { OLLAMA_BASE_URL: url, OPENAI_API_KEY: "sk-x" } });
    expect(result.status).toBe("unavailable");
    if (result.status === "ready") return;
    expect(result.message).toMatch(
      new RegExp(
        `^No model is configured, and no Ollama server answered at ${url} \\(connection refused\\)`,
      ),
    );
    expect(result.help.map((entry) => entry.title)).toEqual([
      "OPENAI_API_KEY is set; to use OpenAI, also set",
      "OpenAI",
      "Anthropic",
      "Ollama (detected automatically when nothing else is configured)",
      "vLLM, LM Studio, llama.cpp server or another OpenAI-compatible server",
    ]);
    expect(JSON.stringify(result)).not.toContain("sk-x");
  });
});

describe("getEmbeddingModel", () => {
  it("makes AI_EMBEDDING_MODEL on the chat provider, and is off without it or on Anthropic", async () => {
    const openai = await getEmbeddingModel({
      env: {
        AI_PROVIDER: "openai",
        AI_MODEL: "gpt-4.1-mini",
        OPENAI_API_KEY: "sk-test",
        AI_EMBEDDING_MODEL: "text-embedding-3-small",
      },
    });
    if (openai.status !== "ready") throw new Error(JSON.stringify(openai));
    expect(openai).toMatchObject({ provider: "openai", modelId: "text-embedding-3-small" });
    expect(openai.model.modelId).toBe("text-embedding-3-small");
    const compatible = await getEmbeddingModel({
      env: {
        AI_PROVIDER: "openai-compatible",
        AI_MODEL: "llama3.2",
        AI_BASE_URL: "http://127.0.0.1:9/v1",
        AI_EMBEDDING_MODEL: "nomic-embed-text",
      },
    });
    expect(compatible).toMatchObject({ status: "ready", modelId: "nomic-embed-text" });
    expect(
      await getEmbeddingModel({
        env: { AI_PROVIDER: "openai", AI_MODEL: "gpt-4.1-mini", OPENAI_API_KEY: "sk-test" },
      }),
    ).toEqual({ status: "off", reason: "AI_EMBEDDING_MODEL is not set" });
    expect(
      await getEmbeddingModel({
        env: {
          AI_PROVIDER: "anthropic",
          AI_MODEL: "claude-sonnet-4-5",
          AI_API_KEY: "sk-ant-test",
          AI_EMBEDDING_MODEL: "x",
        },
      }),
    ).toEqual({ status: "off", reason: "Anthropic offers no embeddings" });
  });
});
