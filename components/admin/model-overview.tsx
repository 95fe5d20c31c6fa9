import { TermList } from "@/components/ui/term-list";
import type { ModelOverview } from "@/lib/ai";

function windowText(entry: { contextWindow: number; contextWindowSource: string }): string {
  const tokens = `${entry.contextWindow.toLocaleString("en-US")} tokens`;
  if (entry.contextWindowSource === "env") return `${tokens} (AI_CONTEXT_WINDOW)`;
  if (entry.contextWindowSource === "default") return `${tokens} (assumed: unknown model)`;
  return tokens;
}

const providerNames: Record<string, string> = {
  openai: "OpenAI",
  anthropic: "Anthropic",
  "openai-compatible": "OpenAI-compatible server",
};

const sourceText: Record<string, string> = {
  env: " (the server's AI_* variables)",
  workspace: " (saved above)",
  ollama: " (a local Ollama, found automatically)",
};

/** The model and provider the server is configured with, read-only (never the API key). */
export function ModelOverviewCard({ overview }: { overview: ModelOverview }) {
  const rows: [string, string][] =
    overview.status === "ready"
      ? [
          [
            "Provider",
            `${providerNames[overview.provider] ?? overview.provider}${sourceText[overview.source]}`,
          ],
          ["Endpoint", overview.baseURL ?? "the provider's default"],
          ["Chat model", overview.chat.modelId],
          ["Chat context window", windowText(overview.chat)],
          ["Refinement model", overview.refine.modelId],
          ["API key", overview.apiKeySet ? "set (not shown)" : "not set"],
        ]
      : [];
  return (
    <section className="max-w-lg space-y-2" data-testid="model-overview">
      <h2 className="font-medium">Model in use</h2>
      <p className="text-muted-foreground text-sm">
        What the next message uses: the server&apos;s AI_* variables when they are set, else the
        model saved above, else a local Ollama if one answers.
      </p>
      {overview.status === "ready" ? (
        <TermList rows={rows} testIdPrefix="model" />
      ) : (
        <p className="text-destructive text-sm" data-testid="model-not-ready">
          {overview.message}
        </p>
      )}
    </section>
  );
}
