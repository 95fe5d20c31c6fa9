import type { UIMessage } from "ai";
import { z } from "zod";
import { HarnessConflictError } from "@/lib/harness";
import { isUniqueViolation, toDate, type Sql, type SqlExecutor } from "@/lib/sql-storage/sql";
import { insertMessageAtEnd, listMessageRows } from "./queries";

/** The largest user message accepted, in characters: the text of all its parts together. */
export const MAX_USER_MESSAGE_CHARS = 32_000;

/** The most parts a user message may have (the app sends one). */
export const MAX_USER_MESSAGE_PARTS = 20;

/**
 * The largest `POST /api/chat` body accepted, in bytes. A message's 32,000 characters take at
 * most 6 bytes each in JSON (`\u0000`-style escapes; UTF-8 needs at most 3 per UTF-16 unit):
 * 192,000 bytes, plus the ids; 256 KiB leaves room and refuses anything larger before parsing.
 */
export const MAX_CHAT_REQUEST_BYTES = 256 * 1024;

/** The 400 message for a message whose parts add up to more than `MAX_USER_MESSAGE_CHARS`. */
export function messageTooLongMessage(characters: number): string {
  return `The message is too long: at most ${MAX_USER_MESSAGE_CHARS.toLocaleString("en-US")} characters in all its parts together (this one has ${characters.toLocaleString("en-US")}).`;
}

/**
 * What a browser may send as a new message: text parts only, from the user, at most
 * `MAX_USER_MESSAGE_PARTS` parts whose texts add up to at most `MAX_USER_MESSAGE_CHARS`
 * characters (a per-part limit let 20 × 32,000 through; issue 31).
 */
export const incomingMessageSchema = z.object({
  id: z.string().min(1).max(100),
  role: z.literal("user"),
  parts: z
    .array(z.object({ type: z.literal("text"), text: z.string().max(MAX_USER_MESSAGE_CHARS) }))
    .min(1)
    .max(MAX_USER_MESSAGE_PARTS, `A message has at most ${MAX_USER_MESSAGE_PARTS} parts.`)
    .superRefine((parts, context) => {
      const characters = parts.reduce((sum, part) => sum + part.text.length, 0);
      if (characters > MAX_USER_MESSAGE_CHARS) {
        context.addIssue({ code: "custom", message: messageTooLongMessage(characters) });
      }
    }),
});

export function toUIMessage(row: { id: string; role: string; parts: string }): UIMessage {
  return {
    id: row.id,
    role: row.role as UIMessage["role"],
    parts: JSON.parse(row.parts) as UIMessage["parts"],
  };
}

/** A chat's messages in order, as the UI shows them. */
export async function loadChatMessages(sql: SqlExecutor, chatId: string): Promise<UIMessage[]> {
  return (await listMessageRows(sql, chatId)).map(toUIMessage);
}

/**
 * The messages a turn sends to the model: after a compaction, the summary replaces everything
 * up to and including `compactedThroughId`.
 */
export function messagesForModel(
  messages: UIMessage[],
  chat: { compactionSummary: string | null; compactedThroughId: string | null },
): UIMessage[] {
  if (!chat.compactionSummary || !chat.compactedThroughId) return messages;
  const index = messages.findIndex((message) => message.id === chat.compactedThroughId);
  if (index === -1) return messages;
  return [
    {
      id: `summary-${chat.compactedThroughId}`,
      role: "user",
      parts: [
        { type: "text", text: `[Summary of the earlier conversation]\n${chat.compactionSummary}` },
      ],
    },
    ...messages.slice(index + 1),
  ];
}

/**
 * Most times an append retries after losing the race for the next position. Each lost race
 * means another append took that position, so N concurrent appenders all finish within N tries;
 * the bound only stops a loop on a database that keeps failing the same way.
 */
const MAX_APPEND_ATTEMPTS = 200;

/**
 * Appends a message at the end of the chat. Two writers racing for the same position (the
 * unique `(chatId, seq)`) make the loser retry at the next one, after a short random pause.
 * Turns no longer race here (one turn at a time per chat, see turn-claim.ts), but an append
 * must still never fail just because another one happened at the same moment.
 */
