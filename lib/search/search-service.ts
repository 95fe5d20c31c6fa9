import { currentActor } from "@/lib/accounts/current-actor";
import { HarnessForbiddenError, type Actor } from "@/lib/harness";
import type { Sql } from "@/lib/sql-storage/sql";
import { indexDocsFolder, needsInitialReindex, reindexAll, type SearchKind } from "./index-store";
import { searchPassages, type SearchHit } from "./search";
import type { SearchEmbeddings } from "./embeddings";

/** How a workspace's searches rank: lexical only, or re-ranked with an embedding model. */
export type SearchMode = { mode: "lexical"; reason: string } | { mode: "semantic"; model: string };

/** The embedding model a workspace's searches re-rank with, or why there is none. */
export type SearchEmbeddingsResolver = (
  workspaceId: string,
) => Promise<(SearchEmbeddings & { label: string }) | { off: string }>;

/** The app's search: who asks is checked against the database on every call. */
export interface SearchService {
  /**
   * Ranked passages the actor may see. The role and membership are read per call; someone who
   * is no longer a member is refused (`forbidden:harness`).
   */
  search(
    actor: Pick<Actor, "userId" | "workspaceId">,
    options: { query: string; kinds?: readonly SearchKind[]; limit?: number },
  ): Promise<SearchHit[]>;
  /** Indexes the docs folder (and everything, on a database indexed before search existed). Once per process. */
  ready(): Promise<void>;
  /** Whether `workspaceId`'s searches are lexical or re-ranked with embeddings (the admin page). */
  mode(workspaceId: string): Promise<SearchMode>;
}

export function createSearchService(options: {
  sql: Sql;
  docsFolder: string | null;
  log?: (message: string) => void;
  /** The embedding model per workspace (the app's: `AI_EMBEDDING_MODEL`); default none. */
  embeddings?: SearchEmbeddingsResolver;
}): SearchService {
  const { sql } = options;
  let prepared: Promise<void> | null = null;
  const ready = () =>
    (prepared ??= (async () => {
      if (await needsInitialReindex(sql)) {
        await reindexAll(sql, { docsFolder: options.docsFolder });
      } else if (options.docsFolder) {
        await indexDocsFolder(sql, options.docsFolder);
      }
    })().catch((error: unknown) => {
      // Search still answers from what the index holds; the next call tries again.
      prepared = null;
      options.log?.(`search: preparing the index failed: ${(error as Error).message}`);
    }));
  const embeddingsFor = async (workspaceId: string) => {
    if (!options.embeddings) return { off: "no embedding model is configured" };
    try {
      return await options.embeddings(workspaceId);
    } catch (error) {
      return { off: `the embedding model could not be set up: ${(error as Error).message}` };
    }
  };
  return {
    ready,
    async mode(workspaceId) {
      const embeddings = await embeddingsFor(workspaceId);
      return "off" in embeddings
        ? { mode: "lexical", reason: embeddings.off }
        : { mode: "semantic", model: embeddings.label };
    },
    async search(actor, query) {
      const now = await currentActor(sql, { ...actor, role: "member" });
      if (!now) {
        throw new HarnessForbiddenError({
          surface: "harness",
          message: "You are not a member of this workspace.",
        });
      }
      await ready();
      const embeddings = await embeddingsFor(now.workspaceId);
      return searchPassages(sql, {
        actor: now,
        ...query,
        ...("off" in embeddings ? {} : { embeddings }),
      });
    },
  };
}
