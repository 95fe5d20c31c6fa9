import { cairn } from "@/lib/cairn";
import type { ContextWindowSource } from "./context-window";
import { getChatModel, getRefineModel, type GetModelOptions } from "./get-model";
import { resolveModelConfig, type ModelProvider } from "./resolve-model-config";

/** One model as an admin sees it. */
export interface ModelOverviewEntry {
  modelId: string;
  contextWindow: number;
  contextWindowSource: ContextWindowSource;
}

/**
 * The configured model and provider for the admin settings page. Holds no secret: whether an
 * API key is set, never the key; the endpoint without credentials or query.
 */
export type ModelOverview =
  | {
      status: "ready";
      provider: ModelProvider;
      /** `env`: set by AI_* variables; `workspace`: saved in the app; `ollama`: a local Ollama. */
      source: "env" | "workspace" | "ollama";
      /** The endpoint, when not the provider's default. */
      baseURL: string | null;
      apiKeySet: boolean;
      chat: ModelOverviewEntry;
      refine: ModelOverviewEntry;
    }
  | { status: "unavailable" | "misconfigured"; message: string };

/** What Cairn would use for chat and refinement right now (see `getChatModel`). */
export async function getModelOverview(options: GetModelOptions = {}): Promise<ModelOverview> {
  const [chat, refine] = await Promise.all([getChatModel(options), getRefineModel(options)]);
  if (chat.status !== "ready") return { status: chat.status, message: chat.message };
  if (refine.status !== "ready") return { status: refine.status, message: refine.message };
  const resolved = options.env ? resolveModelConfig(options.env) : cairn().modelSettings;
  const saved =
    chat.source === "workspace" && options.workspaceId !== undefined
      ? await cairn().workspaceModels.get(options.workspaceId, options.settingsVersion)
      : null;
  return {
    status: "ready",
    provider: chat.provider,
    source: chat.source,
    baseURL: chat.baseURL ?? null,
    apiKeySet:
      chat.source === "workspace"
        ? saved?.status === "configured" && saved.config.apiKey !== undefined
        : resolved.status === "configured" && resolved.config.apiKey !== undefined,
    chat: {
      modelId: chat.modelId,
      contextWindow: chat.contextWindow,
      contextWindowSource: chat.contextWindowSource,
    },
    refine: {
      modelId: refine.modelId,
      contextWindow: refine.contextWindow,
      contextWindowSource: refine.contextWindowSource,
    },
  };
}
