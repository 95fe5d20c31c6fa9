// The bash tool's worker: runs one just-bash command over a copy of the checkout's files and
// posts back what changed. Plain JavaScript on purpose: Node loads it as it is, under vitest and
// under `next start`, with no build step (see docs/decisions/0008-shell-in-a-worker-thread.md).
//
// Protocol. The worker loads just-bash as soon as it starts (the parent keeps one spare worker
// warm this way), then takes exactly one job message: { command, files: [path, string |
// Uint8Array][], dirs: string[], maxOutputChars, executionLimits }. Messages to the parent:
//   { type: "started" }                 — just-bash is loaded; the parent starts the clock
//   { type: "result", exitCode, stdout, stderr, stdoutChars, stderrChars,
//     writes: [path, Uint8Array][], deletes: string[], skipped: { path, reason }[] }
//   { type: "failed", message }          — the command could not run (an exception)
// The parent enforces the wall-clock and memory limits by terminating this thread.
import { parentPort } from "node:worker_threads";

const ROOT = "/persistent";
const encoder = new TextEncoder();

function toBytes(content) {
  return typeof content === "string" ? encoder.encode(content) : content;
}

function sameBytes(left, right) {
  if (left.byteLength !== right.byteLength) return false;
  for (let index = 0; index < left.byteLength; index += 1)
    if (left[index] !== right[index]) return false;
  return true;
}

// lstat, never stat: a symbolic link is reported as not kept instead of being followed, so a
// link loop (`ln -s . loop`) cannot make the walk recurse forever.
async function walk(fs, directory, into, skipped) {
  if (!(await fs.exists(directory))) return;
  for (const name of await fs.readdir(directory)) {
    const path = `${directory}/${name}`;
    const stat = await fs.lstat(path);
    if (stat.isSymbolicLink) skipped.push({ path, reason: "symbolic links are not kept" });
    else if (stat.isDirectory) await walk(fs, path, into, skipped);
    else if (stat.isFile) into.set(path, await fs.readFileBuffer(path));
  }
}

function clip(text, limit) {
  return text.length > limit ? text.slice(0, limit) : text;
}

async function run(Bash, job) {
  const { command, files, dirs, maxOutputChars, executionLimits } = job;
  const initial = {};
  for (const [path, content] of files) initial[path] = content;
  const bash = new Bash({
    files: initial,
    cwd: ROOT,
    network: undefined,
    python: false,
    javascript: false,
    executionLimits,
  });
  for (const dir of dirs) await bash.fs.mkdir(dir, { recursive: true });
  parentPort.postMessage({ type: "started" });

  const result = await bash.exec(command);
  const after = new Map();
  const skipped = [];
  await walk(bash.fs, ROOT, after, skipped);
  const before = new Map(files);
  const writes = [];
  for (const [path, bytes] of after) {
    const previous = before.get(path);
    if (previous === undefined || !sameBytes(toBytes(previous), bytes)) writes.push([path, bytes]);
  }
  const deletes = [...before.keys()].filter((path) => !after.has(path));
  parentPort.postMessage({
    type: "result",
    exitCode: result.exitCode,
    stdout: clip(result.stdout, maxOutputChars),
    stderr: clip(result.stderr, maxOutputChars),
    stdoutChars: result.stdout.length,
    stderrChars: result.stderr.length,
    writes,
    deletes,
    skipped,
  });
}

const failed = (error) =>
  parentPort.postMessage({
    type: "failed",
    message: error instanceof Error ? error.message : String(error),
  });

// A job posted before the import finished waits in the port's queue until this listener exists.
import("just-bash").then(
  ({ Bash }) => parentPort.once("message", (job) => run(Bash, job).catch(failed)),
  failed,
);
