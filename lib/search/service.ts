import { currentActor } from "@/lib/accounts/current-actor";
import type { Db } from "@/lib/db/client";
import { HarnessForbiddenError, type Actor } from "@/lib/harness";
import type { Sql } from "@/lib/storage/sql";
import { indexDocsFolder, needsInitialReindex, reindexAll, type SearchKind } from "./index-store";
import { searchPassages, type SearchHit } from "./search";

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
}

export function createSearchService(options: {
  db: Db;
  sql: Sql;
  docsFolder: string | null;
  log?: (message: string) => void;
}): SearchService {
  const { db, sql } = options;
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
  return {
    ready,
    async search(actor, query) {
      const now = await currentActor(db, { ...actor, role: "member" });
      if (!now) {
        throw new HarnessForbiddenError({
          surface: "harness",
          message: "You are not a member of this workspace.",
        });
      }
      await ready();
      return searchPassages(sql, { actor: now, ...query });
    },
  };
}
