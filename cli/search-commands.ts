import { parseArgs } from "node:util";
import type { CairnConfig } from "@/lib/config";
import { migrateDatabase } from "@/lib/db";
import { reindexAll } from "@/lib/search";
import { sqlFor } from "@/lib/sql-storage";
import type { CommandIo } from "./harness-commands";

export const SEARCH_REINDEX_USAGE = "cairn search reindex";

/**
 * `cairn search reindex`: rebuilds the search index from memory, company knowledge, the docs
 * folder (`CAIRN_COMPANY_DOCS_DIR`), harness entries and chat messages, in one transaction
 * (searches see the old index until it commits). Prints the passages per kind.
 */
export async function searchReindexCommand(
  args: string[],
  io: CommandIo,
  config: CairnConfig,
): Promise<number> {
  parseArgs({ args, options: {}, strict: true });
  const target = config.database;
  await migrateDatabase({ target });
  const started = Date.now();
  const report = await reindexAll(sqlFor(target), { docsFolder: config.companyDocsDir });
  const total = Object.values(report).reduce((sum, count) => sum + count, 0);
  io.out(
    `reindexed ${total} passage(s) in ${Date.now() - started} ms: ` +
      Object.entries(report)
        .map(([kind, count]) => `${kind} ${count}`)
        .join(", "),
  );
  return 0;
}
