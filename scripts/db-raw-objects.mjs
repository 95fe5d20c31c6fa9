// Database objects that migrations create in raw SQL and Prisma's schema cannot describe, so
// `prisma migrate diff` reports them as drift and would drop them in the next migration: the
// search index's FTS5 table and its shadow tables on SQLite, and on PostgreSQL the stored
// tsvector column "SearchPassage"."searchVector" (generated; the schema is the same for both
// databases) with its GIN index (docs/search.md). Both the drift check and `db:new-migration`
// leave statements about them out. (PostgreSQL's functions and triggers Prisma does not compare.)
const RAW_TABLES = /^SearchPassageFts(_(config|data|docsize|idx|content))?$/;
const RAW_INDEXES = /^SearchPassage_searchVector_idx$/;
const RAW_COLUMNS = [["SearchPassage", "searchVector"]];

/** The diff script without the statements that would drop the raw objects. */
export function withoutRawObjects(script) {
  return script
    .split(/\n(?=-- )/)
    .filter((block) => {
      const drop = /^-- DropTable\n(?:PRAGMA foreign_keys=off;\n)?DROP TABLE "([^"]+)";/m.exec(
        block,
      );
      if (drop && RAW_TABLES.test(drop[1])) return false;
      const dropIndex = /^-- DropIndex\nDROP INDEX "([^"]+)";\s*$/.exec(block);
      if (dropIndex && RAW_INDEXES.test(dropIndex[1])) return false;
      const dropColumn = /^-- AlterTable\nALTER TABLE "([^"]+)" DROP COLUMN "([^"]+)";\s*$/.exec(
        block,
      );
      return !(
        dropColumn &&
        RAW_COLUMNS.some(([table, column]) => table === dropColumn[1] && column === dropColumn[2])
      );
    })
    .join("\n");
}

/** Whether a diff script changes anything. */
export function hasStatements(script) {
  return /\b(CREATE|ALTER|DROP|INSERT|UPDATE|PRAGMA)\b/.test(script);
}
