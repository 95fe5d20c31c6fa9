import { reindexAll } from "@/lib/search";
import { openMigratedDatabase, parseOptions, type Command } from "./command";

export const SEARCH_REINDEX_USAGE = "cairn search reindex";

/**
 * `cairn search reindex`: rebuilds the search index from memory, company knowledge, the docs
 * folder (`CAIRN_COMPANY_DOCS_DIR`), harness entries and chat messages, in one transaction
 * (searches see the old index until it commits). Prints the passages per kind.
 */
export const searchReindexCommand: Command = async (args, io, config) => {
  parseOptions(args, {});
  const sql = await openMigratedDatabase(config);
  const started = Date.now();
  const report = await reindexAll(sql, { docsFolder: config.companyDocsDir });
  const total = Object.values(report).reduce((sum, count) => sum + count, 0);
  io.out(
    `reindexed ${total} passage(s) in ${Date.now() - started} ms: ` +
      Object.entries(report)
        .map(([kind, count]) => `${kind} ${count}`)
        .join(", "),
  );
  return 0;
};