export async function appendMessage(
  sql: SqlExecutor,
  chatId: string,
  message: UIMessage,
): Promise<void> {
  if (!(await appendNewMessage(sql, chatId, message)))
    throw new HarnessConflictError({
      surface: "chat",
      message: `A message with id ${message.id} is stored already.`,
      details: { messageId: message.id },
    });
}

/**
 * Appends `message` unless a message with its id is stored already (then returns false and
 * changes nothing): one statement on the SQL layer, which reads the last position and inserts
 * at the next. Two appends racing for the same position (the unique `(chatId, seq)`) make the
 * loser retry at the next one after a short random pause.
 */
export async function appendNewMessage(
  sql: SqlExecutor,
  chatId: string,
  message: UIMessage,
): Promise<boolean> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await insertMessageAtEnd(sql, chatId, message);
    } catch (error) {
      if (!isUniqueViolation(error) || attempt >= MAX_APPEND_ATTEMPTS) throw error;
      await new Promise((resolve) =>
        setTimeout(resolve, Math.random() * Math.min(50, attempt * 2)),
      );
    }
  }
}

/** When each message of a chat was stored (ISO 8601), to place refinement cards in the timeline. */
export async function listMessageTimes(
  sql: SqlExecutor,
  chatId: string,
): Promise<Record<string, string>> {
  const rows = await sql.all<{ id: string; createdAt: unknown }>(
    `SELECT "id", "createdAt" FROM "ChatMessage" WHERE "chatId" = ?`,
    [chatId],
  );
  return Object.fromEntries(rows.map((row) => [row.id, toDate(row.createdAt).toISOString()]));
}

/**
 * How a new turn treats the chat's stored messages:
 * - `submit`: the message is appended (a duplicate id gets a fresh one);
 * - `edit`: the user's stored message with that id and everything after it are replaced by it;
 * - `regenerate`: everything after the user's stored message with that id is removed, and the
 *   turn answers it again.
 */
export type TurnMode = "submit" | "edit" | "regenerate";

/**
 * Removes the messages from a user's message on (`inclusive`) or after it. Returns `false` when the
 * chat has no user message with that id (the caller then treats the request as a plain submit).
 * A compaction that covered a removed message is dropped, so later turns do not start from a
 * summary of messages that no longer exist. Memory already committed by the removed turns stays:
 * it was saved when those turns completed.
 */
export async function truncateChatAt(
  sql: Sql,
  options: { chatId: string; messageId: string; inclusive: boolean },
): Promise<boolean> {
  // One transaction: the messages and the compaction that covered them go together or not at all.
  return sql.transaction(async (tx) => {
    const anchor = await tx.get<{ seq: number | bigint }>(
      `SELECT "seq" FROM "ChatMessage" WHERE "id" = ? AND "chatId" = ? AND "role" = 'user'`,
      [options.messageId, options.chatId],
    );
    if (!anchor) return false;
    const from = Number(anchor.seq) + (options.inclusive ? 0 : 1);
    const chat = await tx.get<{ compactedThroughId: string | null }>(
      `SELECT "compactedThroughId" FROM "Chat" WHERE "id" = ?`,
      [options.chatId],
    );
    const through = chat?.compactedThroughId ?? null;
    const coversRemoved =
      through !== null &&
      (await tx.get(
        `SELECT 1 AS "hit" FROM "ChatMessage" WHERE "id" = ? AND "chatId" = ? AND "seq" >= ?`,
        [through, options.chatId, from],
      )) !== undefined;
    await tx.run(`DELETE FROM "ChatMessage" WHERE "chatId" = ? AND "seq" >= ?`, [
      options.chatId,
      from,
    ]);
    if (coversRemoved) {
      await tx.run(
        `UPDATE "Chat" SET "compactionSummary" = NULL, "compactedThroughId" = NULL WHERE "id" = ?`,
        [options.chatId],
      );
    }
    return true;
  });
}
