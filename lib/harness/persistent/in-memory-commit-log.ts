import { HarnessConflictError, HarnessNotFoundError } from "../errors";
import { systemClock } from "./checkout";
import type { CommitLog, CommitRecord } from "./commit-log";
import type { Clock } from "./types";

/** An in-memory `CommitLog` with the full contract; also the reference for adapters. */
export interface InMemoryCommitLog extends CommitLog {
  /** Every record, oldest first (copies). For tests. */
  all(): CommitRecord[];
}

/**
 * The reference `CommitLog`. Not durable across restarts — use it in tests and single-process
 * tools; the app uses a database-backed log. Ids are `commit-1`, `commit-2`, … unless
 * `generateId` is injected.
 */
export function createInMemoryCommitLog(
  options: { clock?: Clock; generateId?: () => string } = {},
): InMemoryCommitLog {
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
    async appendCommit({ commit, abortSignal }) {
      abortSignal?.throwIfAborted();
      const now = clock.now();
      if (commit.id !== undefined && records.has(commit.id)) return clone(records.get(commit.id)!);
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
