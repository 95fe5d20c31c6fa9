// The one place that chooses models. Server-side only: it holds API keys (from the configuration, lib/config).
export {
  DEFAULT_CONTEXT_WINDOW,
  OLLAMA_DEFAULT_CONTEXT_WINDOW,
  knownContextWindow,
  type ContextWindowSource,
} from "./context-window";
export {
  describeProviderError,
  type ProviderErrorCode,
  type ProviderErrorDescription,
} from "./describe-provider-error";
export { providerErrorMessage } from "./provider-error-for-role";
export {
  createModel,
  getChatModel,
  getEmbeddingModel,
  type EmbeddingModelResolution,
  getRefineModel,
  type GetModelOptions,
  type ModelNotReady,
  type ModelProviderOptions,
  type ModelReady,
  type ModelResolution,
} from "./get-model";
export {
  OLLAMA_PROBE_CACHE_MS,
  OLLAMA_PROBE_TIMEOUT_MS,
  clearOllamaProbeCache,
  probeOllama,
  type OllamaModel,
  type OllamaProbeResult,
} from "./probe-ollama";
export {
  DEFAULT_OLLAMA_BASE_URL,
  MODEL_PROVIDERS,
  contextWindowFor,
  providerExamples,
  resolveModelConfig,
  type ConfigurationHelp,
  type ModelConfig,
  type ModelConfigResult,
  type ModelEnv,
  type ModelMisconfigured,
  type ModelProvider,
  type ModelSource,
  type ModelUnconfigured,
} from "./resolve-model-config";
export { providerMemoryTool } from "./provider-memory-tool";
export { getModelOverview, type ModelOverview, type ModelOverviewEntry } from "./model-overview";
export { unclonedFetch } from "./uncloned-fetch";
