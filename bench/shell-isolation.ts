// Shell isolation (issue 14, findings 1 and 2; issue 31, finding 1): `/api/health` latency from
// another client while a member's `bash` call runs something hostile, against
// `next build && next start`.
//
// The scripted model calls `bash` with the loop (`awk`, ~10^10 iterations); the app runs
// it in a worker process that is killed at CAIRN_SHELL_TIMEOUT_MS. Meanwhile this script asks
// `/api/health` every 100 ms and prints the latencies: before (idle), during one runaway call,
// and during two at once (the per-user limit's maximum) — when a third turn is refused with 429.
// Then, one at a time, the commands of issue 31 that must not take the server down (the doubling
// loop to 2^25 — which aborted the server before — and to 2^30, a fork-bomb-like recursion, a
// 10 GB `seq`, and strings that pass just-bash's limits until the heap cap): each turn must
// answer with the shell's error, `/api/health` must answer within 1 s throughout, and the server
// must still be up afterwards. It also checks that an ordinary bash call works in the production
// build.
//
// Runs `node scripts/start.mjs` on $E2E_PORT (default 3170) with its own database under
// data/bench-shell, and the scripted model on $E2E_MODEL_PORT (default 3179); builds first when
// the sources changed. `npx tsx bench/shell-isolation.ts`.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import path from "node:path";
import { startScriptedModelServer } from "../e2e/support/scripted-model-server";
import { createDb, type Db } from "@/lib/db";
import { loadLine, ms, summarize, table } from "./stats";

const root = path.resolve(import.meta.dirname, "..");
const PORT = Number(process.env.E2E_PORT ?? 3170);
const MODEL_PORT = Number(process.env.E2E_MODEL_PORT ?? 3179);
const SHELL_TIMEOUT_MS = Number(process.env.CAIRN_SHELL_TIMEOUT_MS ?? 5_000);
const DATA_DIR = path.join(root, "data", "bench-shell");
const DATABASE_URL = `file:${path.join(DATA_DIR, "cairn.db")}`;
const APP_URL = `http://127.0.0.1:${PORT}`;
const EMAIL = "shell@example.com";
const PASSWORD = "shell-bench-pass";
const RUNAWAY = "awk 'BEGIN{for(i=0;i<100000;i++)for(j=0;j<100000;j++)s+=j;print s}'";
const HELLO =
  "echo hello from the worker > /persistent/user/hello.md && cat /persistent/user/hello.md";
/** Issue 31's commands, each in a turn of its own: [what the message says, the command]. */
const HOSTILE: [label: string, command: string][] = [
  ["doubling loop to 2^25 (issue 31)", "s=x; for i in $(seq 1 25); do s=$s$s; done; echo ${#s}"],
  ["doubling loop to 2^30", "s=x; for i in $(seq 1 30); do s=$s$s; done; echo ${#s}"],
  ["fork-bomb-like recursion", "f(){ f | f & }; f"],
  ["binary recursion", "f(){ f; f; }; f"],
  ["10 GB seq", "seq 1 1000000000000 | wc -l"],
  [
    "heap cap (6,000 strings of 65,000 chars)",
    's=$(printf "%065000d" 0); for i in $(seq 1 6000); do a[$i]="$s$i"; done; echo ${#a[@]}',
  ],
];
const sleep = (millis: number) => new Promise((resolve) => setTimeout(resolve, millis));

function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [path.join(root, "bin/cairn.mjs"), ...args],
      { cwd: root, env, timeout: 120_000 },
      (error, _stdout, stderr) => (error ? reject(new Error(stderr || error.message)) : resolve()),
    );
  });
}

