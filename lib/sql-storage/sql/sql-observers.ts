import { processSlot } from "@/lib/cairn/process-slot";
import type { SqlDialect } from "./sql-types";

/** One statement as an observer sees it: before it runs. */
export interface SqlStatementEvent {
  dialect: SqlDialect;
  /** The SQL text as written (`?` placeholders), or `BEGIN …` / `COMMIT` / `ROLLBACK`. */
  text: string;
  /** Whether it runs inside a `transaction(fn)` (its BEGIN and COMMIT included). */
  inTransaction: boolean;
}

const observers = (processSlot().sqlObservers ??= []) as Array<(event: SqlStatementEvent) => void>;

/**
 * Calls `listener` before every statement any SQL client of this process runs, until the
 * returned function is called. For tests and diagnostics (counting a turn's statements); a
 * listener must not throw or run statements itself.
 */
export function observeSql(listener: (event: SqlStatementEvent) => void): () => void {
  observers.push(listener);
  return () => {
    const index = observers.indexOf(listener);
    if (index !== -1) observers.splice(index, 1);
  };
}

/** Whether anyone observes statements (so the hot path skips `notify` when not). */
export function hasSqlObservers(): boolean {
  return observers.length > 0;
}

export function notify(dialect: SqlDialect, text: string, inTransaction: boolean): void {
  for (const listener of observers) listener({ dialect, text, inTransaction });
}
