import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { FileContent } from "../persistent";

/** Bounds on one `bash` tool call. Every field is optional; `DEFAULT_SHELL_LIMITS` fills gaps. */
export interface ShellLimits {
  /** Wall-clock time the command may run, from the moment the worker is ready. Default 5000. */
  timeoutMs?: number;
  /**
   * Heap cap of the worker process (V8 old generation, `--max-old-space-size`), in MiB; just-bash's
   * own string and input limits are scaled from it. Default 256.
   */
  memoryMb?: number;
  /** Characters of stdout and of stderr kept (each); the rest is cut with a marker. Default 20,000. */
  maxOutputChars?: number;
  /**
   * Where the worker process's entry (`shell-worker.mjs`) is. Default: beside this module. A host
   * whose bundler moves modules (Next.js) passes the file's real location.
   */
  workerUrl?: URL | string;
}

/** The defaults of `ShellLimits`. */
export const DEFAULT_SHELL_LIMITS = Object.freeze({
  timeoutMs: 5_000,
  memoryMb: 256,
  maxOutputChars: 20_000,
});

/** Time allowed for the worker process to start and load just-bash before the command's clock starts. */
const STARTUP_TIMEOUT_MS = 20_000;

/** What a command left behind, as the worker saw it. */
export interface ShellRunCompleted {
  status: "completed";
  exitCode: number;
  stdout: string;
  stderr: string;
  /** Length of the full output before it was cut to `maxOutputChars`. */
  stdoutChars: number;
  stderrChars: number;
  /** Files created or changed under `/persistent`. */
  writes: [path: string, content: Uint8Array][];
  /** Files under `/persistent` that the command removed. */
  deletes: string[];
  /** Paths the command created that cannot be kept (symbolic links). */
  skipped: { path: string; reason: string }[];
}

/** A command that did not finish; its worker process has been killed and nothing it did is kept. */
export interface ShellRunStopped {
  status: "timeout" | "memory" | "aborted" | "failed";
  message: string;
}

export type ShellRunResult = ShellRunCompleted | ShellRunStopped;

function positive(value: number | undefined, fallback: number): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : fallback;
}

/** `ShellLimits` with defaults applied. */
export function resolveShellLimits(
  limits: ShellLimits = {},
): Required<Omit<ShellLimits, "workerUrl">> & { workerUrl?: URL | string } {
  return {
    timeoutMs: positive(limits.timeoutMs, DEFAULT_SHELL_LIMITS.timeoutMs),
    memoryMb: positive(limits.memoryMb, DEFAULT_SHELL_LIMITS.memoryMb),
    maxOutputChars: positive(limits.maxOutputChars, DEFAULT_SHELL_LIMITS.maxOutputChars),
    ...(limits.workerUrl ? { workerUrl: limits.workerUrl } : {}),
  };
}

function defaultWorkerUrl(): URL {
  return new URL("./shell-worker.mjs", import.meta.url);
}

type ResolvedShellLimits = ReturnType<typeof resolveShellLimits>;

const MIB = 1024 * 1024;

/**
 * just-bash's own limits, scaled to the process's heap: the first line, so that a string, a
 * heredoc or a pipeline's input stays well under the heap and a blow-up ends as the command's
 * own error (`bash: … limit exceeded`) instead of an out-of-memory kill. The heap cap and the
 * SIGKILL are the hard line behind them.
 */
export function shellExecutionLimits(limits: ResolvedShellLimits): Record<string, number> {
  const heap = limits.memoryMb * MIB;
  const sixteenth = Math.max(MIB, Math.floor(heap / 16));
  const quarter = Math.max(4 * MIB, Math.floor(heap / 4));
  return {
    maxExecutionTimeMs: limits.timeoutMs,
    maxOutputSize: Math.max(limits.maxOutputChars * 4, MIB),
    maxStringLength: sixteenth,
    maxHeredocSize: sixteenth,
    maxSourceBytes: sixteenth,
    maxLiveBytes: quarter,
    maxInputBytes: quarter,
    maxDatabaseBytes: quarter,
    maxDatabaseResultBytes: sixteenth,
    maxArchiveBytes: quarter,
    maxArchiveCompressedBytes: quarter,
    maxArchiveEntryBytes: quarter,
    maxWorkerMessageBytes: sixteenth,
    maxFileSystemBytes: Math.max(8 * MIB, Math.floor(heap / 2)),
  };
}

/**
 * The worker process's resident-memory cap (MiB), checked by its watchdog thread every 100 ms:
 * the heap, twice over (young generation, code, ArrayBuffers such as just-bash's file system,
 * which is capped at half the heap), plus Node's own ~70 MB.
 */
function maxResidentMb(limits: ResolvedShellLimits): number {
  return 2 * limits.memoryMb + 128;
}

function entryPath(url: URL | string): string {
  return url instanceof URL || url.startsWith("file:") ? fileURLToPath(url) : url;
}

/**
 * A fresh worker process: this Node binary with the shell's heap cap, none of the server's own
 * flags (loaders, inspector) and none of its environment (secrets stay in the server). The
 * request and result travel over the IPC channel; stderr is kept to tell an out-of-memory abort
 * from other crashes.
 */
function spawnWorker(url: URL | string, limits: ResolvedShellLimits): ChildProcess {
  const semiSpaceMb = Math.min(16, Math.max(1, Math.floor(limits.memoryMb / 16)));
  const env: Record<string, string> = {};
  if (process.env.TZ) env.TZ = process.env.TZ;
  return spawn(
    process.execPath,
    [
      `--max-old-space-size=${limits.memoryMb}`,
      `--max-semi-space-size=${semiSpaceMb}`,
      entryPath(url),
      String(maxResidentMb(limits)),
    ],
    {
      env: env as NodeJS.ProcessEnv,
      stdio: ["ignore", "ignore", "pipe", "ipc"],
      serialization: "advanced",
    },
  );
}