function startApp(env: NodeJS.ProcessEnv, log: string[]): ChildProcess {
  const child = spawn(process.execPath, [path.join(root, "scripts/start.mjs")], {
    cwd: root,
    env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const keep = (chunk: Buffer) => {
    for (const line of chunk.toString("utf8").split("\n")) {
      if (!line.trim()) continue;
      log.push(line);
      if (log.length > 200) log.shift();
      if (/building|rebuilding|error/i.test(line)) console.error(`app: ${line}`);
    }
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  return child;
}

async function waitForHealth(app: ChildProcess, log: string[]): Promise<void> {
  const deadline = Date.now() + 20 * 60_000;
  while (Date.now() < deadline) {
    if (app.exitCode !== null || app.signalCode !== null)
      throw new Error(`The app exited before it was healthy:\n${log.slice(-30).join("\n")}`);
    try {
      if ((await fetch(`${APP_URL}/api/health`, { signal: AbortSignal.timeout(5_000) })).ok) return;
    } catch {
      // not up yet
    }
    await sleep(1_000);
  }
  throw new Error(`The app was not healthy within 20 min:\n${log.slice(-30).join("\n")}`);
}

async function stopApp(app: ChildProcess): Promise<void> {
  if (app.exitCode !== null || app.signalCode !== null || app.pid === undefined) return;
  const exited = new Promise<void>((resolve) => app.once("exit", () => resolve()));
  process.kill(-app.pid, "SIGTERM");
  if (!(await Promise.race([exited.then(() => true), sleep(10_000).then(() => false)])))
    process.kill(-app.pid, "SIGKILL");
}

function cookiePairs(setCookies: string[]): Map<string, string> {
  const pairs = new Map<string, string>();
  for (const header of setCookies) {
    const pair = header.split(";")[0]!;
    const eq = pair.indexOf("=");
    if (eq > 0) pairs.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
  }
  return pairs;
}

async function signIn(): Promise<string> {
  const csrf = await fetch(`${APP_URL}/api/auth/csrf`);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const jar = cookiePairs(csrf.headers.getSetCookie());
  const response = await fetch(`${APP_URL}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      cookie: [...jar].map(([name, value]) => `${name}=${value}`).join("; "),
    },
    body: new URLSearchParams({ csrfToken, email: EMAIL, password: PASSWORD }),
  });
  await response.arrayBuffer();
  const session = [...cookiePairs(response.headers.getSetCookie())].find(([name]) =>
    name.startsWith("authjs.session-token"),
  );
  if (!session) throw new Error(`Sign-in set no session cookie (status ${response.status}).`);
  return `${session[0]}=${session[1]}`;
}

/** Sends one message and reads the whole answer; returns the status, body and duration. */
async function turn(chatId: string, cookie: string, text: string) {
  const started = performance.now();
  const response = await fetch(`${APP_URL}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json", cookie, origin: APP_URL },
    body: JSON.stringify({
      chatId,
      message: { id: randomUUID(), role: "user", parts: [{ type: "text", text }] },
    }),
  });
  const body = await response.text();
  return { status: response.status, body, millis: performance.now() - started };
}

/**
 * Asks /api/health every 100 ms until `until` settles; returns each answer's latency. A request
 * that fails (the server is gone) or takes over 5 s counts in `failed` and ends the probing.
 */
async function healthWhile(until: Promise<unknown>): Promise<number[] & { failed?: number }> {
  let done = false;
  void until.finally(() => (done = true)).catch(() => undefined);
  const latencies: number[] & { failed?: number } = [];
  while (!done) {
    const started = performance.now();
    try {
      const response = await fetch(`${APP_URL}/api/health`, { signal: AbortSignal.timeout(5_000) });
      await response.arrayBuffer();
      latencies.push(performance.now() - started);
    } catch {
      latencies.failed = (latencies.failed ?? 0) + 1;
      break;
    }
    await sleep(100);
  }
  return latencies;
}

function row(measure: string, samples: number[] & { failed?: number }) {
  const summary = samples.length ? summarize(samples) : null;
  return {
    "/api/health": measure,
    n: samples.length,
    p50: summary ? ms(summary.p50) : "-",
    p95: summary ? ms(summary.p95) : "-",
    max: summary ? ms(Math.max(...samples)) : "-",
    "no answer": samples.failed ?? 0,
  };
}

/** The bash tool's output as the model received it (the text after `stopped`/`exit code`). */
function toolOutput(body: string): string {
  const match = /"output":"((?:[^"\\]|\\.)*)"/.exec(body);
  return match ? (JSON.parse(`"${match[1]}"`) as string) : "(no tool output in the stream)";
}

