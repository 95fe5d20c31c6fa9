import { isUniqueConstraintError, type Db } from "@/lib/db";
import { type RefinementHistoryRecord, type RefinementHistorySink } from "@/lib/harness/spi";

interface StoredPayload {
  kind: RefinementHistoryRecord["kind"];
  /** Position in the workspace's imported history, so export writes records back in order. */
  ordinal: number;
  record: Record<string, unknown>;
}

/**
 * Imported refinement history (Prime Agent's `RefinementResult` lines and refinement events)
 * kept as read-only `Refinement` rows with status `imported`, deduplicated per workspace by
 * the record's key.
 */
export class PrismaRefinementHistory implements RefinementHistorySink {
  constructor(
    private readonly db: Db,
    private readonly workspaceId: string,
  ) {}

  async appendImported(options: {
    records: readonly RefinementHistoryRecord[];
    abortSignal?: AbortSignal;
  }): Promise<{ imported: number; duplicates: number }> {
    let imported = 0;
    let duplicates = 0;
    let ordinal = await this.db.refinement.count({
      where: { workspaceId: this.workspaceId, status: "imported" },
    });
    for (const item of options.records) {
      options.abortSignal?.throwIfAborted();
      const payload: StoredPayload = { kind: item.kind, ordinal, record: item.record };
      try {
        await this.db.refinement.create({
          data: {
            workspaceId: this.workspaceId,
            scope: "global",
            trigger: "import",
            status: "imported",
            summary:
              typeof item.record.summary === "string" ? item.record.summary.slice(0, 2000) : "",
            rationale:
              typeof item.record.rationale === "string"
                ? item.record.rationale.slice(0, 10_000)
                : "",
            externalKey: item.key,
            payload: JSON.stringify(payload),
          },
        });
        imported++;
        ordinal++;
      } catch (error) {
        if (!isUniqueConstraintError(error)) throw error;
        duplicates++;
      }
    }
    return { imported, duplicates };
  }

  /** Every imported record of the workspace, in import order. */
  async listImported(): Promise<RefinementHistoryRecord[]> {
    const rows = await this.db.refinement.findMany({
      where: { workspaceId: this.workspaceId, status: "imported" },
      select: { externalKey: true, payload: true },
    });
    return rows
      .map((row) => ({
        key: row.externalKey ?? "",
        payload: JSON.parse(row.payload ?? "{}") as StoredPayload,
      }))
      .sort((a, b) => a.payload.ordinal - b.payload.ordinal)
      .map(({ key, payload }) => ({ key, kind: payload.kind, record: payload.record }));
  }
}
