import { placeholders, type Sql } from "../sql";

/**
 * Reads of dir versions (`PersistentDirState.version`) that start together become one statement:
 * a turn loads its dirs at once (the user's and the company's), and each load validates its
 * snapshot by the dir's version, so two round trips become one `IN (…)`.
 *
 * The first read schedules the statement for the end of the current microtask queue; every read
 * asked for before then joins it. A version read this way is the database's at that moment, as
 * a read of its own would be: versions only grow, and a load reads the version before its files
 * and compares after (see `createDirBacking`). Not for transactions (they read through `tx`).
 */
export class DirVersionReads {
  private pending: Map<string, Array<(result: number | Error) => void>> | null = null;

  constructor(private readonly sql: Sql) {}

  /** The dir's version (`0` before its first commit). */
  read(dirKey: string): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      let batch = this.pending;
      if (!batch) {
        batch = new Map();
        this.pending = batch;
        queueMicrotask(() => void this.flush(batch!));
      }
      const waiting = batch.get(dirKey) ?? [];
      waiting.push((result) => (result instanceof Error ? reject(result) : resolve(result)));
      batch.set(dirKey, waiting);
    });
  }

  private async flush(batch: Map<string, Array<(result: number | Error) => void>>) {
    this.pending = null;
    const keys = [...batch.keys()];
    try {
      const rows = await this.sql.all<{ dirKey: string; version: number }>(
        keys.length === 1
          ? `SELECT "dirKey", "version" FROM "PersistentDirState" WHERE "dirKey" = ?`
          : `SELECT "dirKey", "version" FROM "PersistentDirState" WHERE "dirKey" IN (${placeholders(keys.length)})`,
        keys,
      );
      const versions = new Map(rows.map((row) => [row.dirKey, Number(row.version)]));
      for (const [dirKey, waiting] of batch) {
        for (const settle of waiting) settle(versions.get(dirKey) ?? 0);
      }
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error));
      for (const waiting of batch.values()) for (const settle of waiting) settle(failure);
    }
  }
}

const shared = new WeakMap<Sql, DirVersionReads>();

/** The process's batcher for a database (every dir backing of it shares one). */
export function dirVersionReadsOf(sql: Sql): DirVersionReads {
  let reads = shared.get(sql);
  if (!reads) {
    reads = new DirVersionReads(sql);
    shared.set(sql, reads);
  }
  return reads;
}
