import { readFileSync } from "node:fs";

/** The pids below `pid` (children, grandchildren, …), from /proc (Linux). */
export function descendantsOf(pid: number): number[] {
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const current = queue.shift()!;
    let children: string;
    try {
      children = readFileSync(`/proc/${current}/task/${current}/children`, "utf8");
    } catch {
      continue;
    }
    for (const child of children.trim().split(/\s+/).filter(Boolean).map(Number)) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/** A process's resident set size in bytes (`VmRSS` in /proc/<pid>/status), or 0 once it is gone. */
export function rssOf(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * The `next start` server's pid below `rootPid` (scripts/start.mjs): the descendant with the
 * largest resident set (the launcher and npm are small; the server holds the app).
 */
export function serverPidBelow(rootPid: number): number {
  const candidates = descendantsOf(rootPid);
  if (candidates.length === 0) throw new Error(`No process below ${rootPid}.`);
  return candidates.reduce((best, pid) => (rssOf(pid) > rssOf(best) ? pid : best));
}

/** Samples `rssOf(pid)` every `intervalMs` until stopped; `stop()` returns the largest seen. */
export function sampleRss(pid: number, intervalMs = 25): { stop(): number } {
  let peak = rssOf(pid);
  const timer = setInterval(() => (peak = Math.max(peak, rssOf(pid))), intervalMs);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, rssOf(pid));
    },
  };
}

/** Bytes as megabytes with one decimal (1 MB = 2^20 bytes). */
export const megabytes = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;
