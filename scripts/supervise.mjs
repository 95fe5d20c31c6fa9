// Runs a child command so that it never outlives this process: `npm start` (scripts/start.mjs)
// runs `next build` and `next start` through it, and stopping npm stops next-server with it.
//
// - Every signal that stops us (SIGINT, SIGTERM, SIGHUP) is passed on to the child; SIGKILL
//   follows when it is still running after `graceMs`.
// - When we exit for any other reason, the child gets SIGTERM on the way out.
// - When our parent dies without telling us (npm killed with SIGKILL, or a shell between npm and
//   us that took the signal and did not pass it on), we notice that our parent process changed
//   and stop the child as if we had got SIGTERM.
// - The child stays in our process group, so whoever stops the whole group (a terminal's
//   Ctrl+C, Playwright's web server shutdown) stops it directly too; a group of its own would
//   outlive a SIGKILL sent to ours.
import { spawn } from "node:child_process";

const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"];

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
 * `options.spawn` goes to `child_process.spawn` (cwd, env, stdio; default inherit).
 */
export function supervise(command, args, options = {}) {
  const { graceMs = 10_000, parentPollMs = 1_000, spawn: spawnOptions = {} } = options;
  const child = spawn(command, args, { stdio: "inherit", ...spawnOptions });
  const parent = process.ppid;
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
  const watchParent = setInterval(() => {
    if (process.ppid !== parent) stop("SIGTERM");
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
