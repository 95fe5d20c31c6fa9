// What one `bash` call costs to start (for decisions 0008 and 0028): in the server's own process
// (before issue 14); through Cairn's `runShellSandbox` with its warm spare (a worker process
// since issue 31, a worker thread before) and cold (a different memory limit on every call, so
// no spare fits); and in a bare fresh child process running just-bash. Each runs `echo hi` over
// an empty /persistent/user, after an untimed pause (a model's round trip between two calls,
// during which the spare warms up).
// `npm run bench -- shell-start`.
import { execFile } from "node:child_process";
import { Bash } from "just-bash";
import { runShellSandbox } from "@/lib/harness";
import { loadLine, ms, table, timeIt } from "./stats";

const RUNS = Number(process.env.BENCH_SHELL_RUNS ?? 10);
/** Untimed pause before each call, as a model's round trip between two calls would give. */
const PAUSE_MS = Number(process.env.BENCH_SHELL_PAUSE_MS ?? 2_000);
const sleep = (millis: number) => new Promise((resolve) => setTimeout(resolve, millis));

const CHILD_SCRIPT = `
import { Bash } from "just-bash";
const bash = new Bash({ files: {}, cwd: "/persistent", python: false, javascript: false });
await bash.fs.mkdir("/persistent/user", { recursive: true });
const result = await bash.exec("echo hi");
process.stdout.write(result.stdout);
`;

function inChildProcess(): Promise<void> {
  return new Promise((resolve, reject) =>
    execFile(
      process.execPath,
      ["--input-type=module", "--max-old-space-size=256", "-e", CHILD_SCRIPT],
      { cwd: process.cwd(), timeout: 60_000 },
      (error, stdout) =>
        error || stdout !== "hi\n" ? reject(error ?? new Error(stdout)) : resolve(),
    ),
  );
}

async function inProcess(): Promise<void> {
  const bash = new Bash({ files: {}, cwd: "/persistent", python: false, javascript: false });
  await bash.fs.mkdir("/persistent/user", { recursive: true });
  const result = await bash.exec("echo hi");
  if (result.stdout !== "hi\n") throw new Error(result.stdout);
}

async function inCairn(memoryMb?: number): Promise<void> {
  const result = await runShellSandbox({
    command: "echo hi",
    files: [],
    dirs: ["/persistent/user"],
    limits: memoryMb ? { memoryMb } : {},
  });
  if (result.status !== "completed" || result.stdout !== "hi\n")
    throw new Error(JSON.stringify(result));
}

/** A different memory limit on every call, so the warm spare (kept per limit) never fits. */
let coldCalls = 0;
const inCairnCold = () => inCairn(256 + (coldCalls++ % 2));

export async function benchShellStart(): Promise<string> {
  const rows: Record<string, string | number>[] = [];
  for (const [way, run] of [
    ["in the server's process", inProcess],
    ["Cairn, warm spare", () => inCairn()],
    ["Cairn, cold (no spare fits)", inCairnCold],
    ["child process", inChildProcess],
  ] as const) {
    const timing = await timeIt(run, {
      iterations: RUNS,
      warmup: 2,
      before: () => sleep(PAUSE_MS),
    });
    rows.push({ way, runs: RUNS, p50: ms(timing.p50), p95: ms(timing.p95), min: ms(timing.min) });
  }
  return `shell start — one \`echo hi\` call after a ${PAUSE_MS} ms pause, ${loadLine()}\n\n${table(rows)}`;
}
