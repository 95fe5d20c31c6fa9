import { randomUUID } from "node:crypto";

import { type RefinementHistoryRecord, type RefinementHistorySink } from "@/lib/harness/spi";
import { isUniqueViolation, type Sql } from "./sql";

interface StoredPayload {
  kind: RefinementHistoryRecord["kind"];
  /** Position in the workspace's imported history, so export writes records back in order. */
  ordinal: number;
  record: Record<string, unknown>;
}

/**
 * Imported refinement history (Prime Agent's `RefinementResult` lines and refinement events)
 * kept as read-only `Refinement` rows with status `imported`, deduplicated per workspace by
 * the record's key (`@@unique([workspaceId, externalKey])`).
 */
export class SqlRefinementHistory implements RefinementHistorySink {
  constructor(
    private readonly sql: Sql,
    private readonly workspaceId: string,
  ) {}

  async appendImported(options: {
    records: readonly RefinementHistoryRecord[];
    abortSignal?: AbortSignal;
  }): Promise<{ imported: number; duplicates: number }> {
    let imported = 0;
    let duplicates = 0;
    const counted = await this.sql.get<{ n: number }>(
      `SELECT COUNT(*) AS "n" FROM "Refinement" WHERE "workspaceId" = ? AND "status" = 'imported'`,
      [this.workspaceId],
    );
    let ordinal = Number(counted?.n ?? 0);
    for (const item of options.records) {
      options.abortSignal?.throwIfAborted();
      const payload: StoredPayload = { kind: item.kind, ordinal, record: item.record };
      const now = new Date();
      try {
        await this.sql.run(
          `INSERT INTO "Refinement" ("id", "workspaceId", "scope", "trigger", "status", "summary",
             "rationale", "expectedOutcome", "edits", "externalKey", "payload", "createdAt", "updatedAt")
           VALUES (?, ?, 'global', 'import', 'imported', ?, ?, '', '[]', ?, ?, ?, ?)`,
          [
            randomUUID(),
            this.workspaceId,
            typeof item.record.summary === "string" ? item.record.summary.slice(0, 2000) : "",
            typeof item.record.rationale === "string" ? item.record.rationale.slice(0, 10_000) : "",
            item.key,
            JSON.stringify(payload),
            now,
            now,
          ],
        );
        imported++;
        ordinal++;
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        duplicates++;
      }
    }
    return { imported, duplicates };
  }

  /** Every imported record of the workspace, in import order. */
  async listImported(): Promise<RefinementHistoryRecord[]> {
    const rows = await this.sql.all<{ externalKey: string | null; payload: string | null }>(
      `SELECT "externalKey", "payload" FROM "Refinement" WHERE "workspaceId" = ? AND "status" = 'imported'`,
      [this.workspaceId],
    );
    return rows
      .map((row) => ({
        key: row.externalKey ?? "",
        payload: JSON.parse(row.payload ?? "{}") as StoredPayload,
      }))
      .sort((a, b) => a.payload.ordinal - b.payload.ordinal)
      .map(({ key, payload }) => ({ key, kind: payload.kind, record: payload.record }));
  }
}
