import { hasErrorMarker, HarnessError } from "../errors";
import type { CommitRecord, NewCommitRecord } from "./commit-log";

/**
 * One dir's journaled change set of a turn that has not finished: everything needed to turn it
 * into an `interrupted` commit record if the process dies — the same fields a commit record
 * keeps (the change set so far may be empty, when the turn undid its writes). Each checkpoint
 * replaces the previous entry of the same `(turnId, harnessDir)`; `revision` only grows within
 * a turn, so an older entry never overwrites a newer one.
 */
export interface TurnJournalEntry extends Pick<
  CommitRecord,
  "harnessDir" | "mode" | "owner" | "changes" | "baseCursor" | "base" | "extraBody" | "session"
> {
  turnId: string;
  /** Grows with every checkpoint of the turn. */
  revision: number;
  at: Date;
}

/**
 * Port: the durable journal of unfinished turns' writes. The app keeps it in the database; the
 * in-memory one is the reference and test double. A turn writes an entry whenever its change set
 * changed (after each tool call), and `discard`s its entries once the change set has a durable
 * home (committed, in the commit log, or in the spool) or the turn ended without committing by
 * design. What is left belongs to turns that died: `recoverInterruptedTurn` turns it into
 * `interrupted` commit records.
 */
export interface TurnJournal {
  /** Stores `entry` unless an entry of the same turn and dir with a higher revision exists. */
  write(options: { entry: TurnJournalEntry; abortSignal?: AbortSignal }): Promise<void>;
  /** The turn's entries (one per dir). */
  listEntries(options: { turnId: string; abortSignal?: AbortSignal }): Promise<TurnJournalEntry[]>;
  /** Turns that have entries, oldest first, at most `limit` (default 100). */
  listTurns(options?: { limit?: number; abortSignal?: AbortSignal }): Promise<string[]>;
  /** Removes every entry of the turn. Idempotent. */
  discard(options: { turnId: string; abortSignal?: AbortSignal }): Promise<void>;
}

/** What the spool holds: whatever could not reach the database when it had to. */
export type SpoolItem =
  /** A completed turn's change set whose commit (and its failure record) could not be recorded. */
  | { id: string; kind: "commit"; at: Date; commit: NewCommitRecord & { id: string } }
  /** A journal checkpoint written while the database did not answer. */
  | { id: string; kind: "journal"; at: Date; entry: TurnJournalEntry }
  /** A turn's journal to discard (its change set already has a durable home). */
  | { id: string; kind: "journal-discard"; at: Date; turnId: string };

/** A spool item before the spool assigns its id and time. */
export type NewSpoolItem =
  | { kind: "commit"; commit: NewCommitRecord & { id: string } }
  | { kind: "journal"; entry: TurnJournalEntry }
  | { kind: "journal-discard"; turnId: string };

/**
 * Port: a durable local spool (the app's: fsync'd files under `CAIRN_DATA_DIR`). `put` returns
 * only once the item would survive a crash of the process. Items list in the order they were put;
 * `drainSpool` moves them into the database and removes them.
 */
export interface CommitSpool {
  put(options: { item: NewSpoolItem }): Promise<SpoolItem>;
  /** Every item, oldest first. */
  list(): Promise<SpoolItem[]>;
  /** Removes an item. Idempotent (an item removed by another process is not an error). */
  remove(options: { id: string }): Promise<void>;
}

/** When failed commits are retried automatically. */
export interface RetryPolicy {
  /** Apply attempts in all, the turn's own first one included. Default 6. */
  maxAttempts: number;
  /** Delay before the second attempt; doubles each time. Default 2 s. */
  baseDelayMs: number;
  /** Cap of the delay. Default 5 minutes. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 6,
  baseDelayMs: 2_000,
  maxDelayMs: 300_000,
};

/**
 * When the next automatic attempt is due after `attempts` attempts, or `null` when retries are
 * exhausted (a person decides then).
 */
export function nextAttemptAt(options: {
  policy: RetryPolicy;
  attempts: number;
  now: Date;
}): Date | null {
  const { policy, attempts, now } = options;
  if (attempts >= policy.maxAttempts) return null;
  const delay = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempts - 1));
  return new Date(now.getTime() + delay);
}

