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
