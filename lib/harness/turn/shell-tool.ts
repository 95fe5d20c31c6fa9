import { tool, type Tool } from "ai";
import { z } from "zod";
import { HarnessError } from "../errors";
import type { Checkout, FileContent } from "../persistent";
import { formatBytes } from "../format-bytes";
import { resolveShellLimits, runShellSandbox, type ShellLimits } from "./shell-sandbox";
import { markUntrusted } from "./untrusted-data";

export const SHELL_TOOL_DESCRIPTION =
  "Run a command in a sandboxed bash (simulated; no network, no host access) whose file system holds your persistent directories under /persistent. " +
  "Use ls, cat, grep, find, sed, head, wc and the like to inspect or edit them. File changes are applied to your checkout when the command ends " +
  "and saved after your turn; a command's changes are kept whole or not at all, and changes under read-only directories are refused. " +
  "Each call has a time and memory limit.";

/** How many refused changes a result lists before it only counts the rest. */
export const MAX_LISTED_REFUSALS = 20;

function decode(bytes: Uint8Array): FileContent {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return bytes;
  }
}

/** One output stream, wrapped as data: it carries whatever the files it read hold. */
function clipped(name: string, text: string, fullLength: number): string {
  const body = markUntrusted({ source: `bash ${name}`, text });
  return fullLength > text.length
    ? `${name}:\n${body}\n[… ${name} truncated: ${text.length.toLocaleString("en-US")} of ${fullLength.toLocaleString("en-US")} characters shown]`
    : `${name}:\n${body}`;
}

function listed(lines: string[], what: string): string {
  const shown = lines.slice(0, MAX_LISTED_REFUSALS);
  if (lines.length > shown.length)
    shown.push(`[… and ${lines.length - shown.length} more ${what}]`);
  return shown.join("\n");
}

/**
 * Applies a command's change set to the checkout whole or not at all: deletes first (so a
 * rename never trips the file-count limit half way), then writes, each through the checkout's
 * own checks. When any change is refused, the ones already applied are undone in reverse order
 * and every refusal is returned; otherwise the list is empty.
 */
async function applyAllOrNothing(
  checkout: Checkout,
  changes: { writes: [string, Uint8Array][]; deletes: string[] },
): Promise<string[]> {
  const refused: string[] = [];
  const undo: (() => void)[] = [];
  const attempt = (path: string, action: () => void, revert: () => void) => {
    try {
      action();
      undo.push(revert);
    } catch (error) {
      if (!HarnessError.isInstance(error)) throw error;
      refused.push(`${path}: ${error.message}`);
    }
  };
  await checkout.prefetch({ paths: [...changes.deletes, ...changes.writes.map(([path]) => path)] });
  for (const path of changes.deletes) {
    const previous = await checkout.readFile({ path });
    attempt(
      path,
      () => checkout.deleteFile({ path }),
      () => previous !== null && checkout.writeFile({ path, content: previous }),
    );
  }
  for (const [path, bytes] of changes.writes) {
    // A path outside every dir makes readFile throw: let writeFile report it as refused.
    let previous: FileContent | null = null;
    try {
      previous = await checkout.readFile({ path });
    } catch {
      previous = null;
    }
    attempt(
      path,
      () => checkout.writeFile({ path, content: decode(bytes) }),
      () =>
        previous === null
          ? checkout.deleteFile({ path })
          : checkout.writeFile({ path, content: previous }),
    );
  }
  if (refused.length > 0) for (const revert of undo.reverse()) revert();
  return refused;
}

/** Bytes of file content one `bash` call may load: a quarter of the worker's heap. */
export function shellInputBytes(memoryMb: number): number {
  return Math.floor((memoryMb * 1024 * 1024) / 4);
}

