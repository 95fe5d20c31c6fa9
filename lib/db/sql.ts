import { Prisma } from "./generated/sqlite/client";

/**
 * Fragments for `$queryRaw` / `$executeRaw` templates: `sql` builds one with bound values,
 * `joinSql` joins values or fragments with `, ` (e.g. for `IN (…)` or multi-row `VALUES`).
 * Both generated clients share the runtime these come from, so they work on either database;
 * placeholders are rendered for the client that runs the query.
 */
export const sql = Prisma.sql;
export const joinSql = Prisma.join;
