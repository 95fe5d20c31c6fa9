import type { SqlExecutor } from "@/lib/sql-storage/sql";
import { cairn } from "@/lib/cairn";

/**
 * One turn at a time per chat, across tabs and instances: a turn first claims its chat
 * (`ChatTurnClaim`, one row per chat), and a second turn that finds the claim held is refused
 * with 409 before it stores anything. The claim is a lease: renewed while the turn runs,
 * deleted when it ends, and taken over once it has run out — so a process that died mid-turn
 * locks its chat for at most `TURN_CLAIM_LEASE_MS`.
 */

/** How long a claim holds without renewal. */
export const TURN_CLAIM_LEASE_MS = 2 * 60 * 1000;
/** How often a running turn renews its claim. */
export const TURN_CLAIM_RENEW_MS = 30 * 1000;
/**
 * The longest a turn keeps renewing (turns stream for at most 300 s): a turn whose end was never
 * observed stops renewing then, and its claim runs out one lease later.
 */
export const TURN_CLAIM_MAX_HOLD_MS = 15 * 60 * 1000;

/** The answer a refused turn gets (HTTP 409), shown as is in the chat. */
export const CHAT_BUSY_MESSAGE =
  "A reply is still being written in this chat (maybe in another tab). Wait for it to finish, then send your message again.";

/**
 * Claims `chatId` for `turnId`: true when this turn now holds the chat. One conditional UPSERT —
 * it inserts the claim, or takes over one whose lease has run out; a live claim is left alone
 * and nothing is returned. Concurrent claims serialize on the row, so exactly one wins.
 */
export async function claimChat(
  sql: SqlExecutor,
  options: { chatId: string; turnId: string; now?: number; leaseMs?: number },
): Promise<boolean> {
  const now = options.now ?? Date.now();
  const until = now + (options.leaseMs ?? TURN_CLAIM_LEASE_MS);
  const rows = await sql.all<{ turnId: string }>(
    `INSERT INTO "ChatTurnClaim" ("chatId", "turnId", "leaseUntil")
     VALUES (?, ?, CAST(? AS BIGINT))
     ON CONFLICT ("chatId") DO UPDATE SET
       "turnId" = excluded."turnId", "leaseUntil" = excluded."leaseUntil"
     WHERE "ChatTurnClaim"."leaseUntil" <= CAST(? AS BIGINT)
     RETURNING "turnId"`,
    [options.chatId, options.turnId, Math.floor(until), Math.floor(now)],
  );
  return rows.length === 1 && rows[0]!.turnId === options.turnId;
}

/** Extends a held claim; false when the claim is no longer this turn's. */
export async function renewChatClaim(
  sql: SqlExecutor,
  options: { chatId: string; turnId: string; now?: number; leaseMs?: number },
): Promise<boolean> {
  const until = (options.now ?? Date.now()) + (options.leaseMs ?? TURN_CLAIM_LEASE_MS);
  const { changes } = await sql.run(
    `UPDATE "ChatTurnClaim" SET "leaseUntil" = CAST(? AS BIGINT)
     WHERE "chatId" = ? AND "turnId" = ?`,
    [Math.floor(until), options.chatId, options.turnId],
  );
  return changes === 1;
}

/** Releases the claim if this turn still holds it. */
export async function releaseChatClaim(
  sql: SqlExecutor,
  options: { chatId: string; turnId: string },
): Promise<void> {
  await sql.run(`DELETE FROM "ChatTurnClaim" WHERE "chatId" = ? AND "turnId" = ?`, [
    options.chatId,
    options.turnId,
  ]);
}

/** A held claim: renewed in the background until `release()`. */
export interface HeldChatClaim {
  /** Stops renewing and deletes the claim. Safe to call more than once; never throws. */
  release(): Promise<void>;
  /**
   * Stops renewing without deleting: the claim's row was deleted in the transaction that
   * recorded the turn (`recordFinishedTurn`). A later `release()` does nothing.
   */
  releasedWithTurn(): void;
}

/**
 * Claims the chat and keeps renewing it every `TURN_CLAIM_RENEW_MS` until released (or for at
 * most `TURN_CLAIM_MAX_HOLD_MS`). `null` when another turn holds the chat.
 */
export async function holdChatClaim(
  sql: SqlExecutor,
  options: { chatId: string; turnId: string },
): Promise<HeldChatClaim | null> {
  if (!(await claimChat(sql, options))) return null;
  const started = Date.now();
  const timer = setInterval(() => {
    if (Date.now() - started > TURN_CLAIM_MAX_HOLD_MS) {
      clearInterval(timer);
      return;
    }
    renewChatClaim(sql, options).catch((error: unknown) =>
      cairn().logger.error(
        { err: error, turnId: options.turnId },
        "renewing a chat's turn claim failed",
      ),
    );
  }, TURN_CLAIM_RENEW_MS);
  timer.unref();
  let released: Promise<void> | undefined;
  return {
    release() {
      clearInterval(timer);
      released ??= releaseChatClaim(sql, options).catch((error: unknown) =>
        cairn().logger.error(
          { err: error, turnId: options.turnId },
          "releasing a chat's turn claim failed; it expires on its own",
        ),
      );
      return released;
    },
    releasedWithTurn() {
      clearInterval(timer);
      released ??= Promise.resolve();
    },
  };
}
