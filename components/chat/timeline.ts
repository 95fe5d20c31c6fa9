import type { UIMessage } from "ai";
import type { Refinement } from "@/lib/harness";

/** One row of the chat: a message, or the card of a refinement that ran at that point. */
export type TimelineItem =
  { kind: "message"; message: UIMessage } | { kind: "refinement"; refinement: Refinement };

/**
 * Messages in their order, each refinement card placed where it happened: before the first
 * message written after it — but never between a message and the answer to it: a refinement
 * requested during a turn (`/refine`, the agent's refine tool) is stored before the turn's answer
 * and runs after it, so its card follows the answer. `timeOf` gives a message's time (ISO 8601);
 * refinements newer than every message come last.
 */
export function buildTimeline(options: {
  messages: UIMessage[];
  refinements: Refinement[];
  timeOf: (message: UIMessage) => string;
}): TimelineItem[] {
  const cards = [...options.refinements].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  const items: TimelineItem[] = [];
  let next = 0;
  const flushBefore = (time: string) => {
    while (next < cards.length && cards[next]!.createdAt < time)
      items.push({ kind: "refinement", refinement: cards[next++]! });
  };
  for (const message of options.messages) {
    const time = options.timeOf(message);
    if (message.role === "assistant") {
      items.push({ kind: "message", message });
      flushBefore(time);
    } else {
      flushBefore(time);
      items.push({ kind: "message", message });
    }
  }
  while (next < cards.length) items.push({ kind: "refinement", refinement: cards[next++]! });
  return items;
}

/** A chat's title made from its first message: the first line, cut at a word near 60 characters. */
export function titleFromMessage(text: string): string {
  const line = text.trim().split("\n")[0]!.replace(/\s+/g, " ").trim();
  if (line.length <= 60) return line || "New chat";
  const cut = line.slice(0, 60);
  const space = cut.lastIndexOf(" ");
  return `${(space > 30 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

const pendingKey = (chatId: string) => `cairn:first-message:${chatId}`;

/** Keeps the first message of a chat started on /chat until its page sends it. */
export function storePendingFirstMessage(chatId: string, text: string): void {
  sessionStorage.setItem(pendingKey(chatId), text);
}

/** The first message waiting for this chat, removed so it is sent once. */
export function takePendingFirstMessage(chatId: string): string | null {
  const key = pendingKey(chatId);
  const text = sessionStorage.getItem(key);
  if (text !== null) sessionStorage.removeItem(key);
  return text;
}
