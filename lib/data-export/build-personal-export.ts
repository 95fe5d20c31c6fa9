import type { UIMessage } from "ai";
import JSZip from "jszip";
import type { Actor } from "@/lib/harness";
import { userDirKey } from "@/lib/workspace-dirs/app-dirs";
import { listDirFiles, readDirFile, type Sql } from "@/lib/sql-storage";
import { toDate } from "@/lib/sql-storage/sql";

/** What one export holds, counted (shown on the page and written into the zip's README). */
export interface PersonalExportSummary {
  chats: number;
  messages: number;
  memoryFiles: number;
  chatNotes: number;
}

interface ChatRow {
  id: string;
  title: string;
  createdAt: unknown;
}

interface EntryRow {
  chatId: string;
  kind: string;
  id: string;
  title: string;
  content: string;
  path: string;
  version: number | bigint;
  updatedAt: unknown;
}

/**
 * A person's data in one workspace as a zip: every chat of theirs (`chats/NNN-title.json`, the
 * stored messages, and `.md`, readable), their memory dir as it is now (`memory/…`, text and
 * binary files byte for byte, uploads' originals included) and their chats' local harness entries
 * (`chat-notes/NNN-title/<kind>-<id>.md`). Nothing of anyone else: every query is keyed by the
 * person and the workspace. Company knowledge and global entries are the workspace's, not theirs.
 */
export async function buildPersonalExport(options: {
  sql: Sql;
  actor: Pick<Actor, "userId" | "workspaceId">;
  /** For the README; default now. */
  now?: Date;
}): Promise<{ zip: Buffer; summary: PersonalExportSummary }> {
  const { sql, actor } = options;
  const zip = new JSZip();
  const summary: PersonalExportSummary = { chats: 0, messages: 0, memoryFiles: 0, chatNotes: 0 };

  const chats = await sql.all<ChatRow>(
    `SELECT "id", "title", "createdAt" FROM "Chat"
     WHERE "workspaceId" = ? AND "userId" = ? ORDER BY "createdAt" ASC, "id" ASC`,
    [actor.workspaceId, actor.userId],
  );
  const folderOf = new Map<string, string>();
  for (const [index, chat] of chats.entries()) {
    const folder = `${String(index + 1).padStart(3, "0")}-${slugOf(chat.title)}`;
    folderOf.set(chat.id, folder);
    const rows = await sql.all<{ id: string; role: string; parts: string; createdAt: unknown }>(
      `SELECT "id", "role", "parts", "createdAt" FROM "ChatMessage" WHERE "chatId" = ? ORDER BY "seq" ASC`,
      [chat.id],
    );
    const messages = rows.map((row) => ({
      id: row.id,
      role: row.role as UIMessage["role"],
      parts: JSON.parse(row.parts) as UIMessage["parts"],
      createdAt: isoOf(row.createdAt),
    }));
    zip.file(
      `chats/${folder}.json`,
      `${JSON.stringify({ id: chat.id, title: chat.title, createdAt: isoOf(chat.createdAt), messages }, null, 2)}\n`,
    );
    zip.file(`chats/${folder}.md`, chatMarkdown(chat.title, messages));
    summary.chats += 1;
    summary.messages += messages.length;
  }

  const dirKey = userDirKey(actor);
  const listed = await listDirFiles({ sql, dirKey });
  for (const info of listed.files) {
    const file = await readDirFile({ sql, dirKey, path: info.path });
    if (!file) continue; // deleted between the listing and the read
    zip.file(`memory/${info.path}`, file.content);
    summary.memoryFiles += 1;
  }

  if (chats.length > 0) {
    const entries = await sql.all<EntryRow>(
      `SELECT e."chatId", e."kind", e."id", e."title", e."content", e."path", e."version", e."updatedAt"
       FROM "HarnessEntry" e JOIN "Chat" c ON c."id" = e."chatId"
       WHERE e."workspaceId" = ? AND e."scope" = 'local' AND c."userId" = ? AND c."workspaceId" = ?
       ORDER BY e."chatId" ASC, e."kind" ASC, e."id" ASC`,
      [actor.workspaceId, actor.userId, actor.workspaceId],
    );
    for (const entry of entries) {
      const folder = folderOf.get(entry.chatId);
      if (!folder) continue;
      zip.file(
        `chat-notes/${folder}/${entry.kind}-${entry.id}.md`,
        [
          "---",
          `kind: ${entry.kind}`,
          `title: ${JSON.stringify(entry.title)}`,
          `path: ${JSON.stringify(entry.path)}`,
          `version: ${Number(entry.version)}`,
          `updatedAt: ${isoOf(entry.updatedAt)}`,
          "---",
          "",
          entry.content,
          "",
        ].join("\n"),
      );
      summary.chatNotes += 1;
    }
  }

  zip.file(
    "README.md",
    [
      "# Your data from Cairn",
      "",
      `Exported ${(options.now ?? new Date()).toISOString()}.`,
      "",
      `- \`chats/\`: ${summary.chats} chats (${summary.messages} messages), each as JSON (the stored messages) and Markdown.`,
      `- \`memory/\`: ${summary.memoryFiles} files of your memory, as they are now (uploaded originals included).`,
      `- \`chat-notes/\`: ${summary.chatNotes} notes, skills and instructions that belong to one of your chats.`,
      "",
      "Company knowledge and the workspace's global entries are the team's and are not included.",
      "",
    ].join("\n"),
  );
  const buffer = await zip.generateAsync({
    type: "nodebuffer",
    compression: "DEFLATE",
    compressionOptions: { level: 6 },
  });
  return { zip: buffer, summary };
}

function chatMarkdown(
  title: string,
  messages: { role: string; parts: UIMessage["parts"]; createdAt: string }[],
): string {
  const lines = [`# ${title}`, ""];
  for (const message of messages) {
    const text = message.parts
      .map((part) => (part.type === "text" ? part.text : null))
      .filter((part): part is string => part !== null && part.trim() !== "")
      .join("\n\n");
    if (!text) continue;
    lines.push(`## ${message.role === "user" ? "You" : "Assistant"} · ${message.createdAt}`, "");
    lines.push(text, "");
  }
  return `${lines.join("\n")}\n`;
}

/** A file-name-safe form of a chat title: lower case, ASCII letters and digits, dashes. */
function slugOf(title: string): string {
  const slug = title
    .normalize("NFKD")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 60);
  return slug || "chat";
}

function isoOf(value: unknown): string {
  return toDate(value).toISOString();
}
