import type { LanguageModel } from "ai";
import type { ModelReady } from "./get-model";

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
