import { createHash } from "node:crypto";

/**
 * Where a refinement record came from in the Prime Agent layout:
 * - `result`: one `RefinementResult` line of `refinements.jsonl` (what `/refine` produced).
 * - `event`: one `HarnessRefinementEvent` of the `refinements` array in `harness_state.json`.
 */
export type RefinementRecordKind = "result" | "event";

/**
 * One refinement record as read-only history. `record` is the parsed JSON object exactly as
 * it was in the file — fields Cairn does not model are kept and written back on export.
 */
export interface RefinementHistoryRecord {
  /**
   * The identity used to deduplicate: `<kind>:<id>` when the record has a non-empty string
   * `id`, else `<kind>:sha256:<hex>` of its canonical JSON (keys sorted).
   */
  key: string;
  kind: RefinementRecordKind;
  record: Record<string, unknown>;
}

/**
 * Where imported refinement history goes. Refinement records are history, not entries: the
 * import never turns them into edits. The app decides how to persist them.
 */
export interface RefinementHistorySink {
  /**
   * Appends the records whose `key` is not stored yet, in the given order, and skips the
   * rest. Must be idempotent: appending the same records twice stores them once.
   *
   * @returns how many records were new and how many were already stored.
   */
  appendImported(options: {
    records: readonly RefinementHistoryRecord[];
    abortSignal?: AbortSignal;
  }): Promise<{ imported: number; duplicates: number }>;
}

/** The in-memory `RefinementHistorySink`, for tests and for hosts that keep history in memory. */
export class InMemoryRefinementHistory implements RefinementHistorySink {
  private readonly records = new Map<string, RefinementHistoryRecord>();

  async appendImported(options: {
    records: readonly RefinementHistoryRecord[];
    abortSignal?: AbortSignal;
  }): Promise<{ imported: number; duplicates: number }> {
    options.abortSignal?.throwIfAborted();
    let imported = 0;
    let duplicates = 0;
    for (const record of options.records) {
      if (this.records.has(record.key)) {
        duplicates++;
        continue;
      }
      this.records.set(record.key, structuredClone(record));
      imported++;
    }
    return { imported, duplicates };
  }

  /** Every stored record, in the order it was first appended. */
  list(): RefinementHistoryRecord[] {
    return [...this.records.values()].map((record) => structuredClone(record));
  }
}

/** JSON with object keys sorted at every level, so equal records hash equally. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** The deduplication key of a record (see `RefinementHistoryRecord.key`). */
export function refinementRecordKey(
  kind: RefinementRecordKind,
  record: Record<string, unknown>,
): string {
  if (typeof record.id === "string" && record.id.length > 0) return `${kind}:${record.id}`;
  return `${kind}:sha256:${createHash("sha256").update(canonicalJson(record)).digest("hex")}`;
}

/**
 * Whether a parsed value looks like a Prime Agent `RefinementResult`: an object with
 * `appliedEdits`. Prime Agent also requires an `id`; we accept records without one (they are
 * deduplicated by content hash) rather than lose history.
 */
export function isRefinementResult(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === "object" && value !== null && !Array.isArray(value) && "appliedEdits" in value
  );
}

/** Whether a parsed value looks like a Prime Agent `HarnessRefinementEvent`. */
export function isRefinementEvent(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The result of reading `refinements.jsonl`. */
export interface ParsedRefinementLines {
  /** Valid records, in file order, without duplicates. */
  records: RefinementHistoryRecord[];
  /** Records whose key appeared earlier in the same file. */
  duplicates: number;
  /** Lines that were not JSON, too long, or not a `RefinementResult`. */
  malformed: number;
  /** 1-based line numbers of the malformed lines (for the report). */
  malformedLines: number[];
}

/**
 * Parses `refinements.jsonl`: one `RefinementResult` JSON object per line. Blank lines are
 * ignored; malformed lines are skipped and counted, never fatal — Prime Agent itself skips
 * them so that one bad append cannot break the history.
 */
export function parseRefinementLines(options: {
  text: string;
  /** Lines longer than this many UTF-8 bytes count as malformed. */
  maxLineBytes: number;
}): ParsedRefinementLines {
  const result: ParsedRefinementLines = {
    records: [],
    duplicates: 0,
    malformed: 0,
    malformedLines: [],
  };
  const seen = new Set<string>();
  const lines = options.text.split("\n");
  lines.forEach((rawLine, index) => {
    const line = rawLine.trim();
    if (line === "") return;
    let parsed: unknown;
    try {
      if (Buffer.byteLength(line, "utf8") > options.maxLineBytes) throw new Error("line too long");
      parsed = JSON.parse(line);
    } catch {
      parsed = undefined;
    }
    if (!isRefinementResult(parsed)) {
      result.malformed++;
      result.malformedLines.push(index + 1);
      return;
    }
    const key = refinementRecordKey("result", parsed);
    if (seen.has(key)) {
      result.duplicates++;
      return;
    }
    seen.add(key);
    result.records.push({ key, kind: "result", record: parsed });
  });
  return result;
}

/** Formats `refinements.jsonl`: one compact JSON object per line, as Prime Agent appends them. */
export function formatRefinementLines(records: readonly RefinementHistoryRecord[]): string {
  return records
    .filter((record) => record.kind === "result")
    .map((record) => `${JSON.stringify(record.record)}\n`)
    .join("");
}
