import {
  DEFAULT_CONTEXT_WINDOW,
  knownContextWindow,
  type ContextWindowSource,
} from "./context-window";

/** The providers Cairn can talk to. `openai-compatible` covers Ollama, vLLM, LM Studio, llama.cpp. */
export type ModelProvider = "openai" | "anthropic" | "openai-compatible";

/** The providers accepted in `AI_PROVIDER`. */
export const MODEL_PROVIDERS: readonly ModelProvider[] = [
  "openai",
  "anthropic",
  "openai-compatible",
];

/** Where a model configuration came from. */
export type ModelSource = "env" | "workspace" | "ollama";

/** The environment variables read here; `process.env` fits. Blank values count as unset. */
export type ModelEnv = Readonly<Record<string, string | undefined>>;

/**
 * One way to configure a model, for a person to copy: a title and `.env` lines.
 * The chat page renders each as a code block.
 */
export interface ConfigurationHelp {
  title: string;
  lines: string[];
}

/** A complete, valid model configuration. Holds the API key: never send it to a browser. */
export interface ModelConfig {
  provider: ModelProvider;
  /** The chat model id (`AI_MODEL`). */
  modelId: string;
  /** The refinement pipeline's model id (`AI_REFINE_MODEL`), the chat model's when unset. */
  refineModelId: string;
  /** `AI_API_KEY`, else the provider's usual variable; optional for `openai-compatible`. */
  apiKey?: string;
  /** Without a trailing slash; unset means the provider's default endpoint. */
  baseURL?: string;
  /** `AI_CONTEXT_WINDOW` when set (it applies to the refinement model too). */
  contextWindowOverride?: number;
  /**
   * `env`: configured by `AI_*` variables; `workspace`: saved on Admin → Settings → Model;
   * `ollama`: found by probing a local Ollama.
   */
  source: ModelSource;
}

/** Nothing chooses a provider: the caller should probe Ollama with these settings. */
export interface ModelUnconfigured {
  status: "unconfigured";
  /** Where to probe Ollama: `OLLAMA_BASE_URL` or `http://127.0.0.1:11434`, without `/v1`. */
  ollamaBaseURL: string;
  /** `AI_MODEL` when set: use it instead of the first model Ollama lists. */
  modelId?: string;
  refineModelId?: string;
  contextWindowOverride?: number;
  /** Fixes worth suggesting if the probe fails (e.g. "OPENAI_API_KEY is set, add AI_PROVIDER"). */
  hints: ConfigurationHelp[];
}

/** The variables contradict each other or are invalid; `message` says what, `help` how to fix. */
export interface ModelMisconfigured {
  status: "misconfigured";
  message: string;
  help: ConfigurationHelp[];
}

/** What `resolveModelConfig` found. */
export type ModelConfigResult =
  { status: "configured"; config: ModelConfig } | ModelUnconfigured | ModelMisconfigured;

/** Ollama's default local address. */
export const DEFAULT_OLLAMA_BASE_URL = "http://127.0.0.1:11434";

const providerKeyVariable = {
  openai: "OPENAI_API_KEY",
  anthropic: "ANTHROPIC_API_KEY",
} as const;

/**
 * Reads the model configuration from the environment. Pure and synchronous: it never throws and
 * never touches the network; probing Ollama when nothing is configured is `getChatModel`'s job.
 *
 * - `AI_PROVIDER`: `openai` | `anthropic` | `openai-compatible`. Unset (with no `AI_BASE_URL` or
 *   `AI_API_KEY`) means "unconfigured": probe Ollama, honouring `AI_MODEL` if set.
 * - `AI_MODEL`: required once a provider is chosen (model ids change too fast for a default).
 * - `AI_API_KEY`: falls back to `OPENAI_API_KEY` / `ANTHROPIC_API_KEY`; required for those two.
 *   Never falls back for `openai-compatible`, so a personal OpenAI key is not sent to whatever
 *   server `AI_BASE_URL` names.
 * - `AI_BASE_URL`: required for `openai-compatible` (usually ends in `/v1`), an optional
 *   endpoint override for the others.
 * - `AI_REFINE_MODEL`: the refinement pipeline's model on the same provider.
 * - `AI_CONTEXT_WINDOW`: tokens; see {@link contextWindowFor} for the default.
 */
export function resolveModelConfig(env: ModelEnv = process.env): ModelConfigResult {
  const read = (name: string) => {
    const value = env[name]?.trim();
    return value ? value : undefined;
  };
  const problems: string[] = [];
  const help: ConfigurationHelp[] = [];

  const contextWindowRaw = read("AI_CONTEXT_WINDOW");
  const contextWindowOverride =
    contextWindowRaw === undefined ? undefined : parseTokenCount(contextWindowRaw);
  if (contextWindowOverride === null) {
    problems.push(`AI_CONTEXT_WINDOW must be a whole number of tokens, got "${contextWindowRaw}".`);
    help.push({ title: "Set the context window in tokens", lines: ["AI_CONTEXT_WINDOW=128000"] });
  }

  const modelId = read("AI_MODEL");
  const refineModelId = read("AI_REFINE_MODEL");
  const baseURLRaw = read("AI_BASE_URL");
  const providerRaw = read("AI_PROVIDER");

  if (providerRaw === undefined) {
    const strays = ["AI_BASE_URL", "AI_API_KEY"].filter((name) => read(name) !== undefined);
    if (strays.length > 0) {
      problems.push(
        `${strays.join(" and ")} ${strays.length > 1 ? "are" : "is"} set but AI_PROVIDER is not.`,
      );
      help.push(...providerExamples());
    }
    if (problems.length > 0) return misconfigured(problems, help);
    const ollamaRaw = read("OLLAMA_BASE_URL");
    const ollamaBaseURL =
      ollamaRaw === undefined ? DEFAULT_OLLAMA_BASE_URL : parseBaseURL(ollamaRaw);
    if (ollamaBaseURL === null)
      return misconfigured(
        ["OLLAMA_BASE_URL must be an http(s) URL, such as http://127.0.0.1:11434."],
        [{ title: "Ollama's default address", lines: ["OLLAMA_BASE_URL=http://127.0.0.1:11434"] }],
      );
    return {
      status: "unconfigured",
      ollamaBaseURL: ollamaBaseURL.replace(/\/(v1|api)$/, ""),
      ...(modelId && { modelId }),
      ...(refineModelId && { refineModelId }),
      ...(contextWindowOverride && { contextWindowOverride }),
      hints: strayProviderKeyHints(read),
    };
  }

  const provider = parseProvider(providerRaw);
  if (provider === null) {
    problems.push(
      `AI_PROVIDER must be one of ${MODEL_PROVIDERS.join(", ")}; got "${providerRaw}".` +
        providerAliasHint(providerRaw),
    );
    help.push(...providerExamples());
    return misconfigured(problems, help);
  }

  const example = providerExamples().find((entry) =>
    entry.title.startsWith(exampleTitle[provider]),
  );
  if (!modelId) problems.push(`AI_MODEL is required with AI_PROVIDER=${provider}.`);

  let baseURL: string | undefined;
  if (baseURLRaw !== undefined) {
    const parsed = parseBaseURL(baseURLRaw);
    // The value is not echoed: a URL may carry credentials, and this message reaches the browser.
    if (parsed === null)
      problems.push("AI_BASE_URL must be an http(s) URL, such as http://127.0.0.1:8000/v1.");
    else baseURL = parsed;
  } else if (provider === "openai-compatible") {
    problems.push(
      "AI_BASE_URL is required with AI_PROVIDER=openai-compatible (the server's OpenAI-compatible " +
        "endpoint, usually ending in /v1).",
    );
  }

  let apiKey = read("AI_API_KEY");
  if (provider !== "openai-compatible") {
    const fallback = providerKeyVariable[provider];
    apiKey ??= read(fallback);
    if (!apiKey)
      problems.push(
        `An API key is required with AI_PROVIDER=${provider}: set AI_API_KEY or ${fallback}.`,
      );
  }

  if (problems.length > 0 || !modelId) {
    if (example) help.unshift(example);
    return misconfigured(problems, help);
  }
  return {
    status: "configured",
    config: {
      provider,
      modelId,
      refineModelId: refineModelId ?? modelId,
      ...(apiKey && { apiKey }),
      ...(baseURL && { baseURL }),
      ...(contextWindowOverride && { contextWindowOverride }),
      source: "env",
    },
  };
}

