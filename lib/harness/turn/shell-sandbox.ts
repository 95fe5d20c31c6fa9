import { Worker } from "node:worker_threads";
import type { FileContent } from "../persistent";

/** Bounds on one `bash` tool call. Every field is optional; `DEFAULT_SHELL_LIMITS` fills gaps. */
export interface ShellLimits {
  /** Wall-clock time the command may run, from the moment the worker is ready. Default 5000. */
  timeoutMs?: number;
  /** Heap cap of the worker thread (V8 old generation), in MiB. Default 256. */
  memoryMb?: number;
  /** Characters of stdout and of stderr kept (each); the rest is cut with a marker. Default 20,000. */
  maxOutputChars?: number;
  /**
   * Where the worker entry (`shell-worker.mjs`) is. Default: beside this module. A host whose
   * bundler moves modules (Next.js) passes the file's real location.
   */
  workerUrl?: URL | string;
}

/** The defaults of `ShellLimits`. */
export const DEFAULT_SHELL_LIMITS = Object.freeze({
  timeoutMs: 5_000,
  memoryMb: 256,
  maxOutputChars: 20_000,
});

/** Time allowed for the worker to start and load just-bash before the command's clock starts. */
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

/** A command that did not finish; its worker has been terminated and nothing it did is kept. */
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

function spawnWorker(url: URL | string, limits: ResolvedShellLimits): Worker {
  return new Worker(url, {
    resourceLimits: {
      maxOldGenerationSizeMb: limits.memoryMb,
      maxYoungGenerationSizeMb: Math.min(32, Math.max(4, Math.floor(limits.memoryMb / 8))),
      stackSizeMb: 4,
    },
  });
}

/**
 * One unused worker kept warm (just-bash loaded), so a call does not wait for the import. It is
 * used for one call and then terminated like any other; a new spare starts at once. It does not
 * keep the process alive, and a spare that fails is dropped (the next call starts its own).
 */
let spare: { worker: Worker; key: string; drop: () => void } | null = null;

function takeWorker(limits: ResolvedShellLimits): Worker {
  const url = limits.workerUrl ?? defaultWorkerUrl();
  const key = `${String(url)}|${limits.memoryMb}`;
  let worker: Worker;
  if (spare && spare.key === key) {
    worker = spare.worker;
    spare.worker.off("error", spare.drop).off("exit", spare.drop);
    spare = null;
    worker.ref();
  } else {
    if (spare) void spare.worker.terminate();
    spare = null;
    worker = spawnWorker(url, limits);
  }
  const next = spawnWorker(url, limits);
  next.unref();
  const drop = () => {
    if (spare?.worker === next) spare = null;
  };
  next.on("error", drop).on("exit", drop);
  spare = { worker: next, key, drop };
  return worker;
}

/**
 * Runs `command` in just-bash inside a worker thread of its own (never reused) over a copy of `files`, and returns
 * what changed under `/persistent`. The worker is terminated — whatever it is doing, a tight
 * synchronous loop included — when the wall-clock limit passes, when its heap passes the cap,
 * or when `abortSignal` fires; the event loop of the caller is never blocked by the command.
 * Never throws for the command's own failures: they come back as a `ShellRunStopped`.
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
    const worker = takeWorker(limits);

    const finish = (result: ShellRunResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.abortSignal?.removeEventListener("abort", onAbort);
      void worker.terminate();
      resolve(result);
    };
    const onAbort = () => finish({ status: "aborted", message: "The command was stopped." });
    options.abortSignal?.addEventListener("abort", onAbort, { once: true });

    const stopAfter = (ms: number, message: string) => {
      clearTimeout(timer);
      timer = setTimeout(() => finish({ status: "timeout", message }), ms);
    };
    stopAfter(STARTUP_TIMEOUT_MS, "The shell did not start in time.");
    worker.postMessage({
      command: options.command,
      files: options.files,
      dirs: options.dirs,
      maxOutputChars: limits.maxOutputChars,
      // just-bash's own limits are a first line; the worker's termination is the hard one.
      executionLimits: {
        maxExecutionTimeMs: limits.timeoutMs,
        maxOutputSize: Math.max(limits.maxOutputChars * 4, 1024 * 1024),
        maxStringLength: 64 * 1024 * 1024,
        maxFileSystemBytes: Math.max(8 * 1024 * 1024, (limits.memoryMb * 1024 * 1024) / 2),
      },
    });

    worker.on("message", (message: { type: string } & Record<string, unknown>) => {
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
    worker.on("error", (error: Error & { code?: string }) => {
      if (error.code === "ERR_WORKER_OUT_OF_MEMORY") {
        finish({
          status: "memory",
          message: `The command was stopped: it used more than ${limits.memoryMb} MiB of memory (the memory limit of one bash call).`,
        });
      } else {
        finish({ status: "failed", message: error.message });
      }
    });
    worker.on("exit", (code) =>
      finish({ status: "failed", message: `The shell exited unexpectedly (code ${code}).` }),
    );
  });
}
