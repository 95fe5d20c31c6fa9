import type { UIMessage } from "ai";
import type { SqlExecutor } from "@/lib/sql-storage/sql";

/**
 * A reply the person stopped (issue 26, decision 0055): the server's turn keeps streaming for a
 * moment after Stop — until the abort reaches the model — so the stored answer held more text
 * than the browser had shown. The browser says how much of each text part it had shown when Stop
 * was pressed, and the stored answer is cut to that, so a reload shows what the person saw,
 * labelled Stopped (its `data-turn` part says `aborted`).
 */

/** What `keepShownPartOfStoppedReply` did. */
export type StoppedReplyOutcome =
  /** The stored answer was cut to what was shown (or already was no longer). */
  | "kept-shown"
  /** The turn stored no answer (stopped before any text): nothing to cut. */
  | "nothing-stored"
  /** The turn was not stopped (it completed or failed first): its answer stays whole. */
  | "not-stopped"
  /** No turn answered that message in this chat. */
  | "no-turn"
  /** The turn was still running when the wait ended. */
  | "still-running";

/** How long the cut waits for the stopped turn to be recorded. */
const RECORD_WAIT_MS = 15_000;
const POLL_MS = 100;

/**
 * Cuts the stored answer of the chat's latest turn for `userMessageId` to `shownTextLengths`
 * (the characters of each of its text parts, in order, that the browser showed): text parts past
 * the list are dropped, the others cut to their length; other parts stay. Only a stopped
 * (`aborted`) turn's answer is touched, and only ever shortened. Waits (up to 15 s) for the turn
 * to be recorded, since the browser asks right after Stop. The caller checked the chat is the
 * actor's own.
 */
export async function keepShownPartOfStoppedReply(
  sql: SqlExecutor,
  options: {
    chatId: string;
    userMessageId: string;
    shownTextLengths: readonly number[];
    waitMs?: number;
  },
): Promise<StoppedReplyOutcome> {
  const deadline = Date.now() + (options.waitMs ?? RECORD_WAIT_MS);
  let turn: { id: string; status: string; assistantMessageId: string | null } | undefined;
  for (;;) {
    turn = await sql.get<{ id: string; status: string; assistantMessageId: string | null }>(
      `SELECT "id", "status", "assistantMessageId" FROM "Turn"
       WHERE "chatId" = ? AND "userMessageId" = ? ORDER BY "startedAt" DESC LIMIT 1`,
      [options.chatId, options.userMessageId],
    );
    if (!turn) return "no-turn";
    if (turn.status !== "running") break;
    if (Date.now() >= deadline) return "still-running";
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  if (turn.status !== "aborted") return "not-stopped";
  if (!turn.assistantMessageId) return "nothing-stored";
  const row = await sql.get<{ parts: string }>(
    `SELECT "parts" FROM "ChatMessage" WHERE "id" = ? AND "chatId" = ?`,
    [turn.assistantMessageId, options.chatId],
  );
  if (!row) return "nothing-stored";
  const parts = JSON.parse(row.parts) as UIMessage["parts"];
  const kept = cutToShown(parts, options.shownTextLengths, turn.id);
  await sql.run(`UPDATE "ChatMessage" SET "parts" = ? WHERE "id" = ? AND "chatId" = ?`, [
    JSON.stringify(kept),
    turn.assistantMessageId,
    options.chatId,
  ]);
  return "kept-shown";
}

/**
 * The parts as shown: text parts cut to the lengths given (never lengthened), text parts past
 * them and empty ones dropped, and a `data-turn` part that says the turn was stopped.
 */
export function cutToShown(
  parts: UIMessage["parts"],
  shownTextLengths: readonly number[],
  turnId: string,
): UIMessage["parts"] {
  const kept: UIMessage["parts"] = [];
  let textIndex = 0;
  let marked = false;
  for (const part of parts) {
    if (part.type === "text") {
      const shown = shownTextLengths[textIndex++];
      if (shown === undefined || shown <= 0) continue;
      kept.push({ ...part, text: part.text.slice(0, shown), state: "done" });
    } else if (part.type === "data-turn") {
      const data = (part as { data: Record<string, unknown> }).data;
      kept.push({ ...part, data: { ...data, status: "aborted" } } as UIMessage["parts"][number]);
      marked = true;
    } else {
      kept.push(part);
    }
  }
  if (!marked) {
    kept.push({
      type: "data-turn",
      data: {
        status: "aborted",
        turnId,
        persistence: { status: "not-configured", savedFiles: 0, failedCommits: 0 },
      },
    } as UIMessage["parts"][number]);
  }
  return kept;
}
