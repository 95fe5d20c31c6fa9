// Database objects that migrations create in raw SQL and Prisma's schema cannot describe, so
// `prisma migrate diff` reports them as drift and would drop them in the next migration: the
// search index's FTS5 table and its shadow tables on SQLite (docs/search.md). Both the drift
// check and `db:new-migration` leave statements about them out. (PostgreSQL's search objects
// are an expression index, functions and triggers, which Prisma does not compare.)
const RAW_TABLES = /^SearchPassageFts(_(config|data|docsize|idx|content))?$/;

/** The diff script without the statements that would drop the raw objects. */
export function withoutRawObjects(script) {
  return script
    .split(/\n(?=-- )/)
    .filter((block) => {
      const drop = /^-- DropTable\n(?:PRAGMA foreign_keys=off;\n)?DROP TABLE "([^"]+)";/m.exec(
        block,
      );
      return !(drop && RAW_TABLES.test(drop[1]));
    })
    .join("\n");
}

/** Whether a diff script changes anything. */
export function hasStatements(script) {
  return /\b(CREATE|ALTER|DROP|INSERT|UPDATE|PRAGMA)\b/.test(script);
}
