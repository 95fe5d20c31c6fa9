import type { JobQueue } from "@/lib/jobs";
import type { Sql } from "@/lib/sql-storage/sql";

/**
 * Temporary chats (issue 26, decision 0055): a chat whose turns neither read nor write memory,
 * company knowledge or the harness, that no list shows, and that is deleted 24 hours after it
 * was created by a job on the durable queue. This module holds the deletion; the turn's side
 * (no dirs, no harness, no tools) is in `run-chat-turn.ts`.
 */

/** Why `/refine` and the Refine button are refused in a temporary chat. */
export const TEMPORARY_REFINE_REFUSED =
  "This is a temporary chat: Cairn does not remember it, so there is nothing to refine.";

/**
 * The system prompt of a temporary chat's turns, in place of the base prompt: it speaks of no
 * memory, files or harness, since the turn has none of them.
 */
export const TEMPORARY_CHAT_PROMPT = [
  "You are Cairn, a helpful assistant.",
  "This is a temporary chat: you have no memory, no files and no notes in it, and nothing from it is kept after it ends. If the person asks you to remember something, tell them this chat is not remembered.",
  "Answer in Markdown. Be concise and direct.",
].join("\n");

/** How long a temporary chat lives: 24 hours from its creation. */
export const TEMPORARY_CHAT_LIFETIME_SECONDS = 24 * 60 * 60;

/** The job that deletes temporary chats past their lifetime. */
export const TEMPORARY_CHAT_DELETE_JOB = "chat.temporary.delete";

/** A deletion job's payload: the chat it was enqueued for (every expired one goes with it). */
export interface TemporaryChatDeletePayload {
  chatId?: string;
}

/**
 * Enqueues the deletion of a temporary chat for when its lifetime ends (`startAfterSeconds`,
 * default 24 hours). One job per chat (its id is the singleton key).
 */
export function scheduleTemporaryChatDeletion(options: {
  queue: JobQueue;
  chatId: string;
  startAfterSeconds?: number;
}): Promise<string | null> {
  return options.queue.enqueue<TemporaryChatDeletePayload>(
    TEMPORARY_CHAT_DELETE_JOB,
    { chatId: options.chatId },
    {
      singletonKey: `temporary-chat:${options.chatId}`,
      startAfterSeconds: options.startAfterSeconds ?? TEMPORARY_CHAT_LIFETIME_SECONDS,
      retryLimit: 5,
    },
  );
}

/**
 * Deletes every temporary chat created at least `lifetimeSeconds` (default 24 hours) before
 * `now`, with its messages, turns, claim and ratings (the schema cascades; the search index
 * follows through its triggers). Permanent chats are never touched. Returns how many went.
 */
export async function deleteExpiredTemporaryChats(options: {
  sql: Sql;
  now?: Date;
  lifetimeSeconds?: number;
}): Promise<number> {
  const now = options.now ?? new Date();
  const cutoff = new Date(
    now.getTime() - (options.lifetimeSeconds ?? TEMPORARY_CHAT_LIFETIME_SECONDS) * 1000,
  );
  const result = await options.sql.run(
    `DELETE FROM "Chat" WHERE "temporary" AND "createdAt" <= ?`,
    [cutoff],
  );
  return result.changes;
}

/**
 * The deletion job's handler: deletes the temporary chats past their lifetime — the one it was
 * enqueued for and any other whose own job was lost. Idempotent: a repeated run finds nothing.
 */
export function temporaryChatDeletionJob(options: { sql: () => Sql; now?: () => Date }) {
  return async () => {
    const deleted = await deleteExpiredTemporaryChats({
      sql: options.sql(),
      now: options.now?.(),
    });
    return { deleted };
  };
}