/** Stops holding the server's event loop open for `child` (its handle, IPC channel and pipe). */
function setReferenced(child: ChildProcess, referenced: boolean): void {
  const handles = [child, child.channel, child.stderr] as (
    { ref?(): void; unref?(): void } | null | undefined
  )[];
  for (const handle of handles) {
    if (referenced) handle?.ref?.();
    else handle?.unref?.();
  }
}

/**
 * One unused process kept warm (just-bash loaded), so a call does not wait for Node to start and
 * import it. It is used for one call and then killed like any other; a new spare starts at once.
 * It never keeps the server alive, and a spare that exits is dropped (the next call starts its
 * own).
 */
let spare: { child: ChildProcess; key: string; drop: () => void } | null = null;

function takeWorker(limits: ResolvedShellLimits): ChildProcess {
  const url = limits.workerUrl ?? defaultWorkerUrl();
  const key = `${String(url)}|${limits.memoryMb}`;
  let child: ChildProcess;
  if (spare && spare.key === key) {
    child = spare.child;
    child.off("error", spare.drop).off("exit", spare.drop);
    spare = null;
    setReferenced(child, true);
  } else {
    if (spare) spare.child.kill("SIGKILL");
    spare = null;
    child = spawnWorker(url, limits);
  }
  const next = spawnWorker(url, limits);
  setReferenced(next, false);
  // Drained even while idle, so a chatty failure cannot fill the pipe and stall the process.
  next.stderr?.resume();
  const drop = () => {
    if (spare?.child === next) spare = null;
  };
  next.on("error", drop).on("exit", drop);
  spare = { child: next, key, drop };
  return child;
}

/** How much of the worker's stderr is kept (its tail): enough for V8's fatal error line. */
const STDERR_KEPT_CHARS = 4_096;

/**
 * V8's words when a heap passes its cap (`FATAL ERROR: Reached heap limit …`), and the
 * watchdog's when resident memory passes its cap.
 */
const OUT_OF_MEMORY = /heap limit|heap out of memory|process out of memory|allocation failed/i;

/**
 * Runs `command` in just-bash inside a worker process of its own (never reused) over a copy of
 * `files`, and returns what changed under `/persistent`. The process is killed (SIGKILL) —
 * whatever it is doing, a tight synchronous loop included — when the wall-clock limit passes or
 * when `abortSignal` fires; its heap is capped at `memoryMb`, and passing the cap ends that
 * process only (V8 aborts the process whose heap it is). The caller's event loop is never
 * blocked by the command, and its memory never holds the command's. Never throws for the
 * command's own failures: they come back as a `ShellRunStopped`.
 */
export function runShellSandbox(options: {
  command: string;
  files: [path: string, content: FileContent][];
  /** Dirs to create even when empty (each `/persistent/...`). */
  dirs: string[];
  limits?: ShellLimits;
  abortSignal?: AbortSignal;
}): Promise<ShellRunResult> {
  const limits = resolveShellLimits(options.limits);
  if (options.abortSignal?.aborted)
    return Promise.resolve({ status: "aborted", message: "The command was stopped." });

  return new Promise<ShellRunResult>((resolve) => {
    let settled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stderr = "";
    const child = takeWorker(limits);

    const finish = (result: ShellRunResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.abortSignal?.removeEventListener("abort", onAbort);
      child.kill("SIGKILL");
      resolve(result);
    };
    const onAbort = () => finish({ status: "aborted", message: "The command was stopped." });
    options.abortSignal?.addEventListener("abort", onAbort, { once: true });

    const stopAfter = (ms: number, message: string) => {
      clearTimeout(timer);
      timer = setTimeout(() => finish({ status: "timeout", message }), ms);
    };
    stopAfter(STARTUP_TIMEOUT_MS, "The shell did not start in time.");

    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-STDERR_KEPT_CHARS);
    });
    child.on("message", (message: { type: string } & Record<string, unknown>) => {
      if (message.type === "started") {
        stopAfter(
          limits.timeoutMs,
          `The command was stopped after ${limits.timeoutMs} ms (the time limit of one bash call).`,
        );
      } else if (message.type === "result") {
        finish({
          ...(message as unknown as Omit<ShellRunCompleted, "status">),
          status: "completed",
        });
      } else if (message.type === "failed") {
        finish({ status: "failed", message: String(message.message) });
      }
    });
    child.on("error", (error) => finish({ status: "failed", message: error.message }));
    // 'close', not 'exit': it comes after the last message and the last of stderr.
    child.on("close", (code, signal) => {
      if (OUT_OF_MEMORY.test(stderr)) {
        finish({
          status: "memory",
          message: `The command was stopped: it used more than ${limits.memoryMb} MiB of memory (the memory limit of one bash call).`,
        });
      } else {
        const lastLine = stderr.trim().split("\n").pop()?.slice(0, 300);
        finish({
          status: "failed",
          message: `The shell exited unexpectedly (${signal ? `signal ${signal}` : `code ${code}`})${lastLine ? `: ${lastLine}` : ""}.`,
        });
      }
    });

    child.send(
      {
        command: options.command,
        files: options.files,
        dirs: options.dirs,
        maxOutputChars: limits.maxOutputChars,
        executionLimits: shellExecutionLimits(limits),
      },
      (error) => {
        if (error)
          finish({ status: "failed", message: `The shell could not be started: ${error.message}` });
      },
    );
  });
}