async function main(): Promise<void> {
  const log: string[] = [];
  let app: ChildProcess | null = null;
  let db: Db | null = null;
  const model = await startScriptedModelServer({ port: MODEL_PORT });
  try {
    model.setScript([
      {
        whenLastUserIncludes: "runaway",
        reply: { toolCalls: [{ name: "bash", arguments: { command: RUNAWAY } }] },
      },
      {
        whenLastUserIncludes: "hello",
        reply: { toolCalls: [{ name: "bash", arguments: { command: HELLO } }] },
      },
      ...HOSTILE.map(([, command], index) => ({
        whenLastUserIncludes: `hostile ${index}.`,
        reply: { toolCalls: [{ name: "bash", arguments: { command } }] },
      })),
    ]);
    rmSync(DATA_DIR, { recursive: true, force: true });
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(PORT),
      CAIRN_DATA_DIR: DATA_DIR,
      DATABASE_URL,
      AUTH_SECRET: "bench-shell-secret-not-for-production-0123456789",
      CAIRN_BCRYPT_COST: "4",
      AI_PROVIDER: "openai-compatible",
      AI_BASE_URL: model.baseURL,
      AI_MODEL: "scripted-model",
      AI_API_KEY: "x",
      CAIRN_SHELL_TIMEOUT_MS: String(SHELL_TIMEOUT_MS),
      NEXT_TELEMETRY_DISABLED: "1",
    };
    delete env.CAIRN_FAULT_INJECTION;
    await runCli(["db", "migrate"], env);
    await runCli(
      [
        "user",
        "create",
        "--email",
        EMAIL,
        "--password",
        PASSWORD,
        "--role",
        "member",
        "--workspace",
        "Shell",
      ],
      env,
    );
    db = createDb({
      provider: "sqlite",
      url: DATABASE_URL,
      filePath: path.join(DATA_DIR, "cairn.db"),
    });
    const user = await db.user.findUniqueOrThrow({ where: { email: EMAIL } });
    const workspace = await db.workspace.findUniqueOrThrow({ where: { name: "Shell" } });
    const chat = (title: string) =>
      db!.chat.create({ data: { workspaceId: workspace.id, userId: user.id, title } });
    const [helloChat, chatA, chatB, chatC, hostileChat] = await Promise.all(
      ["hello", "runaway A", "runaway B", "runaway C", "hostile"].map(chat),
    );

    app = startApp(env, log);
    await waitForHealth(app, log);
    const cookie = await signIn();

    const hello = await turn(helloChat!.id, cookie, "hello");
    const helloOutput = toolOutput(hello.body);
    const file = await db.persistentFile
      .findFirst({ where: { path: "hello.md" } })
      .catch(() => null);
    const idle = await healthWhile(sleep(3_000));

    const one = turn(chatA!.id, cookie, "runaway one");
    const duringOne = await healthWhile(one);
    const oneResult = await one;

    const a = turn(chatA!.id, cookie, "runaway two A");
    const b = turn(chatB!.id, cookie, "runaway two B");
    await sleep(500);
    const third = await turn(chatC!.id, cookie, "runaway three");
    const duringTwo = await healthWhile(Promise.all([a, b]));

    const hostile: {
      label: string;
      health: Awaited<ReturnType<typeof healthWhile>>;
      status: number;
      millis: number;
      output: string;
      up: boolean;
    }[] = [];
    for (const [index, [label]] of HOSTILE.entries()) {
      const running = turn(hostileChat!.id, cookie, `hostile ${index}.`).catch(
        (error: unknown) => ({
          status: 0,
          body: String(error),
          millis: Number.NaN,
        }),
      );
      const health = await healthWhile(running);
      const result = await running;
      const up =
        app.exitCode === null &&
        app.signalCode === null &&
        (await fetch(`${APP_URL}/api/health`).then(
          (response) => response.ok,
          () => false,
        ));
      hostile.push({
        label,
        health,
        status: result.status,
        millis: result.millis,
        output: toolOutput(result.body),
        up,
      });
      if (!up) break;
    }

    console.log(`shell isolation — ${loadLine()}, CAIRN_SHELL_TIMEOUT_MS=${SHELL_TIMEOUT_MS}\n`);
    console.log(
      table([
        row("idle", idle),
        row("during one runaway bash call", duringOne),
        row("during two at once", duringTwo),
      ]),
    );
    console.log(
      `\nordinary bash call: HTTP ${hello.status}, ${ms(hello.millis)}; tool output: ${JSON.stringify(helloOutput)}`,
    );
    console.log(
      `  hello.md committed: ${file ? "yes" : "not found in PersistentFile (see the Files page)"}`,
    );
    console.log(
      `runaway turn: HTTP ${oneResult.status}, ${ms(oneResult.millis)}; tool output: ${JSON.stringify(toolOutput(oneResult.body))}`,
    );
    console.log(`third concurrent turn: HTTP ${third.status} ${third.body}`);

    console.log(
      `\nissue 31's commands, one turn each (target: /api/health within 1 s, server up after)\n`,
    );
    console.log(
      table(
        hostile.map((entry) => ({
          ...row(entry.label, entry.health),
          turn: `HTTP ${entry.status}, ${ms(entry.millis)}`,
          "server up after": entry.up ? "yes" : "NO",
        })),
      ),
    );
    for (const entry of hostile) console.log(`  ${entry.label}: ${JSON.stringify(entry.output)}`);
    const fatal = log.filter((line) => /FATAL|heap limit/i.test(line));
    if (fatal.length) console.log(`\nthe app's log:\n${fatal.join("\n")}`);
    const missed = hostile.filter(
      (entry) =>
        !entry.up || entry.health.failed || entry.health.some((latency) => latency > 1_000),
    );
    if (missed.length || hostile.length < HOSTILE.length) {
      console.log(`\nTARGET MISSED: ${missed.map((entry) => entry.label).join(", ")}`);
      process.exitCode = 1;
    }
  } finally {
    if (app) await stopApp(app);
    await db?.$disconnect();
    await model.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
