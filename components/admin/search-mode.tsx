import type { SearchMode } from "@/lib/search";

/**
 * How the workspace's searches rank (docs/search.md): lexical only, or lexical re-ranked with the
 * provider's embeddings (`AI_EMBEDDING_MODEL`), read-only.
 */
export function SearchModeCard({ mode }: { mode: SearchMode }) {
  return (
    <section className="max-w-lg space-y-2" data-testid="search-mode">
      <h2 className="font-medium">Search</h2>
      <p className="text-sm" data-testid="search-mode-value">
        {mode.mode === "semantic"
          ? `Lexical (full-text), re-ranked with embeddings from ${mode.model}.`
          : `Lexical only: ${mode.reason}.`}
      </p>
      <p className="text-muted-foreground text-sm">
        Set AI_EMBEDDING_MODEL to an embedding model of the provider chat uses (OpenAI or an
        OpenAI-compatible server such as Ollama) to re-rank search results by meaning.
      </p>
    </section>
  );
}
