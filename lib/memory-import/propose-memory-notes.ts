import JSZip from "jszip";

/**
 * Proposed memory notes from another assistant (decision 0051): deterministic extraction, no
 * model. Runs in the browser, so a large export never travels to the server; only the notes the
 * person accepts do.
 */

/** One proposal: a short statement about the person, and where it was found. */
export interface MemoryProposal {
  text: string;
  source: string;
}

/** Most proposals offered at once; the rest are dropped (the person reviews one by one). */
export const MAX_PROPOSALS = 200;
/** Longest note proposed, in characters. */
const MAX_NOTE_CHARACTERS = 400;
/** Largest export read (the uncompressed `conversations.json`). */
const MAX_EXPORT_BYTES = 200 * 1024 * 1024;

// Sentences in which a person says something lasting about themselves.
const ABOUT_ME =
  /^(i am|i'm|i work|i live|i prefer|i like|i love|i hate|i dislike|i use|i have|i've been|i speak|i study|i teach|i run|i own|i was born|i grew up|i'm based|my name|my (?:job|role|team|company|wife|husband|partner|son|daughter|kids|children|dog|cat|favourite|favorite|preferred|pronouns|background|stack|goal)|call me|please (?:always|never)|always |never )\b/i;
// Sentences that are questions or requests, not facts.
const NOT_A_FACT =
  /\?\s*$|^(can|could|would|will|please (?!always|never)|how|what|why|write|make|give|help)\b/i;

function normalize(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function pushUnique(into: MemoryProposal[], seen: Set<string>, proposal: MemoryProposal) {
  const key = proposal.text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
  if (key.length < 6 || seen.has(key) || into.length >= MAX_PROPOSALS) return;
  seen.add(key);
  into.push(proposal);
}

/**
 * The pasted answer of another assistant to "what do you remember about me": every bullet,
 * numbered item or line becomes a proposal (headings and the assistant's framing such as
 * "Here is what I remember" are left out); a paragraph without bullets is split into sentences.
 */
export function proposeFromPastedText(text: string): MemoryProposal[] {
  const proposals: MemoryProposal[] = [];
  const seen = new Set<string>();
  for (const rawLine of text.split(/\r?\n/)) {
    const line = normalize(rawLine);
    if (line === "" || /^#{1,6}\s/.test(line) || /:$/.test(line)) continue;
    if (
      /^(here('s| is| are)|sure|of course|based on|i remember|i don't|i do not|let me know|hope this)/i.test(
        line,
      )
    )
      continue;
    const item = line.replace(/^([-*•·]|\d+[.)])\s+/, "").replace(/^\*\*([^*]+)\*\*:?\s*/, "$1: ");
    const sentences = /^([-*•·]|\d+[.)])\s/.test(line)
      ? [item]
      : item.split(/(?<=[.!])\s+(?=[A-Z])/);
    for (const sentence of sentences) {
      const note = normalize(sentence).slice(0, MAX_NOTE_CHARACTERS);
      pushUnique(proposals, seen, { text: note, source: "pasted text" });
    }
  }
  return proposals;
}

/** The person's own messages of a ChatGPT (`mapping`) or Claude (`chat_messages`) export. */
function userMessages(conversations: unknown): { text: string; title: string }[] {
  if (!Array.isArray(conversations))
    throw new Error("conversations.json does not hold a list of conversations.");
  const messages: { text: string; title: string }[] = [];
  for (const conversation of conversations as Record<string, unknown>[]) {
    const title = String(conversation.title ?? conversation.name ?? "a conversation");
    // ChatGPT: { title, mapping: { id: { message: { author: { role }, content: { parts } } } } }
    const mapping = conversation.mapping as
      Record<string, { message?: Record<string, unknown> | null }> | undefined;
    if (mapping && typeof mapping === "object") {
      for (const node of Object.values(mapping)) {
        const message = node?.message;
        const role = (message?.author as { role?: string } | undefined)?.role;
        const parts = (message?.content as { parts?: unknown[] } | undefined)?.parts;
        if (role !== "user" || !Array.isArray(parts)) continue;
        const text = parts.filter((part): part is string => typeof part === "string").join("\n");
        if (text) messages.push({ text, title });
      }
    }
    // Claude: { name, chat_messages: [{ sender: "human", text, content: [{ type, text }] }] }
    const chat = conversation.chat_messages;
    if (Array.isArray(chat)) {
      for (const message of chat as Record<string, unknown>[]) {
        if (message.sender !== "human") continue;
        const content = Array.isArray(message.content)
          ? (message.content as { type?: string; text?: string }[])
              .filter((part) => part.type === "text" && typeof part.text === "string")
              .map((part) => part.text)
              .join("\n")
          : "";
        const text = typeof message.text === "string" && message.text ? message.text : content;
        if (text) messages.push({ text, title });
      }
    }
  }
  return messages;
}

/**
 * Proposals from an export's `conversations.json` text: the sentences of the person's own
 * messages in which they state something lasting about themselves ("I work as…", "My team…",
 * "Please always…"), not questions or requests. Throws when the text is not such an export.
 */
export function proposeFromConversations(json: string): MemoryProposal[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw new Error("conversations.json is not valid JSON.");
  }
  const proposals: MemoryProposal[] = [];
  const seen = new Set<string>();
  for (const { text, title } of userMessages(parsed)) {
    for (const rawSentence of text.split(/(?<=[.!?])\s+|\n+/)) {
      const sentence = normalize(rawSentence);
      if (
        sentence.length > MAX_NOTE_CHARACTERS ||
        !ABOUT_ME.test(sentence) ||
        NOT_A_FACT.test(sentence)
      )
        continue;
      pushUnique(proposals, seen, { text: sentence, source: `“${title}”` });
    }
  }
  return proposals;
}

/**
 * Proposals from an uploaded export: the zip ChatGPT or Claude sends (its `conversations.json`
 * is read; at most 200 MB of it) or that JSON file itself.
 */
export async function proposeFromExportFile(options: {
  name: string;
  bytes: Uint8Array;
}): Promise<MemoryProposal[]> {
  const { name, bytes } = options;
  if (bytes[0] === 0x50 && bytes[1] === 0x4b) {
    const zip = await JSZip.loadAsync(bytes);
    const entry = Object.values(zip.files).find((file) =>
      /(^|\/)conversations\.json$/.test(file.name),
    );
    if (!entry)
      throw new Error(
        `${name}: no conversations.json in this zip — is it a ChatGPT or Claude data export?`,
      );
    const size =
      (entry as unknown as { _data?: { uncompressedSize?: number } })._data?.uncompressedSize ?? 0;
    if (size > MAX_EXPORT_BYTES)
      throw new Error(`${name}: conversations.json is larger than 200 MB.`);
    return proposeFromConversations(await entry.async("string"));
  }
  if (bytes.byteLength > MAX_EXPORT_BYTES)
    throw new Error(`${name}: the file is larger than 200 MB.`);
  return proposeFromConversations(new TextDecoder().decode(bytes));
}
