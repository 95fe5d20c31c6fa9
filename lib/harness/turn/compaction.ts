import { generateText, type LanguageModel, type UIMessage } from "ai";
import { countTokensRemembered } from "./internal/token-count";
import type { CompactionOptions } from "./types";

const MAX_TRANSCRIPT_CHARS = 200_000;

/** A message's text for counting and summarizing: its text parts and compact tool lines. */
export function messageText(message: UIMessage): string {
  return message.parts
    .map((part) => {
      if (part.type === "text") return part.text;
      if (part.type.startsWith("tool-") && "input" in part)
        return `[tool ${part.type.slice(5)}: ${JSON.stringify(part.input).slice(0, 500)}]`;
      return "";
    })
    .filter(Boolean)
    .join("\n");
}

export function estimateConversationTokens(messages: readonly UIMessage[]): number {
  return messages.reduce(
    (sum, message) => sum + countTokensRemembered(`${message.role}: ${messageText(message)}`) + 4,
    0,
  );
}

/**
 * When the conversation exceeds `threshold` of the context window, summarizes every message but
 * the last `keepRecentMessages` into one message with the model. Returns null when not needed.
 */
export async function compactConversation(options: {
  messages: UIMessage[];
  model: LanguageModel;
  compaction: CompactionOptions;
  abortSignal?: AbortSignal;
}): Promise<{
  messages: UIMessage[];
  summary: string;
  removed: UIMessage[];
  tokensBefore: number;
  tokensAfter: number;
} | null> {
  const { compaction, messages } = options;
  const tokensBefore = estimateConversationTokens(messages);
  const limit = compaction.contextWindowTokens * (compaction.threshold ?? 0.7);
  const keep = Math.max(1, compaction.keepRecentMessages ?? 6);
  if (tokensBefore <= limit || messages.length <= keep) return null;

  const removed = messages.slice(0, messages.length - keep);
  const transcript = removed
    .map((message) => `${message.role.toUpperCase()}: ${messageText(message)}`)
    .join("\n\n")
    .slice(-MAX_TRANSCRIPT_CHARS);
  const { text } = await generateText({
    model: options.model,
    instructions:
      "Summarize the earlier part of a conversation so it can continue without it. Keep facts, decisions, open questions, names, numbers and anything the user asked to remember. Be concise; use bullet points.",
    prompt: transcript,
    maxOutputTokens: 2000,
    abortSignal: options.abortSignal,
  });
  const summaryMessage: UIMessage = {
    id: `summary-${removed.at(-1)?.id ?? "0"}`,
    role: "user",
    parts: [{ type: "text", text: `[Summary of the earlier conversation]\n${text}` }],
  };
  const compacted = [summaryMessage, ...messages.slice(messages.length - keep)];
  return {
    messages: compacted,
    summary: text,
    removed,
    tokensBefore,
    tokensAfter: estimateConversationTokens(compacted),
  };
}
