// These tests run real worker processes (lib/harness/turn/shell-worker.mjs) with small limits.
import { execFileSync, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createInMemoryDirBacking, loadCheckout } from "../persistent";
import { notesAndHandbookCheckout as checkout } from "./internal/testing";
import { createShellTool, MAX_LISTED_REFUSALS, runShellCommand } from "./shell-tool";

/** The reproduction: ~10^10 awk iterations, far beyond any time limit. */
const RUNAWAY_LOOP = "awk 'BEGIN{for(i=0;i<100000;i++)for(j=0;j<100000;j++)s+=j;print s}'";

/** Counts main-thread timer callbacks while `work` runs: the event loop must keep turning. */
async function whileCounting<T>(work: () => Promise<T>): Promise<{ result: T; ticks: number }> {
  let ticks = 0;
  const interval = setInterval(() => (ticks += 1), 10);
  try {
    return { result: await work(), ticks };
  } finally {
    clearInterval(interval);
  }
}

describe("bash tool in a worker process", () => {
  it("stops a runaway loop at the time limit while the caller's event loop keeps turning", async () => {
    const files = await checkout();
    const { result, ticks } = await whileCounting(() =>
      runShellCommand({
        checkout: files,
        command: `echo partial > /persistent/user/partial.md; ${RUNAWAY_LOOP}`,
        limits: { timeoutMs: 400 },
      }),
    );
    expect(result).toMatch(/^Error: The command was stopped after 400 ms/);
    expect(result).toContain("No file changes were kept.");
    expect(await files.readFile({ path: "/persistent/user/partial.md" })).toBeNull();
    expect(ticks).toBeGreaterThan(0);
  });

  it("stops a runaway loop when the turn is aborted (the stop button)", async () => {
    const files = await checkout();
    const controller = new AbortController();
    const { result, ticks } = await whileCounting(() => {
      const running = runShellCommand({
        checkout: files,
        command: `echo x > /persistent/user/x.md; ${RUNAWAY_LOOP}`,
        limits: { timeoutMs: 600_000 },
        abortSignal: controller.signal,
      });
      setTimeout(() => controller.abort(), 300);
      return running;
    });
    expect(result).toBe("Error: The command was stopped. No file changes were kept.");
    expect(await files.readFile({ path: "/persistent/user/x.md" })).toBeNull();
    expect(ticks).toBeGreaterThan(0);
  });

  it("stops a 60 MB string copy blow-up at just-bash's string limit, before the heap", async () => {
    const files = await checkout();
    const result = await runShellCommand({
      checkout: files,
      // 16 × 2^22 = 64 Mi characters, then two copies.
      command:
        'x=aaaaaaaaaaaaaaaa; for i in $(seq 22); do x=$x$x; done; y="$x"; z="$x"; echo ${#x}${#y}${#z}',
      limits: { memoryMb: 64, timeoutMs: 60_000 },
    });
    // A sixteenth of the 64 MiB heap.
    expect(result).toContain("string length limit exceeded (4194304 bytes)");
    expect(result).not.toContain("stdout:");
  });

  it.each([25, 30])(
    "survives the doubling loop to 2^%i (issue 31, finding 1: 2^25 aborted the whole server)",
    async (doublings) => {
      const files = await checkout();
      const result = await runShellCommand({
        checkout: files,
        command: `echo kept? > /persistent/user/d.md; s=x; for i in $(seq 1 ${doublings}); do s=$s$s; done; echo \${#s}`,
        limits: { timeoutMs: 60_000 },
      });
      // This process is still here to check: the string limit's error, or the heap cap's.
      expect(result).toMatch(/string length limit exceeded|used more than 256 MiB of memory/);
      expect(result).not.toContain(String(2 ** doublings));
    },
  );

  it("stops what passes just-bash's limits at the worker process's heap cap", async () => {
    const files = await checkout();
    const result = await runShellCommand({
      checkout: files,
      // 1,500 distinct strings of 65,000 characters (~98 MB), each under the string limit.
      command:
        'echo x > /persistent/user/m.md; s=$(printf "%065000d" 0); for i in $(seq 1 1500); do a[$i]="$s$i"; done; echo ${#a[@]}',
      limits: { memoryMb: 64, timeoutMs: 60_000 },
    });
    expect(result).toBe(
      "Error: The command was stopped: it used more than 64 MiB of memory (the memory limit of one bash call). No file changes were kept.",
    );
    expect(await files.readFile({ path: "/persistent/user/m.md" })).toBeNull();
  });

  it("ends a fork-bomb-like recursion with an error within the time limit", async () => {
    const files = await checkout();
    const result = await runShellCommand({
      checkout: files,
      command: "f(){ f | f & }; f",
      limits: { timeoutMs: 5_000 },
    });
    expect(result).toMatch(/maximum recursion depth \(\d+\) exceeded|stopped after 5000 ms/);
  });

  it("ends a 10 GB seq with an error within the time limit", async () => {
    const files = await checkout();
    const result = await runShellCommand({
      checkout: files,
      command: "seq 1 1000000000000 | wc -l",
      limits: { timeoutMs: 5_000 },
    });
    expect(result).toMatch(/limit exceeded|stopped after 5000 ms/);
    expect(result).not.toContain("1000000000000");
  });

  it("leaves no worker process behind when the server is killed", async () => {
    const fixture = path.join(import.meta.dirname, "internal", "shell-orphan-fixture.ts");
    const server = spawn(process.execPath, ["--import", "tsx", fixture], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    try {
      await new Promise<void>((resolve, reject) => {
        server.stdout.setEncoding("utf8");
        server.stdout.on("data", (text: string) => text.includes("ready") && resolve());
        server.on("exit", (code) => reject(new Error(`the fixture exited (${code})`)));
      });
      // Its children, less tsx's esbuild service: the busy worker process and the spare.
      const workers = execFileSync("pgrep", ["-P", String(server.pid)], { encoding: "utf8" })
        .trim()
        .split("\n")
        .map(Number)
        .filter((pid) => readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("shell-worker"));
      expect(workers).toHaveLength(2);
      server.kill("SIGKILL");
      const alive = () =>
        workers.filter((pid) => {
          try {
            process.kill(pid, 0);
            return true;
          } catch {
            return false;
          }
        });
      for (let waited = 0; waited < 10_000 && alive().length > 0; waited += 100)
        await new Promise((resolve) => setTimeout(resolve, 100));
      expect(alive()).toEqual([]);
    } finally {
      server.kill("SIGKILL");
    }
  });

  it("cuts stdout at the output cap and says so", async () => {
    const files = await checkout();
    const result = await runShellCommand({
      checkout: files,
      command: "seq 1 100000",
      limits: { maxOutputChars: 1000, timeoutMs: 60_000 },
    });
    expect(result).toContain("[… stdout truncated: 1,000 of 588,895 characters shown]");
    expect(result.length).toBeLessThan(1200);
  });
});

describe("bash tool change sets", () => {
  it("refuses a whole command that would pass the 2,000-file limit, keeping none of it", async () => {
    const files = await checkout();
    const result = await runShellCommand({
      checkout: files,
      command:
        "echo changed > /persistent/user/notes.md; cd /persistent/user && touch f{1..2001}.md",
      limits: { timeoutMs: 60_000 },
    });
    expect(result).toContain("none of this command's 2002 file changes were kept");
    expect(result).toContain("the limit is 2000 files per dir");
    expect(files.listFiles({ path: "/persistent/user" }).map((file) => file.path)).toEqual([
      "/persistent/user/notes.md",
    ]);
    expect(await files.readFile({ path: "/persistent/user/notes.md" })).toBe("one\ntwo\nthree");
    expect(
      files.diff().every((dir) => dir.changes.created.length + dir.changes.updated.length === 0),
    ).toBe(true);
  });

  it("lists at most a bounded number of refused changes (finding 11)", async () => {
    const files = await checkout();
    const result = await runShellCommand({
      checkout: files,
      command: "touch /persistent/company/f{1..500}.md",
      limits: { timeoutMs: 60_000 },
    });
    expect(result).toContain(`[… and ${500 - MAX_LISTED_REFUSALS} more refused]`);
    expect(result.match(/^\/persistent\/company\/f\d+\.md: /gm)?.length).toBe(MAX_LISTED_REFUSALS);
    expect(result.length).toBeLessThan(10_000);
  });

  it("reports a symbolic link loop as not kept and keeps the rest (finding 17)", async () => {
    const files = await checkout();
    const result = await runShellCommand({
      checkout: files,
      command: "ln -s /persistent/user /persistent/user/loop; echo hi > /persistent/user/b.md",
    });
    expect(result).toContain("exit code 0");
    expect(result).toContain("/persistent/user/loop: symbolic links are not kept");
    expect(await files.readFile({ path: "/persistent/user/b.md" })).toBe("hi\n");
  });
});

describe("bash tool calls of one turn", () => {
  it("run one after another: a second call sees the first call's changes", async () => {
    const files = await checkout();
    const bash = createShellTool({ checkout: files, limits: { timeoutMs: 60_000 } });
    const call = (command: string, toolCallId: string) =>
      bash.execute!({ command }, { toolCallId, messages: [], context: {} }) as Promise<string>;
    const [first, second] = await Promise.all([
      call("echo first > /persistent/user/order.md", "a"),
      call("cat /persistent/user/order.md", "b"),
    ]);
    expect(first).toContain("exit code 0");
    expect(second).toContain('stdout:\n<untrusted-data source="bash stdout">\nfirst');
  });
});

describe("bash over a knowledge base larger than the shell", () => {
  // 20 files of 1 MiB: over the 16 MiB a 64 MiB worker may load.
  async function largeCheckout() {
    const backing = createInMemoryDirBacking({
      lazy: true,
      files: Object.fromEntries(
        Array.from({ length: 20 }, (_, i) => [
          `${i < 2 ? "small" : "big"}/f${i}.md`,
          `${i < 2 ? "needle\n" : ""}${"x".repeat(1024 * 1024)}`,
        ]),
      ),
    });
    return loadCheckout({
      dirs: [{ harnessDir: "/persistent/kb", ...backing }],
      extraBody: {},
      session: {},
    });
  }

  it("refuses a command that names no folder, saying how to narrow it, and runs nothing", async () => {
    const files = await largeCheckout();
    const result = await runShellCommand({
      checkout: files,
      command: "cd / && grep -rl needle . > found.txt",
      limits: { memoryMb: 64, timeoutMs: 60_000 },
    });
    expect(result).toMatch(/^Error: bash cannot load every persistent dir: 20 files, 20 MiB/);
    expect(result).toContain("Name a folder or file under /persistent");
    expect(files.listFiles()).toHaveLength(20);
  });

  it("runs a command over the folder it names, and says it saw only that folder", async () => {
    const files = await largeCheckout();
    const result = await runShellCommand({
      checkout: files,
      command: "grep -l needle -r /persistent/kb/small | wc -l",
      limits: { memoryMb: 64, timeoutMs: 60_000 },
    });
    expect(result).toContain("exit code 0");
    expect(result).toContain("saw only the 2 file(s) under /persistent/kb/small");
    expect(result).toMatch(/stdout:[\s\S]*\b2\b/);
  });
});
