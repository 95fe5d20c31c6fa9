import { tool, type Tool } from "ai";
import { z } from "zod";
import { HarnessError, HarnessNotFoundError, HarnessValidationError } from "../errors";
import { formatBytes, type Checkout, type DirectoryListing } from "../persistent";
import { markUntrusted } from "./untrusted-data";

/**
 * The input of Anthropic's memory tool (`memory_20250818`), exactly: models trained on it use it
 * well. Paths are absolute `/persistent/...` paths in this turn's checkout.
 */
export const memoryToolInputSchema = z.discriminatedUnion("command", [
  z.object({
    command: z.literal("view"),
    path: z.string(),
    view_range: z.tuple([z.number().int(), z.number().int()]).optional(),
  }),
  z.object({ command: z.literal("create"), path: z.string(), file_text: z.string() }),
  z.object({
    command: z.literal("str_replace"),
    path: z.string(),
    old_str: z.string(),
    new_str: z.string(),
  }),
  z.object({
    command: z.literal("insert"),
    path: z.string(),
    insert_line: z.number().int(),
    insert_text: z.string(),
  }),
  z.object({ command: z.literal("delete"), path: z.string() }),
  z.object({ command: z.literal("rename"), old_path: z.string(), new_path: z.string() }),
]);

export type MemoryToolInput = z.infer<typeof memoryToolInputSchema>;

export const MEMORY_TOOL_DESCRIPTION =
  "View and edit files in your persistent directories under /persistent (memory that survives this conversation). " +
  "Commands: view (a directory listing two levels deep with sizes — e.g. view /persistent or /persistent/user — or a file with line numbers, optional view_range [start, end]), create (write a whole file), " +
  "str_replace (replace one exact, unique occurrence), insert (insert text after line insert_line; 0 = top), delete (a file or folder), rename. " +
  "Changes are saved after your turn completes. Some directories are read-only: writing there fails. " +
  "In a directory whose changes are suggested for review, your change is kept as a suggestion for an editor to approve, not applied.";

const MAX_VIEW_CHARS = 40_000;

/** How a dir whose writes become suggestions is described to the model. */
const SUGGEST_ONLY_TEXT = "changes are suggested for review";

/**
 * What a write the turn may not commit says: it was kept as a suggestion that someone who may
 * change the dir reviews after the turn — neither applied nor refused.
 */
function suggestedText(checkout: Checkout, path: string, done: string): string {
  if (!checkout.suggestsAt({ path })) return done;
  return `${done.replace(/\.$/, "")} — suggested for review: you may not change this directory, so after this turn the change is sent to an editor or admin for approval; it is not applied until then. Tell the person it was suggested for review.`;
}

async function textOf(checkout: Checkout, path: string): Promise<string> {
  const content = await checkout.readFileOrThrow({ path });
  if (typeof content !== "string") {
    throw new HarnessValidationError({
      surface: "path",
      message: `${path} is a binary file and cannot be edited as text.`,
    });
  }
  return content;
}

function modeText(listing: DirectoryListing): string {
  const dir = listing.dir;
  if (!dir) return "";
  if (dir.readOnly) return "read-only";
  if (dir.suggestOnly) return SUGGEST_ONLY_TEXT;
  return dir.mode === "manual" ? "writable; saved when the host commits" : "writable";
}

function countText(fileCount: number, bytes: number): string {
  return `${fileCount} file${fileCount === 1 ? "" : "s"}, ${formatBytes(bytes)}`;
}

/**
 * A directory listing as the memory tool shows it: a header with the path, the read-only flag
 * and totals, then one line per entry — size, tab, absolute path (folders end in `/`, with
 * their file count; dirs also say whether they are writable). Reused by every tool surface
 * that shows a listing: the memory tool's `view`, and MCP tools that wrap it.
 */
export function formatDirectoryListing(listing: DirectoryListing): string {
  const access = modeText(listing);
  const header =
    listing.kind === "root"
      ? `Directory ${listing.path}/: ${listing.entries.filter((entry) => entry.type === "dir").length} persistent dir(s), ${countText(listing.fileCount, listing.bytes)}.`
      : `Directory ${listing.path}/ (${access}${listing.kind === "folder" ? ` — in ${listing.dir!.harnessDir}` : ""}): ${countText(listing.fileCount, listing.bytes)}.`;
  const lines = listing.entries.map((entry) => {
    const indent = "  ".repeat(entry.depth - 1);
    switch (entry.type) {
      case "file":
        return `${indent}${formatBytes(entry.bytes)}\t${entry.path}`;
      case "folder":
        return `${indent}${formatBytes(entry.bytes)}\t${entry.path}/ (${entry.fileCount} file${entry.fileCount === 1 ? "" : "s"})`;
      case "dir":
        return `${indent}${formatBytes(entry.bytes)}\t${entry.path}/ (${entry.readOnly ? "read-only" : entry.suggestOnly ? SUGGEST_ONLY_TEXT : "writable"}, ${entry.fileCount} file${entry.fileCount === 1 ? "" : "s"})`;
    }
  });
  if (lines.length === 0) lines.push("(empty)");
  if (listing.omitted > 0) {
    lines.push(`… ${listing.omitted} more entries not shown; view a subfolder to see them.`);
  }
  return [header, ...lines].join("\n");
}

