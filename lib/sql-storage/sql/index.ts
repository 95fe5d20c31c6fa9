/**
 * The SQL layer under Cairn's hot paths: one small client, two drivers (better-sqlite3 and
 * `pg`), the same SQL text on both. Prisma keeps the schema, migrations and generated types;
 * queries that run on every turn go through here (see docs/decisions/0017).
 *
 * Usage:
 *
 * ```ts
 * import { getSql, sqlFor, toDate, toBool } from "@/lib/sql-storage/sql";
 *
 * const sql = getSql(); // DATABASE_URL's database; sqlFor(target | url) for another
 * const row = await sql.get<{ version: number }>(
 *   `SELECT "version" FROM "PersistentDirState" WHERE "dirKey" = ?`, [dirKey]);
 * const { changes } = await sql.run(`DELETE FROM "Turn" WHERE "id" = ?`, [id]);
 * await sql.transaction(async (tx) => {
 *   await tx.run(`UPDATE … WHERE "version" = ?`, [next, expected]);
 *   return tx.all<Row>(`INSERT … RETURNING "id"`, [...]);
 * });
 * ```
 *
 * Rules, so one text runs on both databases:
 * - `?` placeholders (rewritten to `$1…` on PostgreSQL; never write `?` inside a literal),
 *   double-quoted identifiers, `ON CONFLICT … DO …` and `RETURNING` (both have them).
 * - Values bind as: `Date` → the format Prisma writes (SQLite: ISO 8601 text with `+00:00`;
 *   PostgreSQL: `timestamp(3)` in UTC), `boolean` → 1/0 on SQLite, `Uint8Array` → BLOB/bytea,
 *   `bigint`/`number` as they are, `undefined` → NULL.
 * - Rows come back as the driver gives them: read DateTime columns with `toDate`, Boolean with
 *   `toBool` (SQLite has 0/1), Bytes with `toBytes`; integers are numbers on both (int8 too).
 * - `transaction(fn)` is one write transaction: `BEGIN IMMEDIATE` on SQLite (the write lock up
 *   front, so writers queue on the busy timeout instead of failing an upgrade), `BEGIN` (READ
 *   COMMITTED) on PostgreSQL, or `{ isolation: "serializable" }`. Inside `fn` use only `tx`.
 *   On SQLite the connection is shared by the process, so other callers wait until it ends.
 * - `isUniqueViolation(error)` recognises a primary-key / unique conflict on either driver.
 * - `plannedPerCall(text)` marks a statement PostgreSQL must plan with each call's values (a
 *   full-text match): it runs unnamed, never on a generic plan.
 *
 * - `observeSql(listener)` tells a listener about every statement (BEGIN and COMMIT included);
 *   tests count a chat turn's statements with it. Without a listener it costs one check.
 *
 * One connection per database and process (`lib/db/connections.ts`), shared by every adapter
 * and, on PostgreSQL, by the Prisma client: statements are prepared once per connection
 * (better-sqlite3 statements cached by text; named statements on PostgreSQL).
 */
export { closeSql, getSql, sqlFor, sqlForDb } from "./sql-clients";
export { observeSql, type SqlStatementEvent } from "./sql-observers";
export type { Sql, SqlDialect, SqlExecutor, SqlValue, TransactionOptions } from "./sql-types";
export {
  isUniqueViolation,
  placeholders,
  plannedPerCall,
  toBool,
  toBytes,
  toDate,
  toDateOrNull,
} from "./sql-values";
