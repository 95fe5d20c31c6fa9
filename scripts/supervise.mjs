// Runs a child command so that it never outlives this process: `npm start` (scripts/start.mjs)
// runs `next build` and `next start` through it, and stopping npm stops next-server with it.
//
// - Every signal that stops us (SIGINT, SIGTERM, SIGHUP) is passed on to the child; SIGKILL
//   follows when it is still running after `graceMs`.
// - When we exit for any other reason, the child gets SIGTERM on the way out.
// - With `watchAncestors` (1: our parent; 2: also its parent), when one of them dies without
//   telling us we stop the child as if we had got SIGTERM. `npm start` runs us as
//   npm → sh -c → node, so npm killed outright (SIGKILL) leaves the shell alive, orphaned: we
//   notice that the shell's parent changed. On systems without /proc only our parent is watched.
// - The child stays in our process group, so whoever stops the whole group (a terminal's
//   Ctrl+C, Playwright's web server shutdown) stops it directly too; a group of its own would
//   outlive a SIGKILL sent to ours.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";

const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"];

/** The parent pid of `pid` from /proc (Linux), or null when it cannot be read. */
function parentOf(pid) {
  try {
    // Field 4 of /proc/<pid>/stat, after the command name in parentheses (which may hold spaces).
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return null;
  }
}

function signalChild(child, signal) {
  if (child.exitCode !== null || child.signalCode !== null) return false;
  try {
    return child.kill(signal);
  } catch {
    return false; // already gone
  }
}

/**
 * Runs `command` with `args`. Resolves with `{ code, stopped }`: the exit code (128 + the signal
 * number when a signal ended it) and whether we stopped it because we were told to stop.
 * `options.spawn` goes to `child_process.spawn` (cwd, env, stdio; default inherit);
 * `options.watchAncestors` (default 0) is how many generations above us to watch (see above).
 */
export function supervise(command, args, options = {}) {
  const {
    graceMs = 10_000,
    parentPollMs = 1_000,
    watchAncestors = 0,
    spawn: spawnOptions = {},
  } = options;
  const child = spawn(command, args, { stdio: "inherit", ...spawnOptions });
  const parent = process.ppid;
  const grandparent = watchAncestors >= 2 ? parentOf(parent) : null;
  let stopping = false;

  const stop = (signal) => {
    // A second Ctrl+C does not wait for the grace period.
    if (stopping) return void signalChild(child, "SIGKILL");
    stopping = true;
    signalChild(child, signal);
    setTimeout(() => signalChild(child, "SIGKILL"), graceMs).unref();
  };
  const handlers = STOP_SIGNALS.map((signal) => [signal, () => stop(signal)]);
  for (const [signal, handler] of handlers) process.on(signal, handler);
  const onExit = () => signalChild(child, "SIGTERM");
  process.on("exit", onExit);
  const ancestorsGone = () =>
    process.ppid !== parent || (grandparent !== null && parentOf(parent) !== grandparent);
  const watchParent = setInterval(() => {
    if (watchAncestors > 0 && ancestorsGone()) stop("SIGTERM");
  }, parentPollMs);
  watchParent.unref();

  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      clearInterval(watchParent);
      for (const [name, handler] of handlers) process.off(name, handler);
      process.off("exit", onExit);
      resolve({ code: code ?? 128 + (osSignals[signal] ?? 1), stopped: stopping });
    });
  });
}

const osSignals = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };
