import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";

// scripts/supervise.mjs keeps `npm start`'s next-server from outliving it. Stand-ins: a
// supervisor script that supervises a child which only writes its pid and idles.

const supervisor = path.resolve(import.meta.dirname, "supervise.mjs");
let folder: string;
const started: ChildProcess[] = [];

afterEach(async () => {
  for (const child of started.splice(0)) child.kill("SIGKILL");
  if (folder) await rm(folder, { recursive: true, force: true });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(check: () => boolean | Promise<boolean>, what: string, ms = 15_000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting until ${what}`);
}

/** Writes the supervisor and the child scripts; returns the command that starts the supervisor. */
async function scripts() {
  folder = await mkdtemp(path.join(tmpdir(), "cairn-supervise-"));
  const pidFile = path.join(folder, "child.pid");
  const childScript = path.join(folder, "child.mjs");
  await writeFile(
    childScript,
    `import { writeFileSync } from "node:fs";
     writeFileSync(${JSON.stringify(pidFile)}, String(process.pid));
     setInterval(() => {}, 1000);`,
  );
  const main = path.join(folder, "main.mjs");
  await writeFile(
    main,
    `import { supervise } from ${JSON.stringify(supervisor)};
     const result = await supervise(process.execPath, [${JSON.stringify(childScript)}], {
       parentPollMs: 100,
       watchAncestors: 2,
       spawn: { stdio: "ignore" },
     });
     process.exit(result.stopped ? 99 : result.code);`,
  );
  const childPid = async () => {
    await until(async () => (await readFile(pidFile, "utf8").catch(() => "")) !== "", "child up");
    return Number(await readFile(pidFile, "utf8"));
  };
  return { main, childPid };
}

describe("supervise (npm start's process handling)", () => {
  it("passes SIGTERM on to the child and exits once it has stopped", async () => {
    const { main, childPid } = await scripts();
    const parent = spawn(process.execPath, [main], { stdio: "ignore" });
    started.push(parent);
    const pid = await childPid();
    expect(alive(pid)).toBe(true);
    const exited = new Promise<number | null>((resolve) => parent.on("exit", resolve));
    parent.kill("SIGTERM");
    expect(await exited).toBe(99);
    await until(() => !alive(pid), "the child stopped");
  });

  it("stops the child when its own parent dies without passing a signal on", async () => {
    const { main, childPid } = await scripts();
    // A shell standing in for npm, killed outright: the supervisor gets no signal at all.
    const shell = spawn("sh", ["-c", `"${process.execPath}" "${main}"; true`], {
      stdio: "ignore",
    });
    started.push(shell);
    const pid = await childPid();
    shell.kill("SIGKILL");
    await until(() => !alive(pid), "the orphaned supervisor stopped the child");
  });

  it("stops the child when npm dies outright and leaves the shell between us running", async () => {
    const { main, childPid } = await scripts();
    // npm → sh -c → node: the outer shell stands for npm, the inner one outlives it, orphaned.
    const inner = `"${process.execPath}" "${main}"; true`;
    const npm = spawn("sh", ["-c", `sh -c '${inner}'; true`], { stdio: "ignore" });
    started.push(npm);
    const pid = await childPid();
    npm.kill("SIGKILL");
    await until(() => !alive(pid), "the supervisor noticed and stopped the child");
  });
});