/**
 * The context window assumed for a model: `AI_CONTEXT_WINDOW` when set, else the documented
 * window of a known model id, else `fallback` (128,000 tokens unless the caller knows better).
 */
export function contextWindowFor(options: {
  modelId: string;
  override?: number;
  fallback?: number;
}): { contextWindow: number; source: ContextWindowSource } {
  if (options.override) return { contextWindow: options.override, source: "env" };
  const known = knownContextWindow(options.modelId);
  if (known !== null) return { contextWindow: known, source: "known-model" };
  return { contextWindow: options.fallback ?? DEFAULT_CONTEXT_WINDOW, source: "default" };
}

/**
 * How to configure each provider, as `.env` lines. Model ids are examples, not defaults.
 * Shown when no model is available and alongside configuration errors.
 */
export function providerExamples(): ConfigurationHelp[] {
  return [
    {
      title: "OpenAI",
      lines: ["AI_PROVIDER=openai", "AI_MODEL=gpt-4.1-mini", "AI_API_KEY=sk-..."],
    },
    {
      title: "Anthropic",
      lines: ["AI_PROVIDER=anthropic", "AI_MODEL=claude-sonnet-4-5", "AI_API_KEY=sk-ant-..."],
    },
    {
      title: "Ollama (detected automatically when nothing else is configured)",
      lines: [
        "# ollama pull llama3.2 && ollama serve",
        "AI_PROVIDER=openai-compatible",
        "AI_BASE_URL=http://127.0.0.1:11434/v1",
        "AI_MODEL=llama3.2",
      ],
    },
    {
      title: "vLLM, LM Studio, llama.cpp server or another OpenAI-compatible server",
      lines: [
        "AI_PROVIDER=openai-compatible",
        "AI_BASE_URL=http://127.0.0.1:8000/v1   # vLLM; LM Studio :1234/v1, llama.cpp :8080/v1",
        "AI_MODEL=<the model id the server lists at /v1/models>",
        "AI_API_KEY=<only if the server requires one>",
        "AI_CONTEXT_WINDOW=32768   # the window the server runs the model with",
      ],
    },
  ];
}

const exampleTitle: Record<ModelProvider, string> = {
  openai: "OpenAI",
  anthropic: "Anthropic",
  "openai-compatible": "vLLM",
};

function misconfigured(problems: string[], help: ConfigurationHelp[]): ModelMisconfigured {
  return {
    status: "misconfigured",
    message: `The model configuration is invalid. ${problems.join(" ")}`,
    help,
  };
}

function parseProvider(raw: string): ModelProvider | null {
  const value = raw.toLowerCase();
  return MODEL_PROVIDERS.find((provider) => provider === value) ?? null;
}

function providerAliasHint(raw: string): string {
  const value = raw.toLowerCase();
  if (["ollama", "vllm", "lmstudio", "lm-studio", "llama.cpp", "llamacpp"].includes(value))
    return ` For ${raw}, use AI_PROVIDER=openai-compatible with AI_BASE_URL set to its /v1 endpoint.`;
  if (value.replace(/[^a-z]/g, "") === "openaicompatible")
    return ' Did you mean "openai-compatible"?';
  return "";
}

function strayProviderKeyHints(read: (name: string) => string | undefined): ConfigurationHelp[] {
  const hints: ConfigurationHelp[] = [];
  for (const provider of ["openai", "anthropic"] as const) {
    const variable = providerKeyVariable[provider];
    if (read(variable) === undefined) continue;
    const example = providerExamples().find((entry) => entry.title === exampleTitle[provider]);
    hints.push({
      title: `${variable} is set; to use ${exampleTitle[provider]}, also set`,
      lines: example ? example.lines.filter((line) => !line.startsWith("AI_API_KEY")) : [],
    });
  }
  return hints;
}

/** A positive whole number of tokens; `_` and `,` separators allowed. `null` when invalid. */
function parseTokenCount(raw: string): number | null {
  const digits = raw.replace(/[_,]/g, "");
  if (!/^\d+$/.test(digits)) return null;
  const value = Number(digits);
  return Number.isSafeInteger(value) && value > 0 ? value : null;
}

/** An http(s) URL without a trailing slash, or `null`. */
function parseBaseURL(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  return url.href.replace(/\/+$/, "");
}
