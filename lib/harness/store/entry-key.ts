import { type EntryRef } from "./types";

/**
 * The storage key of an entry: scope + chat + kind + id. It is the same for every life of
 * an entry (create, delete, restore), which is what ties its revisions together. The chat
 * id is percent-encoded so any chat id (even one containing `/`) yields an unambiguous key.
 *
 * @example entryKeyOf({ scope: "global", chatId: null, kind: "memory", id: "build" }) === "global/-/memory/build"
 */
export function entryKeyOf(ref: Pick<EntryRef, "scope" | "chatId" | "kind" | "id">): string {
  const chat = ref.scope === "global" || ref.chatId === null ? "-" : encodeURIComponent(ref.chatId);
  return `${ref.scope}/${chat}/${ref.kind}/${ref.id}`;
}
