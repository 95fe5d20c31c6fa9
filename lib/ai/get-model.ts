import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { EmbeddingModel, LanguageModel, streamText } from "ai";
import { cairn } from "@/lib/cairn";
import { OLLAMA_DEFAULT_CONTEXT_WINDOW, type ContextWindowSource } from "./context-window";
import { findOllamaModel, isOllamaChatModel, probeOllama } from "./probe-ollama";
import {
  contextWindowFor,
  providerExamples,
  resolveModelConfig,
  type ConfigurationHelp,
  type ModelConfig,
  type ModelEnv,
  type ModelProvider,
  type ModelSource,
} from "./resolve-model-config";

/** Provider-specific options a caller passes on to `streamText` / `generateText` unchanged. */
export type ModelProviderOptions = NonNullable<Parameters<typeof streamText>[0]["providerOptions"]>;

/** A model ready to call, with what the turn needs to know about it. */
export interface ModelReady {
  status: "ready";
  model: LanguageModel;
  provider: ModelProvider;
  modelId: string;
  /** Tokens; the turn compacts the conversation before it outgrows a share of this. */
  contextWindow: number;
  /** `default` means assumed: neither `AI_CONTEXT_WINDOW` nor a known model id gave it. */
  contextWindowSource: ContextWindowSource;
  /** `env`: `AI_*` variables; `workspace`: Admin → Settings → Model; `ollama`: a local Ollama, probed. */
  source: ModelSource;
  /** The endpoint in use, when not the provider's default; without credentials or query, safe to show. */
  baseURL?: string;
  /** Pass to `streamText({ providerOptions })`. Unset today; kept so callers already pass it. */
  providerOptions?: ModelProviderOptions;
}

/**
 * No model can be used. `unavailable`: nothing is configured and no Ollama answered;
 * `misconfigured`: the variables are invalid. `message` is for people; `help` says how to fix.
 */
export interface ModelNotReady {
  status: "unavailable" | "misconfigured";
  message: string;
  help: ConfigurationHelp[];
}

/** What `getChatModel` and `getRefineModel` return. Never thrown: the chat page shows it. */
export type ModelResolution = ModelReady | ModelNotReady;

/** Options of `getChatModel` / `getRefineModel`; all default to the real process. */
export interface GetModelOptions {
  /** The model variables to read; default the process's configuration (`cairn().modelSettings`). */
  env?: ModelEnv;
  /** Used for the Ollama probe and every model call (tests, proxies). Defaults to `fetch`. */
  fetch?: typeof fetch;
  /**
   * The workspace whose saved model (Admin → Settings → Model) applies when no `AI_*` variable
   * chooses a provider. Without it only the environment and a local Ollama count.
   */
  workspaceId?: string;
  /**
   * The saved model's version as the caller already read it (`null`: none saved), so the cached
   * copy is checked without another query. Unset: it is read.
   */
  settingsVersion?: number | null;
}

/**
 * The model for chat turns, chosen from the environment (see `resolveModelConfig`). With nothing
 * configured it probes Ollama (cached for 30 s) and uses its first chat model, or `AI_MODEL`.
 *
 * OpenAI models go through the Responses API (`openai(id)`), OpenAI's current API, which the AI
 * SDK supports best (reasoning items, provider tools). Servers that only speak Chat Completions
 * belong under `openai-compatible`.
 */
export function getChatModel(options: GetModelOptions = {}): Promise<ModelResolution> {
  return getModel({ ...options, role: "chat" });
}

/**
 * The model for the refinement pipeline: `AI_REFINE_MODEL` on the chat model's provider, or the
 * chat model itself when unset. Same resolution and results as {@link getChatModel}.
 */
export function getRefineModel(options: GetModelOptions = {}): Promise<ModelResolution> {
  return getModel({ ...options, role: "refine" });
}

async function getModel(options: GetModelOptions & { role: "chat" | "refine" }) {
  const config = await resolveModelSelection(options);
  if (config.status !== "ready") return config;
  const { settings } = config;
  const modelId = options.role === "chat" ? settings.modelId : settings.refineModelId;
  const { contextWindow, source: contextWindowSource } = contextWindowFor({
    modelId,
    override: settings.contextWindowOverride,
    fallback: settings.source === "ollama" ? OLLAMA_DEFAULT_CONTEXT_WINDOW : undefined,
  });
  const ready: ModelReady = {
    status: "ready",
    model: createModel({ settings, modelId, fetch: options.fetch }),
    provider: settings.provider,
    modelId,
    contextWindow,
    contextWindowSource,
    source: settings.source,
    ...(settings.baseURL !== undefined && { baseURL: displayURL(settings.baseURL) }),
  };
  return ready;
}

/** The embedding model search re-ranks with, or why there is none (search is lexical then). */
export type EmbeddingModelResolution =
  | {
      status: "ready";
      model: Exclude<EmbeddingModel, string>;
      provider: ModelProvider;
      modelId: string;
    }
  | { status: "off"; reason: string };

/**
 * The embedding model for search's semantic re-ranking (docs/search.md, decision 0052):
 * `AI_EMBEDDING_MODEL` on the provider chat uses (the variables, the workspace's saved model, or a
 * local Ollama). Off when it is unset, when no chat model is configured, or on Anthropic (no
 * embeddings API).
 */
