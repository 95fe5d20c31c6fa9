/** A model Ollama has pulled, as `GET /api/tags` lists it. */
export interface OllamaModel {
  /** The id to send as `model`, e.g. `llama3.2:latest`. */
  name: string;
  /** `details.family` when Ollama reports it (e.g. `llama`, `nomic-bert`). */
  family?: string;
}

/** What probing Ollama found. */
export type OllamaProbeResult =
  | { reachable: true; baseURL: string; models: OllamaModel[] }
  | { reachable: false; baseURL: string; reason: string };

/** How long a probe may take before Ollama counts as absent. */
export const OLLAMA_PROBE_TIMEOUT_MS = 800;
/** How long a probe's answer (either way) is reused. */
export const OLLAMA_PROBE_CACHE_MS = 30_000;

interface CacheEntry {
  expiresAt: number;
  result: Promise<OllamaProbeResult>;
}

// Keyed by base URL. Holding the promise makes concurrent callers share one request.
const cache = new Map<string, CacheEntry>();

/**
 * Asks an Ollama server which models it has (`GET <baseURL>/api/tags`). Never throws: a refused
 * connection, a timeout, a non-2xx answer or a body that is not Ollama's all yield
 * `{ reachable: false, reason }`. Answers are cached per base URL for `cacheMs` (30 s) so a chat
 * page does not pay the probe on every request, and a freshly started Ollama is noticed soon.
 *
 * @param options.baseURL Ollama's address without `/v1`, e.g. `http://127.0.0.1:11434`.
 * @param options.timeoutMs Defaults to 800 ms: a local server answers in a few.
 * @param options.fetch For tests; defaults to the global `fetch`.
 * @param options.now Clock for the cache; defaults to `Date.now`.
 */
export function probeOllama(options: {
  baseURL: string;
  timeoutMs?: number;
  cacheMs?: number;
  fetch?: typeof fetch;
  now?: () => number;
}): Promise<OllamaProbeResult> {
  const now = options.now ?? Date.now;
  const baseURL = options.baseURL.replace(/\/+$/, "");
  const cached = cache.get(baseURL);
  if (cached && cached.expiresAt > now()) return cached.result;
  const result = requestTags({
    baseURL,
    timeoutMs: options.timeoutMs ?? OLLAMA_PROBE_TIMEOUT_MS,
    fetch: options.fetch ?? fetch,
  });
  cache.set(baseURL, { expiresAt: now() + (options.cacheMs ?? OLLAMA_PROBE_CACHE_MS), result });
  return result;
}

/** Forgets every cached probe (tests; or after the user changed the configuration). */
export function clearOllamaProbeCache(): void {
  cache.clear();
}

/**
 * Whether a listed model can chat. Embedding models (`nomic-embed-text`, `mxbai-embed-large`,
 * BERT families) are listed alongside chat models and would fail on `/v1/chat/completions`.
 */
export function isOllamaChatModel(model: OllamaModel): boolean {
  return !/embed/i.test(model.name) && !/bert/i.test(model.family ?? "");
}

/** Finds `modelId` among the listed models; `llama3.2` matches `llama3.2:latest`. */
export function findOllamaModel(models: OllamaModel[], modelId: string): OllamaModel | undefined {
  return models.find((model) => model.name === modelId || model.name === `${modelId}:latest`);
}

async function requestTags(options: {
  baseURL: string;
  timeoutMs: number;
  fetch: typeof fetch;
}): Promise<OllamaProbeResult> {
  const { baseURL } = options;
  try {
    const response = await options.fetch(`${baseURL}/api/tags`, {
      signal: AbortSignal.timeout(options.timeoutMs),
      headers: { accept: "application/json" },
    });
    if (!response.ok)
      return { reachable: false, baseURL, reason: `GET /api/tags answered ${response.status}` };
    const body: unknown = await response.json();
    const models = parseTags(body);
    if (models === null)
      return { reachable: false, baseURL, reason: "GET /api/tags did not answer like Ollama" };
    return { reachable: true, baseURL, models };
  } catch (error) {
    return { reachable: false, baseURL, reason: describeFetchFailure(error, options.timeoutMs) };
  }
}

function parseTags(body: unknown): OllamaModel[] | null {
  if (typeof body !== "object" || body === null || !("models" in body)) return null;
  const { models } = body;
  if (!Array.isArray(models)) return null;
  const parsed: OllamaModel[] = [];
  for (const entry of models as unknown[]) {
    if (typeof entry !== "object" || entry === null) continue;
    const record = entry as { name?: unknown; model?: unknown; details?: { family?: unknown } };
    const name =
      typeof record.name === "string"
        ? record.name
        : typeof record.model === "string"
          ? record.model
          : undefined;
    if (!name) continue;
    const family = record.details?.family;
    parsed.push(typeof family === "string" ? { name, family } : { name });
  }
  return parsed;
}

function describeFetchFailure(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && error.name === "TimeoutError")
    return `no answer within ${timeoutMs} ms`;
  const cause = error instanceof Error ? error.cause : undefined;
  const code =
    typeof cause === "object" && cause !== null && "code" in cause ? String(cause.code) : "";
  if (code === "ECONNREFUSED") return "connection refused";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return "host not found";
  if (error instanceof SyntaxError) return "GET /api/tags did not answer JSON";
  return error instanceof Error ? error.message : String(error);
}
