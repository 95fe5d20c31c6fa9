import { type TurnJournal } from "@/lib/harness";
import { decodeDurable, encodeDurable, type TurnJournalEntry } from "@/lib/harness/spi";
import type { Sql } from "./sql";

/**
 * `TurnJournal` on the SQL layer (`TurnJournalEntry` rows, one per turn and dir), for SQLite
 * and PostgreSQL alike. `write` is one upsert that replaces an entry only with a higher
 * revision (`ON CONFLICT … DO UPDATE … WHERE revision < excluded.revision`), so a spooled
 * checkpoint imported late never overwrites a newer one.
 */
export function createTurnJournal(options: { sql: Sql }): TurnJournal {
  const { sql } = options;
  return {
    async write({ entry, abortSignal }) {
      abortSignal?.throwIfAborted();
      await sql.run(
        `INSERT INTO "TurnJournalEntry" ("turnId", "harnessDir", "revision", "payload", "updatedAt")
         VALUES (?, ?, ?, ?, ?)
         ON CONFLICT ("turnId", "harnessDir") DO UPDATE SET "revision" = excluded."revision",
           "payload" = excluded."payload", "updatedAt" = excluded."updatedAt"
         WHERE "TurnJournalEntry"."revision" < excluded."revision"`,
        [entry.turnId, entry.harnessDir, entry.revision, encodeDurable(entry), new Date(entry.at)],
      );
    },
    async listEntries({ turnId, abortSignal }) {
      abortSignal?.throwIfAborted();
      const rows = await sql.all<{ payload: string }>(
        `SELECT "payload" FROM "TurnJournalEntry" WHERE "turnId" = ? ORDER BY "harnessDir" ASC`,
        [turnId],
      );
      return rows.map((row) => decodeDurable<TurnJournalEntry>(row.payload));
    },
    async listTurns({ limit = 100, abortSignal } = {}) {
      abortSignal?.throwIfAborted();
      const rows = await sql.all<{ turnId: string }>(
        `SELECT "turnId" FROM "TurnJournalEntry" ORDER BY "updatedAt" ASC LIMIT ?`,
        [limit * 4],
      );
      return [...new Set(rows.map((row) => row.turnId))].slice(0, limit);
    },
    async discard({ turnId, abortSignal }) {
      abortSignal?.throwIfAborted();
      await sql.run(`DELETE FROM "TurnJournalEntry" WHERE "turnId" = ?`, [turnId]);
    },
  };
}