export async function getEmbeddingModel(
  options: GetModelOptions = {},
): Promise<EmbeddingModelResolution> {
  const modelId = (options.env ?? cairn().config.models).AI_EMBEDDING_MODEL;
  if (!modelId) return { status: "off", reason: "AI_EMBEDDING_MODEL is not set" };
  const config = await resolveModelSelection(options);
  if (config.status !== "ready") return { status: "off", reason: "no model is configured" };
  const { settings } = config;
  const common = providerSettings(settings, options.fetch);
  switch (settings.provider) {
    case "openai":
      return {
        status: "ready",
        model: createOpenAI(common).embeddingModel(modelId),
        provider: settings.provider,
        modelId,
      };
    case "openai-compatible":
      return {
        status: "ready",
        model: createOpenAICompatible({
          ...common,
          name: settings.source === "ollama" ? "ollama" : "openai-compatible",
          baseURL: settings.baseURL ?? "",
        }).embeddingModel(modelId),
        provider: settings.provider,
        modelId,
      };
    case "anthropic":
      return { status: "off", reason: "Anthropic offers no embeddings" };
  }
}

async function resolveModelSelection(
  options: GetModelOptions,
): Promise<{ status: "ready"; settings: ModelConfig } | ModelNotReady> {
  const resolved = options.env ? resolveModelConfig(options.env) : cairn().modelSettings;
  // Variables win when they choose a provider (decision 0043); then the workspace's saved model.
  if (resolved.status === "configured") return { status: "ready", settings: resolved.config };
  if (resolved.status === "misconfigured") return resolved;
  if (options.workspaceId !== undefined && !options.env) {
    const saved = await cairn().workspaceModels.get(options.workspaceId, options.settingsVersion);
    if (saved?.status === "configured")
      return {
        status: "ready",
        settings: {
          ...saved.config,
          ...(resolved.contextWindowOverride !== undefined && {
            contextWindowOverride: resolved.contextWindowOverride,
          }),
        },
      };
    if (saved) return saved;
  }

  const { ollamaBaseURL } = resolved;
  const probe = await probeOllama({ baseURL: ollamaBaseURL, fetch: options.fetch });
  if (!probe.reachable)
    return {
      status: "unavailable",
      message:
        `No model is configured, and no Ollama server answered at ${displayURL(ollamaBaseURL)} ` +
        `(${probe.reason}). Chat needs a model; every other page works without one. ` +
        "An admin connects one on Admin → Settings → Model (or with the variables below).",
      help: [...resolved.hints, ...providerExamples()],
    };

  const chatModels = probe.models.filter(isOllamaChatModel);
  const pick = (wanted: string | undefined) =>
    wanted === undefined ? chatModels[0] : findOllamaModel(probe.models, wanted);
  const chat = pick(resolved.modelId);
  const refine = resolved.refineModelId === undefined ? chat : pick(resolved.refineModelId);
  const missing = [
    [resolved.modelId, chat],
    [resolved.refineModelId, refine],
  ].flatMap(([wanted, found]) => (typeof wanted === "string" && !found ? [wanted] : []));
  if (missing.length > 0)
    return {
      status: "misconfigured",
      message:
        `Ollama at ${displayURL(ollamaBaseURL)} has no model named ${missing.join(" or ")}` +
        (probe.models.length > 0
          ? ` (it has ${probe.models.map((model) => model.name).join(", ")}).`
          : " (it has no models yet)."),
      help: [
        { title: "Pull the model", lines: missing.map((id) => `ollama pull ${id}`) },
        ...(chatModels[0]
          ? [{ title: "Or use a model it has", lines: [`AI_MODEL=${chatModels[0].name}`] }]
          : []),
      ],
    };
  if (!chat || !refine)
    return {
      status: "unavailable",
      message:
        `No model is configured. Ollama is running at ${displayURL(ollamaBaseURL)} but has no chat model ` +
        "yet: pull one, or configure another provider.",
      help: [
        { title: "Pull a model into Ollama", lines: ["ollama pull llama3.2"] },
        ...resolved.hints,
        ...providerExamples(),
      ],
    };
  return {
    status: "ready",
    settings: {
      provider: "openai-compatible",
      modelId: chat.name,
      refineModelId: refine.name,
      baseURL: `${ollamaBaseURL}/v1`,
      ...(resolved.contextWindowOverride !== undefined && {
        contextWindowOverride: resolved.contextWindowOverride,
      }),
      source: "ollama",
    },
  };
}

/** The settings every AI SDK provider factory takes: key, base URL and fetch, when given. */
function providerSettings(settings: ModelConfig, fetch: typeof globalThis.fetch | undefined) {
  return {
    ...(settings.apiKey !== undefined && { apiKey: settings.apiKey }),
    ...(settings.baseURL !== undefined && { baseURL: settings.baseURL }),
    ...(fetch && { fetch }),
  };
}

/** An AI SDK model for `modelId` on the endpoint `settings` names (Test connection uses it too). */
export function createModel(options: {
  settings: ModelConfig;
  modelId: string;
  fetch?: typeof fetch;
}): LanguageModel {
  const { settings, modelId } = options;
  const common = providerSettings(settings, options.fetch);
  switch (settings.provider) {
    case "openai":
      return createOpenAI(common)(modelId);
    case "anthropic":
      return createAnthropic(common)(modelId);
    case "openai-compatible":
      return createOpenAICompatible({
        ...common,
        name: settings.source === "ollama" ? "ollama" : "openai-compatible",
        // `baseURL` is required for this provider; resolveModelConfig and the probe guarantee it.
        baseURL: settings.baseURL ?? "",
        // Token usage in streamed answers feeds the trace and the context accounting.
        includeUsage: true,
      }).chatModel(modelId);
  }
}

/** A URL without user info or query string, which may carry credentials. */
function displayURL(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`.replace(/\/+$/, "");
}
