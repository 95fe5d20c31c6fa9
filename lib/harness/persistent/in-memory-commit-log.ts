import { HarnessConflictError, HarnessNotFoundError } from "../errors";
import { systemClock } from "./system-clock";
import { OPEN_COMMIT_STATUSES, type CommitLog, type CommitRecord } from "./commit-log";
import { FailedCommitsQuotaError } from "./failed-commits-quota-error";
import { contentByteLength } from "./internal/content";
import type { Clock, FileContent } from "./types";

const utf8 = (text: string) => Buffer.byteLength(text, "utf8");
const sized = (content: FileContent | null | undefined) =>
  content === null || content === undefined ? 0 : contentByteLength(content);

/**
 * What a record holds, as this log counts it: paths and contents of its change set, base and
 * conflicts, and the JSON of its error, `extraBody` and `session`. (A database log counts the
 * bytes of its own encoding.)
 */
function recordBytes(
  record: Pick<CommitRecord, "changes" | "base" | "conflicts" | "error" | "extraBody" | "session">,
): number {
  let bytes = utf8(
    JSON.stringify([record.error, record.extraBody ?? null, record.session ?? null]),
  );
  for (const file of [...record.changes.created, ...record.changes.updated])
    bytes += utf8(file.path) + sized(file.content);
  for (const path of record.changes.deleted) bytes += utf8(path);
  for (const [path, content] of Object.entries(record.base)) bytes += utf8(path) + sized(content);
  for (const conflict of record.conflicts) {
    bytes += utf8(conflict.path) + utf8(conflict.markers ?? "");
    bytes += sized(conflict.base) + sized(conflict.ours) + sized(conflict.theirs);
  }
  return bytes;
}

/** An in-memory `CommitLog` with the full contract; also the reference for adapters. */
export interface InMemoryCommitLog extends CommitLog {
  /** Every record, oldest first (copies). For tests. */
  all(): CommitRecord[];
}

/**
 * The reference `CommitLog`. Not durable across restarts — use it in tests and single-process
 * tools; the app uses a database-backed log. Ids are `commit-1`, `commit-2`, … unless
 * `generateId` is injected. With `maxOwnerBytes`, a `bounded` append whose owner's open records
 * would then hold more than that is declined (`FailedCommitsQuotaError`).
 */
export function createInMemoryCommitLog(
  options: { clock?: Clock; generateId?: () => string; maxOwnerBytes?: number | null } = {},
): InMemoryCommitLog {
  const maxOwnerBytes = options.maxOwnerBytes ?? null;
  const clock = options.clock ?? systemClock;
  let counter = 0;
  const generateId = options.generateId ?? (() => `commit-${++counter}`);
  const records = new Map<string, CommitRecord>();
  const order: string[] = [];

  const clone = (record: CommitRecord): CommitRecord => structuredClone(record);
  const openOrThrow = (id: string): CommitRecord => {
    const record = records.get(id);
    if (!record)
      throw new HarnessNotFoundError({
        surface: "commit",
        message: `No commit record ${id}.`,
        details: { id },
      });
    if (record.status === "resolved") {
      throw new HarnessConflictError({
        surface: "commit",
        message: `Commit record ${id} is already resolved.`,
        details: { id },
      });
    }
    return record;
  };

  return {
    async appendCommit({ commit, bounded = false, abortSignal }) {
      abortSignal?.throwIfAborted();
      const now = clock.now();
      if (commit.id !== undefined && records.has(commit.id)) return clone(records.get(commit.id)!);
      if (bounded && maxOwnerBytes !== null && commit.owner !== null) {
        const open = new Set<string>(OPEN_COMMIT_STATUSES);
        let usedBytes = 0;
        for (const record of records.values()) {
          if (record.owner === commit.owner && open.has(record.status))
            usedBytes += recordBytes(record);
        }
        const addedBytes = recordBytes(commit);
        if (usedBytes + addedBytes > maxOwnerBytes) {
          throw new FailedCommitsQuotaError({
            owner: commit.owner,
            limitBytes: maxOwnerBytes,
            usedBytes,
            addedBytes,
          });
        }
      }
      const id = commit.id ?? generateId();
      if (records.has(id))
        throw new HarnessConflictError({
          surface: "commit",
          message: `Commit record ${id} already exists.`,
          details: { id },
        });
      const record: CommitRecord = {
        ...structuredClone(commit),
        id,
        nextAttemptAt: commit.nextAttemptAt ?? null,
        turnId: commit.turnId ?? null,
        createdAt: now,
        updatedAt: now,
        resolvedAt: null,
        resolution: null,
        resolvedCursor: null,
      };
      records.set(id, record);
      order.push(id);
      return clone(record);
    },
    async getCommit({ id, abortSignal }) {
      abortSignal?.throwIfAborted();
      const record = records.get(id);
      return record ? clone(record) : null;
    },
    async listCommits({ harnessDir, owner, turnId, status, limit = 50, cursor, abortSignal }) {
      abortSignal?.throwIfAborted();
      const matching = [...order]
        .reverse()
        .map((id) => records.get(id)!)
        .filter((record) => harnessDir === undefined || record.harnessDir === harnessDir)
        .filter((record) => owner === undefined || record.owner === owner)
        .filter((record) => turnId === undefined || record.turnId === turnId)
        .filter(
          (record) =>
            status === undefined ||
            (status === "open" ? record.status !== "resolved" : record.status === status),
        );
      const start =
        cursor === undefined
          ? 0
          : Math.max(0, matching.findIndex((record) => record.id === cursor) + 1);
      const page = matching.slice(start, start + limit);
      const nextCursor = start + limit < matching.length ? (page.at(-1)?.id ?? null) : null;
      return { commits: page.map(clone), nextCursor };
    },
    async updateCommit({ id, patch, abortSignal }) {
      abortSignal?.throwIfAborted();
      const record = openOrThrow(id);
      Object.assign(record, structuredClone(patch), { updatedAt: clock.now() });
      return clone(record);
    },
    async markResolved({ id, resolution, cursor = null, abortSignal }) {
      abortSignal?.throwIfAborted();
      const record = openOrThrow(id);
      const now = clock.now();
      Object.assign(record, {
        status: "resolved",
        nextAttemptAt: null,
        resolution,
        resolvedCursor: cursor,
        resolvedAt: now,
        updatedAt: now,
      });
      return clone(record);
    },
    async claimDueCommits({ now, leaseUntil, limit, ids, abortSignal }) {
      abortSignal?.throwIfAborted();
      const claimed: CommitRecord[] = [];
      for (const id of order) {
        if (claimed.length >= limit) break;
        if (ids && !ids.includes(id)) continue;
        const record = records.get(id)!;
        if (record.status !== "failed" || record.nextAttemptAt === null) continue;
        if (record.nextAttemptAt.getTime() > now.getTime()) continue;
        record.nextAttemptAt = new Date(leaseUntil);
        claimed.push(clone(record));
      }
      return claimed;
    },
    all() {
      return order.map((id) => clone(records.get(id)!));
    },
  };
}
