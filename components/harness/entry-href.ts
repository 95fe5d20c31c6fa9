/** The URL of an entry's page. Local entries carry their chat. */
export function entryHref(entry: {
  kind: string;
  id: string;
  scope: string;
  chatId: string | null;
}): string {
  const query =
    entry.scope === "global"
      ? "scope=global"
      : `scope=local&chat=${encodeURIComponent(entry.chatId ?? "")}`;
  return `/harness/${entry.kind}/${encodeURIComponent(entry.id)}?${query}`;
}
