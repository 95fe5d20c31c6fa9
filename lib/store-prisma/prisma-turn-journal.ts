import type { Db } from "@/lib/db";
import { type TurnJournal } from "@/lib/harness";
import { decodeDurable, encodeDurable, type TurnJournalEntry } from "@/lib/harness/spi";

/**
 * `TurnJournal` on Prisma (`TurnJournalEntry` rows, one per turn and dir), for SQLite and
 * PostgreSQL alike. `write` replaces an entry only with a higher revision (a conditional
 * update, then an insert whose primary key settles a race), so a spooled checkpoint imported
 * late never overwrites a newer one.
 */
export function createPrismaTurnJournal(options: { db: Db }): TurnJournal {
  const { db } = options;
  return {
    async write({ entry, abortSignal }) {
      abortSignal?.throwIfAborted();
      const payload = encodeDurable(entry);
      const updated = await db.turnJournalEntry.updateMany({
        where: {
          turnId: entry.turnId,
          harnessDir: entry.harnessDir,
          revision: { lt: entry.revision },
        },
        data: { revision: entry.revision, payload, updatedAt: entry.at },
      });
      if (updated.count > 0) return;
      try {
        await db.turnJournalEntry.create({
          data: {
            turnId: entry.turnId,
            harnessDir: entry.harnessDir,
            revision: entry.revision,
            payload,
            updatedAt: entry.at,
          },
        });
      } catch (error) {
        // The entry exists with this or a newer revision: nothing to do.
        if ((error as { code?: string }).code !== "P2002") throw error;
      }
    },
    async listEntries({ turnId, abortSignal }) {
      abortSignal?.throwIfAborted();
      const rows = await db.turnJournalEntry.findMany({
        where: { turnId },
        orderBy: { harnessDir: "asc" },
      });
      return rows.map((row) => decodeDurable<TurnJournalEntry>(row.payload));
    },
    async listTurns({ limit = 100, abortSignal } = {}) {
      abortSignal?.throwIfAborted();
      const rows = await db.turnJournalEntry.findMany({
        orderBy: { updatedAt: "asc" },
        select: { turnId: true },
        take: limit * 4,
      });
      return [...new Set(rows.map((row) => row.turnId))].slice(0, limit);
    },
    async discard({ turnId, abortSignal }) {
      abortSignal?.throwIfAborted();
      await db.turnJournalEntry.deleteMany({ where: { turnId } });
    },
  };
}