/**
 * What `view` shows, wrapped as data (file names and text are anyone's who may write the dir):
 * a listing, or a file's lines numbered.
 */
async function view(checkout: Checkout, path: string, range?: [number, number]): Promise<string> {
  const listing = checkout.getDirectoryListing({ path });
  if (listing)
    return markUntrusted({ source: listing.path, text: formatDirectoryListing(listing) });
  const normalized = path.replace(/\/+$/, "");
  const file = await checkout.readFile({ path: normalized });
  if (file === null) {
    throw new HarnessNotFoundError({ surface: "path", message: `${path} does not exist.` });
  }
  if (typeof file !== "string") return `${normalized} is a binary file (${file.byteLength} bytes).`;
  const all = file.split("\n");
  const [start, end] = range ?? [1, all.length];
  if (start < 1 || (end !== -1 && (end < start || start > all.length))) {
    throw new HarnessValidationError({
      surface: "input",
      message: `view_range ${JSON.stringify(range)} is outside 1–${all.length}.`,
    });
  }
  const last = end === -1 ? all.length : Math.min(end, all.length);
  const numbered = all
    .slice(start - 1, last)
    .map((line, index) => `${String(start + index).padStart(6)}\t${line}`)
    .join("\n");
  return markUntrusted({
    source: normalized,
    text:
      numbered.length > MAX_VIEW_CHARS
        ? `${numbered.slice(0, MAX_VIEW_CHARS)}\n[… truncated; use view_range]`
        : numbered,
  });
}

/**
 * Runs one memory-tool command against the checkout and returns what the model sees. Errors
 * (read-only dir, bad path, missing file, ambiguous replacement) come back as `Error: …` text the
 * model can act on; they never end the turn.
 */
export async function runMemoryCommand(
  checkout: Checkout,
  input: MemoryToolInput,
): Promise<string> {
  try {
    switch (input.command) {
      case "view":
        return await view(checkout, input.path, input.view_range);
      case "create": {
        const existed = checkout.exists({ path: input.path });
        checkout.writeFile({ path: input.path, content: input.file_text });
        return suggestedText(
          checkout,
          input.path,
          `${existed ? "Overwrote" : "Created"} ${input.path}.`,
        );
      }
      case "str_replace": {
        const text = await textOf(checkout, input.path);
        const first = text.indexOf(input.old_str);
        if (input.old_str === "" || first === -1)
          return `Error: old_str was not found in ${input.path}.`;
        if (text.indexOf(input.old_str, first + 1) !== -1) {
          return `Error: old_str occurs more than once in ${input.path}; include more context to make it unique.`;
        }
        checkout.writeFile({
          path: input.path,
          content: text.slice(0, first) + input.new_str + text.slice(first + input.old_str.length),
        });
        return suggestedText(checkout, input.path, `Edited ${input.path}.`);
      }
      case "insert": {
        const lines = (await textOf(checkout, input.path)).split("\n");
        if (input.insert_line < 0 || input.insert_line > lines.length) {
          return `Error: insert_line ${input.insert_line} is outside 0–${lines.length}.`;
        }
        lines.splice(input.insert_line, 0, ...input.insert_text.replace(/\n$/, "").split("\n"));
        checkout.writeFile({ path: input.path, content: lines.join("\n") });
        return suggestedText(
          checkout,
          input.path,
          `Inserted text into ${input.path} after line ${input.insert_line}.`,
        );
      }
      case "delete": {
        const path = input.path.replace(/\/+$/, "");
        if (checkout.exists({ path })) {
          checkout.deleteFile({ path });
          return suggestedText(checkout, path, `Deleted ${path}.`);
        }
        const inside = checkout.listFiles({ path });
        if (inside.length === 0) return `Error: ${path} does not exist.`;
        for (const file of inside) checkout.deleteFile({ path: file.path });
        return suggestedText(checkout, path, `Deleted ${inside.length} file(s) under ${path}.`);
      }
      case "rename":
        await checkout.renameFile({ from: input.old_path, to: input.new_path });
        return suggestedText(
          checkout,
          input.new_path,
          `Renamed ${input.old_path} to ${input.new_path}.`,
        );
    }
  } catch (error) {
    if (HarnessError.isInstance(error)) return `Error: ${error.message}`;
    throw error;
  }
}

/** Builds the `memory` tool. `providerTool` lets a provider supply its own definition (Anthropic's). */
export function createMemoryTool(options: {
  checkout: Checkout;
  providerTool?: (execute: (input: MemoryToolInput) => Promise<string>) => Tool;
}): Tool {
  const execute = async (input: MemoryToolInput) => runMemoryCommand(options.checkout, input);
  if (options.providerTool) return options.providerTool(execute);
  return tool({
    description: MEMORY_TOOL_DESCRIPTION,
    inputSchema: memoryToolInputSchema,
    execute,
  });
}
