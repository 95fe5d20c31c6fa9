import path from "node:path";
import { pathToFileURL } from "node:url";
import { DEFAULT_SHELL_LIMITS, type ShellLimits } from "@/lib/harness";

function positiveInteger(raw: string | undefined, fallback: number): number {
  const value = Number(raw);
  return raw !== undefined && Number.isSafeInteger(value) && value > 0 ? value : fallback;
}

/**
 * The `bash` tool's limits from the environment: `CAIRN_SHELL_TIMEOUT_MS`,
 * `CAIRN_SHELL_MEMORY_MB`, `CAIRN_SHELL_OUTPUT_CHARS` (each a positive integer, else the default).
 * The worker entry is named by its place in the project: the server bundle moves modules, but
 * `next start` runs in the project folder and the .mjs file is loaded by Node as it is.
 */
export function shellLimitsFromEnv(
  env: Record<string, string | undefined> = process.env,
): ShellLimits {
  return {
    timeoutMs: positiveInteger(env.CAIRN_SHELL_TIMEOUT_MS, DEFAULT_SHELL_LIMITS.timeoutMs),
    memoryMb: positiveInteger(env.CAIRN_SHELL_MEMORY_MB, DEFAULT_SHELL_LIMITS.memoryMb),
    maxOutputChars: positiveInteger(
      env.CAIRN_SHELL_OUTPUT_CHARS,
      DEFAULT_SHELL_LIMITS.maxOutputChars,
    ),
    workerUrl: pathToFileURL(path.join(process.cwd(), "lib/harness/turn/shell-worker.mjs")),
  };
}
