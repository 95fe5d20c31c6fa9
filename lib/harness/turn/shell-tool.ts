import { tool, type Tool } from "ai";
import { Bash, type IFileSystem } from "just-bash";
import { z } from "zod";
import { HarnessError } from "../errors";
import { PERSISTENT_ROOT, type Checkout, type FileContent } from "../persistent";

export const SHELL_TOOL_DESCRIPTION =
  "Run a command in a sandboxed bash (simulated; no network, no host access) whose file system holds your persistent directories under /persistent. " +
  "Use ls, cat, grep, find, sed, head, wc and the like to inspect or edit them. File changes are applied to your checkout when the command ends " +
  "and saved after your turn; changes under read-only directories are refused.";

const MAX_OUTPUT_CHARS = 20_000;

async function walk(
  fs: IFileSystem,
  directory: string,
  into: Map<string, Uint8Array>,
): Promise<void> {
  if (!(await fs.exists(directory))) return;
  for (const name of await fs.readdir(directory)) {
    const path = `${directory}/${name}`;
    const stat = await fs.stat(path);
    if (stat.isDirectory) await walk(fs, path, into);
    else if (stat.isFile) into.set(path, await fs.readFileBuffer(path));
  }
}

function sameContent(a: FileContent, b: Uint8Array): boolean {
  const left = typeof a === "string" ? new TextEncoder().encode(a) : a;
  return left.byteLength === b.byteLength && left.every((byte, index) => byte === b[index]);
}

function decode(bytes: Uint8Array): FileContent {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return bytes;
  }
}

function clip(text: string): string {
  return text.length > MAX_OUTPUT_CHARS
    ? `${text.slice(0, MAX_OUTPUT_CHARS)}\n[… output truncated]`
    : text;
}

/**
 * Runs `command` in just-bash over a copy of the checkout, then applies the file changes it
 * made back to the checkout — through the checkout's own checks, so a write under a read-only
 * dir or a hostile path is refused and reported, and nothing outside `/persistent` persists.
 */
export async function runShellCommand(
  checkout: Checkout,
  command: string,
  abortSignal?: AbortSignal,
): Promise<string> {
  const files: Record<string, FileContent> = {};
  for (const info of checkout.listFiles())
    files[info.path] = checkout.readFileOrThrow({ path: info.path });
  const bash = new Bash({
    files,
    cwd: PERSISTENT_ROOT,
    network: undefined,
    python: false,
    javascript: false,
  });
  for (const dir of checkout.listDirs()) await bash.fs.mkdir(dir.harnessDir, { recursive: true });
  const result = await bash.exec(command, { signal: abortSignal });

  const after = new Map<string, Uint8Array>();
  await walk(bash.fs, PERSISTENT_ROOT, after);
  const refused: string[] = [];
  const apply = (action: () => void, path: string) => {
    try {
      action();
    } catch (error) {
      if (!HarnessError.isInstance(error)) throw error;
      refused.push(`${path}: ${error.message}`);
    }
  };
  for (const [path, bytes] of after) {
    const before = files[path];
    if (before === undefined || !sameContent(before, bytes)) {
      apply(() => checkout.writeFile({ path, content: decode(bytes) }), path);
    }
  }
  for (const path of Object.keys(files)) {
    if (!after.has(path)) apply(() => checkout.deleteFile({ path }), path);
  }

  const parts = [`exit code ${result.exitCode}`];
  if (result.stdout) parts.push(`stdout:\n${clip(result.stdout)}`);
  if (result.stderr) parts.push(`stderr:\n${clip(result.stderr)}`);
  if (refused.length)
    parts.push(`Error: these changes were refused and not kept:\n${refused.join("\n")}`);
  return parts.join("\n");
}

export function createShellTool(options: { checkout: Checkout }): Tool {
  return tool({
    description: SHELL_TOOL_DESCRIPTION,
    inputSchema: z.object({
      command: z.string().min(1).max(10_000).describe("The bash command line to run."),
    }),
    execute: async ({ command }, { abortSignal }) =>
      runShellCommand(options.checkout, command, abortSignal),
  });
}
