/** Where a model's context window size came from; the UI may show "assumed" for `default`. */
export type ContextWindowSource = "env" | "known-model" | "default";

/** The window assumed for a model Cairn knows nothing about (`AI_CONTEXT_WINDOW` overrides it). */
export const DEFAULT_CONTEXT_WINDOW = 128_000;

/**
 * The window assumed for a model found by probing Ollama. Ollama runs models with a small
 * `num_ctx` (4,096 tokens unless `OLLAMA_CONTEXT_LENGTH` is set on the server) and silently drops
 * the start of longer prompts — the instructions — so assuming the model's trained window would
 * be wrong. Raise it with `AI_CONTEXT_WINDOW` after raising the server's context length.
 */
export const OLLAMA_DEFAULT_CONTEXT_WINDOW = 4_096;

// Only families whose window is documented and stable; unknown ids get the default. Order matters:
// the first matching prefix wins, so more specific prefixes come first.
const knownWindows: ReadonlyArray<readonly [prefix: string, tokens: number]> = [
  ["gpt-5-chat", 128_000],
  ["gpt-5.1-chat", 128_000],
  ["gpt-5-mini", 400_000],
  ["gpt-5-nano", 400_000],
  ["gpt-5.1", 400_000],
  ["gpt-5-20", 400_000],
  ["gpt-4.1", 1_047_576],
  ["gpt-4o", 128_000],
  ["gpt-4-turbo", 128_000],
  ["gpt-3.5-turbo", 16_385],
  ["o1", 200_000],
  ["o3", 200_000],
  ["o4-mini", 200_000],
  ["claude-", 200_000],
];

/**
 * The context window of a known model id, or `null`. Matches `gpt-5` exactly and the listed
 * families by prefix (dated snapshots such as `gpt-4o-2024-08-06` included).
 */
export function knownContextWindow(modelId: string): number | null {
  const id = modelId.toLowerCase();
  if (id === "gpt-5") return 400_000;
  for (const [prefix, tokens] of knownWindows) if (id.startsWith(prefix)) return tokens;
  return null;
}