/**
 * The stable commit-record id of a turn's change set to one dir. The failure record of a
 * completed turn and the `interrupted` record of a dead one share it, so whichever arrives
 * first wins and the other is a no-op: a change set is never listed twice.
 */
export function turnCommitId(options: { turnId: string; harnessDir: string }): string {
  return `turn:${options.turnId}:${options.harnessDir}`;
}

const journalWriteErrorMarker = Symbol.for("cairn.harness.error.journal_write");

/** Thrown when a write could not be journaled anywhere (database and spool both failed). */
export class JournalWriteError extends HarnessError {
  private readonly [journalWriteErrorMarker] = true;

  constructor(options: { message: string; cause?: unknown }) {
    super({ code: "failed:journal", message: options.message, cause: options.cause });
  }

  static override isInstance(error: unknown): error is JournalWriteError {
    return hasErrorMarker(error, journalWriteErrorMarker);
  }
}

/** The reference `TurnJournal`, in memory. */
export function createInMemoryTurnJournal(): TurnJournal & { all(): TurnJournalEntry[] } {
  const entries = new Map<string, TurnJournalEntry>();
  const key = (turnId: string, harnessDir: string) => JSON.stringify([turnId, harnessDir]);
  return {
    async write({ entry, abortSignal }) {
      abortSignal?.throwIfAborted();
      const existing = entries.get(key(entry.turnId, entry.harnessDir));
      if (existing && existing.revision >= entry.revision) return;
      entries.set(key(entry.turnId, entry.harnessDir), structuredClone(entry));
    },
    async listEntries({ turnId, abortSignal }) {
      abortSignal?.throwIfAborted();
      return [...entries.values()]
        .filter((entry) => entry.turnId === turnId)
        .map((entry) => structuredClone(entry));
    },
    async listTurns({ limit = 100, abortSignal } = {}) {
      abortSignal?.throwIfAborted();
      const turns = [...entries.values()]
        .sort((a, b) => a.at.getTime() - b.at.getTime())
        .map((entry) => entry.turnId);
      return [...new Set(turns)].slice(0, limit);
    },
    async discard({ turnId, abortSignal }) {
      abortSignal?.throwIfAborted();
      for (const [id, entry] of entries) if (entry.turnId === turnId) entries.delete(id);
    },
    all() {
      return [...entries.values()].map((entry) => structuredClone(entry));
    },
  };
}

/** Ids that sort in the order items were put (time, then a counter), unique across processes. */
export function createSpoolIdGenerator(now: () => Date = () => new Date()): () => string {
  let counter = 0;
  return () => {
    counter = (counter + 1) % 1_000_000;
    const random = Math.floor(Math.random() * 36 ** 6)
      .toString(36)
      .padStart(6, "0");
    return `${now().getTime().toString().padStart(15, "0")}-${counter.toString().padStart(6, "0")}-${random}`;
  };
}

/** The reference `CommitSpool`, in memory (tests). `failing` makes every call throw. */
export function createInMemorySpool(
  options: { now?: () => Date } = {},
): CommitSpool & { failing: boolean; size(): number } {
  const now = options.now ?? (() => new Date());
  const nextId = createSpoolIdGenerator(now);
  const items = new Map<string, SpoolItem>();
  const spool = {
    failing: false,
    async put({ item }: { item: NewSpoolItem }) {
      if (spool.failing) throw new Error("spool unavailable (injected)");
      const stored = { ...structuredClone(item), id: nextId(), at: now() } as SpoolItem;
      items.set(stored.id, stored);
      return structuredClone(stored);
    },
    async list() {
      if (spool.failing) throw new Error("spool unavailable (injected)");
      return [...items.keys()].sort().map((id) => structuredClone(items.get(id)!));
    },
    async remove({ id }: { id: string }) {
      if (spool.failing) throw new Error("spool unavailable (injected)");
      items.delete(id);
    },
    size: () => items.size,
  };
  return spool;
}
