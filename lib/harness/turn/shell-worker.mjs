// The bash tool's worker process: runs one just-bash command over a copy of the checkout's files
// and sends back what changed. A child process of the server (not a thread of it), so that a V8
// out-of-memory abort or any other crash in here ends this process only (see
// docs/decisions/0028-shell-in-a-child-process.md). Plain JavaScript on purpose: Node runs it as
// it is, under vitest and under `next start`, with no build step.
//
// Protocol, over the IPC channel with 'advanced' serialization (Uint8Array contents travel as
// they are). The process loads just-bash as soon as it starts (the parent keeps one spare process
// warm this way), then takes exactly one job message: { command, files: [path, string |
// Uint8Array][], dirs: string[], maxOutputChars, executionLimits }. Messages to the parent:
//   { type: "started" }                 — just-bash is loaded; the parent starts the clock
//   { type: "result", exitCode, stdout, stderr, stdoutChars, stderrChars,
//     writes: [path, Uint8Array][], deletes: string[], skipped: { path, reason }[] }
//   { type: "failed", message }          — the command could not run (an exception)
// The parent enforces the wall-clock limit and the abort by SIGKILL; the heap cap is this
// process's own (--max-old-space-size), and argv[2] caps its resident memory (MiB). This
// process never outlives the parent: it exits when the IPC channel closes, and a watchdog thread
// kills it once its parent process is gone.
import { Worker } from "node:worker_threads";

const ROOT = "/persistent";
const encoder = new TextEncoder();

if (typeof process.send !== "function") {
  console.error("shell-worker.mjs runs as a child process with an IPC channel.");
  process.exit(2);
}

// The job is taken as soon as it arrives (a message with no listener yet would be lost), and
// held until just-bash is loaded.
const job = new Promise((resolve) => process.once("message", resolve));
process.once("disconnect", () => process.exit(0));

// A thread of its own, so it runs even while the main thread is stuck in a synchronous loop:
// reparented means the server is gone, and resident memory past the cap in argv[2] (MiB) means
// memory outside the V8 heap (ArrayBuffers) has grown past what the heap cap bounds. Either way
// the process dies at once; the note on stderr (written directly, not through the busy main
// thread) tells the parent why.
const maxRssMb = Number(process.argv[2]) || 0;
const watchdog = new Worker(
  `const { workerData } = require("node:worker_threads");
   const { writeSync } = require("node:fs");
   setInterval(() => {
     if (process.ppid !== workerData.parent) process.kill(process.pid, "SIGKILL");
     if (workerData.maxRssMb && process.memoryUsage.rss() > workerData.maxRssMb * 1048576) {
       writeSync(2, "shell: resident memory above " + workerData.maxRssMb + " MiB (process out of memory)\\n");
       process.kill(process.pid, "SIGKILL");
     }
   }, 100);`,
  { eval: true, workerData: { parent: process.ppid, maxRssMb } },
);
watchdog.unref();

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

function send(message) {
  return new Promise((resolve, reject) =>
    process.send(message, (error) => (error ? reject(error) : resolve())),
  );
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
  await send({ type: "started" });

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
  await send({
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
  send({ type: "failed", message: error instanceof Error ? error.message : String(error) });

Promise.all([import("just-bash"), job])
  .then(([{ Bash }, message]) => run(Bash, message))
  .catch(failed)
  // One command per process: the parent kills it once the result is in; exit in case it cannot.
  .finally(() => process.exit(0));
