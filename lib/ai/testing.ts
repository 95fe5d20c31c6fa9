import type { LanguageModel } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import type { ModelReady } from "./get-model";

/**
 * An environment with no AI_* variable and no Ollama, for a test's Cairn (`installTestCairn`'s
 * `env`): only a model saved in the app counts. Nothing listens on the discard port, so the
 * Ollama probe is refused at once.
 */
export const NO_MODEL_ENV: Record<string, string> = {
  AI_PROVIDER: "",
  AI_MODEL: "",
  AI_API_KEY: "",
  AI_BASE_URL: "",
  AI_REFINE_MODEL: "",
  OPENAI_API_KEY: "",
  ANTHROPIC_API_KEY: "",
  OLLAMA_BASE_URL: "http://127.0.0.1:9",
};

/**
 * What `getChatModel` / `getRefineModel` answer when `model` (an AI SDK mock) is configured: for
 * tests that mock `@/lib/ai` (`vi.mock`), e.g. `getRefineModel: () => readyModel(model)`. Imports
 * nothing of `@/lib/ai` at runtime, so a mock factory can load it.
 */
export function readyModel(model: LanguageModel): Promise<ModelReady> {
  return Promise.resolve({
    status: "ready",
    model,
    provider: "openai-compatible",
    modelId: "mock",
    contextWindow: 100_000,
    contextWindowSource: "configured",
  } as unknown as ModelReady);
}

/**
 * A mock `@/lib/ai` whose chat model is `model` and which has no refinement model: for chat-turn
 * tests, `vi.mock("@/lib/ai", async (importOriginal) => chatModelOnly(await importOriginal(), model))`
 * (after `const { chatModelOnly } = await import("@/lib/ai/testing")` inside the factory).
 */
export function chatModelOnly<T extends object>(original: T, model: LanguageModel): T {
  const notReady = { status: "unavailable", message: "No refine model in this test.", help: [] };
  return {
    ...original,
    getChatModel: () => readyModel(model),
    getRefineModel: () => Promise.resolve(notReady),
  };
}

/**
 * A mock `@/lib/ai` whose chat model is `chat` and whose refinement model is `refine` (default: an
 * `idleRefineModel`): for tests of turns that store refinement requests. Used as `chatModelOnly` is.
 */
export function chatAndRefineModels<T extends object>(
  original: T,
  models: { chat: LanguageModel; refine?: LanguageModel },
): T {
  const refine = models.refine ?? idleRefineModel();
  return {
    ...original,
    getChatModel: () => readyModel(models.chat),
    getRefineModel: () => readyModel(refine),
  };
}

/**
 * A refinement model for tests where refinements are only requested, never run (no worker): it
 * records calls like any mock and fails if one is made.
 */
export function idleRefineModel(): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    doGenerate: async () => {
      throw new Error("no refinement runs in this test");
    },
  });
}