// `/persistent…` up to the first character that ends a word or starts a glob.
const NAMED_PATH = /\/persistent(?:\/[^\s'"`;|&<>()$*?[\]{}\\]*)?/g;

/**
 * The files a command's worker gets. All of them when they fit in `maxBytes`; otherwise (a
 * knowledge base larger than the shell) the files under the `/persistent/…` paths the command
 * names, when those fit — with a note saying the shell saw only them — or a refusal that says
 * how to narrow the command. Bodies of a lazy dir are read only for the files handed over.
 */
async function filesForCommand(options: {
  checkout: Checkout;
  command: string;
  maxBytes: number;
}): Promise<{ files: [string, FileContent][]; note?: string } | { refusal: string }> {
  const { checkout, maxBytes } = options;
  const all = checkout.listFiles();
  const total = all.reduce((sum, file) => sum + file.bytes, 0);
  let chosen = all;
  let note: string | undefined;
  if (total > maxBytes) {
    const prefixes = [...new Set(options.command.match(NAMED_PATH) ?? [])].filter(
      (prefix) => prefix.replace(/\/+$/, "") !== "/persistent",
    );
    chosen = all.filter((file) => prefixes.some((prefix) => file.path.startsWith(prefix)));
    const bytes = chosen.reduce((sum, file) => sum + file.bytes, 0);
    const narrow =
      "Name a folder or file under /persistent in the command (for example `grep -rn term /persistent/company/policies`), or use the search tool to find which files to open.";
    if (prefixes.length === 0 || bytes > maxBytes) {
      return {
        refusal:
          `bash cannot load ${prefixes.length === 0 ? "every persistent dir" : "the paths this command names"}: ` +
          `${(prefixes.length === 0 ? all.length : chosen.length).toLocaleString("en-US")} files, ` +
          `${formatBytes(prefixes.length === 0 ? total : bytes)}, more than the shell's ${formatBytes(maxBytes)}. ${narrow} Nothing ran.`,
      };
    }
    note = `note: the persistent dirs are larger than the shell (${all.length.toLocaleString("en-US")} files, ${formatBytes(total)}); this command saw only the ${chosen.length.toLocaleString("en-US")} file(s) under ${prefixes.join(", ")}.`;
  }
  await checkout.prefetch({ paths: chosen.map((file) => file.path) });
  const files: [string, FileContent][] = [];
  for (const file of chosen)
    files.push([file.path, await checkout.readFileOrThrow({ path: file.path })]);
  return note ? { files, note } : { files };
}

/**
 * Runs `command` in just-bash in a worker process over a copy of the checkout (see
 * `runShellSandbox` for the time, memory and output limits), then applies the file changes it
 * made back to the checkout — whole or not at all, through the checkout's own checks, so a write
 * under a read-only dir, a hostile path or a limit refuses the command's changes and says why.
 * Nothing outside `/persistent` persists. Returns the text the model sees.
 */
export async function runShellCommand(options: {
  checkout: Checkout;
  command: string;
  limits?: ShellLimits;
  abortSignal?: AbortSignal;
}): Promise<string> {
  const { checkout } = options;
  const limits = resolveShellLimits(options.limits);
  const input = await filesForCommand({
    checkout,
    command: options.command,
    maxBytes: shellInputBytes(limits.memoryMb),
  });
  if ("refusal" in input) return `Error: ${input.refusal}`;
  const run = await runShellSandbox({
    command: options.command,
    files: input.files,
    dirs: checkout.listDirs().map((dir) => dir.harnessDir),
    limits,
    abortSignal: options.abortSignal,
  });
  if (run.status !== "completed") return `Error: ${run.message} No file changes were kept.`;

  const parts = [`exit code ${run.exitCode}`];
  if (input.note) parts.push(input.note);
  if (run.stdout) parts.push(clipped("stdout", run.stdout, run.stdoutChars));
  if (run.stderr) parts.push(clipped("stderr", run.stderr, run.stderrChars));
  if (run.skipped.length)
    parts.push(
      `Not kept:\n${listed(
        run.skipped.map((entry) => `${entry.path}: ${entry.reason}`),
        "not kept",
      )}`,
    );
  const total = run.writes.length + run.deletes.length;
  const refused = await applyAllOrNothing(checkout, run);
  if (refused.length) {
    parts.push(
      `Error: none of this command's ${total} file change${total === 1 ? " was" : "s were"} kept, because ${refused.length} ${refused.length === 1 ? "was" : "were"} refused:\n${listed(refused, "refused")}`,
    );
  }
  return parts.join("\n");
}

/** Built once per process (a stable schema object keeps the AI SDK's JSON Schema cached). */
const shellInput = z.object({
  command: z.string().min(1).max(10_000).describe("The bash command line to run."),
});

/**
 * The `bash` tool over a turn's checkout, bounded by `limits`. Calls of one tool (one turn) run
 * one after another, even when the model asks for several at once: each sees the changes of the
 * one before, and a turn occupies at most one worker process. Time spent waiting does not count.
 */
export function createShellTool(options: { checkout: Checkout; limits?: ShellLimits }): Tool {
  let previous: Promise<unknown> = Promise.resolve();
  return tool({
    description: SHELL_TOOL_DESCRIPTION,
    inputSchema: shellInput,
    execute: ({ command }, { abortSignal }) => {
      const run = previous.then(() =>
        runShellCommand({
          checkout: options.checkout,
          command,
          limits: options.limits,
          abortSignal,
        }),
      );
      previous = run.catch(() => undefined);
      return run;
    },
  });
}
