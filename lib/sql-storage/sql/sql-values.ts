/** A DateTime column's value (SQLite: ISO text or epoch ms; PostgreSQL: a Date) as a Date. */
export function toDate(value: unknown): Date {
  if (value instanceof Date) return value;
  if (typeof value === "number" || typeof value === "bigint") return new Date(Number(value));
  return new Date(String(value));
}

/** A nullable DateTime column as a Date or `null`. */
export function toDateOrNull(value: unknown): Date | null {
  return value === null || value === undefined ? null : toDate(value);
}

/** A Boolean column (SQLite: 0/1; PostgreSQL: boolean). */
export function toBool(value: unknown): boolean {
  return value === true || value === 1 || value === 1n || value === "1" || value === "t";
}

/** A Bytes column as a Buffer (both drivers give one; kept for symmetry with the others). */
export function toBytes(value: unknown): Buffer {
  return Buffer.isBuffer(value) ? value : Buffer.from(value as Uint8Array);
}

/** Whether an error is a primary-key or unique-constraint violation, on either driver. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (
    code === "SQLITE_CONSTRAINT_PRIMARYKEY" ||
    code === "SQLITE_CONSTRAINT_UNIQUE" ||
    code === "23505" ||
    code === "P2002"
  );
}

/** `?, ?, ?` for `count` values (e.g. `IN (…)`); at least one (an empty list matches nothing). */
export function placeholders(count: number): string {
  return count === 0 ? "NULL" : Array.from({ length: count }, () => "?").join(", ");
}

/** The marker `plannedPerCall` puts at the start of a statement's text. */
export const PLANNED_PER_CALL = "/* cairn: planned per call */ ";

/**
 * A statement PostgreSQL must plan with each call's own values, never with a generic plan: a
 * full-text match, whose best plan depends on how common the words are. Named prepared statements
 * switch to a generic plan after five calls, which does not know the words (measured: a prompt
 * search of 5 ms took 120 ms from the sixth call on); such a text runs unnamed. A comment only:
 * SQLite and the statement's meaning are unchanged.
 */
export function plannedPerCall(text: string): string {
  return `${PLANNED_PER_CALL}${text}`;
}
