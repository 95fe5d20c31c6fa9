// Load run (issue 5): 50 concurrent chats against `next start`, with a scripted
// OpenAI-compatible model whose answer streams for about 500 ms, reporting the latency the app
// adds on top of the model and checking that no memory commit is lost.
//
// Every turn: the model first calls the `memory` tool to create `/persistent/user/load-<n>.md`,
// then (after the tool result) streams a 10-word answer, one word per 50 ms. A timing proxy in
// front of the scripted server measures each model request from arrival to the end of its
// response, so "added latency" = the client's total turn time − the model's own time for that
// turn (both requests).
//
// Runs `node scripts/start.mjs` on $BENCH_LOAD_PORT (default 3300) with its own database under
// data/bench-load; builds first when the sources changed (shares `.next` with other builds, so
// it waits until no `next build` is running). `npx tsx bench/chat-load.ts` or `npm run bench`.
import { execFile, execFileSync, spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { pathToFileURL } from "node:url";
import {
  lastIsToolResult,
  lastUserText,
  startScriptedModelServer,
  type RecordedRequest,
  type ScriptedModelServer,
} from "../e2e/support/scripted-model-server";
import { createDb, type Db } from "@/lib/db";
import { loadLine, ms, summarize, table } from "./stats";

const root = path.resolve(import.meta.dirname, "..");
const CHATS = Number(process.env.BENCH_LOAD_CHATS ?? 50);
const PORT = Number(process.env.BENCH_LOAD_PORT ?? 3300);
const DATA_DIR = path.join(root, "data", "bench-load");
const DATABASE_URL = `file:${path.join(DATA_DIR, "cairn.db")}`;
const APP_URL = `http://127.0.0.1:${PORT}`;
const WORKSPACE = "Load";
/** The streamed answer: 10 words, `WORD_DELAY_MS` before each, ≈ 500 ms. */
const ANSWER_WORDS = 10;
const WORD_DELAY_MS = 50;
const CLI_PARALLELISM = 4;
const STARTUP_TIMEOUT_MS = 10 * 60_000;
const BUILD_WAIT_TIMEOUT_MS = 20 * 60_000;
const TURN_TIMEOUT_MS = 120_000;
const SETTLE_TIMEOUT_MS = 30_000;

const email = (index: number) => `load${index}@example.com`;
const password = (index: number) => `load-pass-${index}`;
const sleep = (millis: number) => new Promise((resolve) => setTimeout(resolve, millis));

/** The load index a model request belongs to (its user message says `load <n>`). */
function loadIndex(request: RecordedRequest): number | undefined {
  const match = /\bload (\d+)\b/.exec(lastUserText(request));
  return match ? Number(match[1]) : undefined;
}

export interface ModelSpan {
  index: number | undefined;
  started: number;
  ended: number;
}

/**
 * A pass-through HTTP proxy to the scripted model server that records, per request, when it
 * arrived and when its response ended: the model's own time, as the app sees it.
 */
export async function startTimingProxy(target: string, spans: ModelSpan[]): Promise<Server> {
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    const started = performance.now();
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      let index: number | undefined;
      try {
        const parsed = JSON.parse(body.toString("utf8")) as RecordedRequest;
        if (Array.isArray(parsed.messages)) index = loadIndex(parsed);
      } catch {
        // Not a chat request (e.g. GET /v1/models): no index.
      }
      const forward = httpRequest(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, "content-length": String(body.length) },
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          answer.on("end", () => spans.push({ index, started, ended: performance.now() }));
        },
      );
      forward.on("error", (error) => {
        if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" });
        res.end(String(error));
      });
      forward.end(body);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  return server;
}

/** Waits until no `next build` runs (another build in the same `.next` folder). */
async function waitForNoBuild(): Promise<void> {
  const deadline = Date.now() + BUILD_WAIT_TIMEOUT_MS;
  let said = false;
  for (;;) {
    let running = false;
    try {
      running = execFileSync("pgrep", ["-f", "next[ -]build"], { encoding: "utf8" }).trim() !== "";
    } catch {
      running = false; // pgrep exits 1 when nothing matches
    }
    if (!running) return;
    if (Date.now() > deadline)
      throw new Error("Gave up waiting for another `next build` to finish (20 min).");
    if (!said) console.error("chat-load: another `next build` is running; waiting for it…");
    said = true;
    await sleep(5_000);
  }
}

async function portIsFree(port: number): Promise<boolean> {
  try {
    await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(2_000) });
    return false;
  } catch {
    return true;
  }
}

function appEnv(modelBaseURL: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(PORT),
    CAIRN_DATA_DIR: DATA_DIR,
    DATABASE_URL,
    AUTH_SECRET: "bench-load-secret-not-for-production-0123456789",
    CAIRN_BCRYPT_COST: "4",
    AI_PROVIDER: "openai-compatible",
    AI_BASE_URL: modelBaseURL,
    AI_MODEL: "scripted-model",
    AI_API_KEY: "x",
    CAIRN_SIGNIN_LIMIT_IP: "1000",
    // Many turns by one person: the per-person turn rate (decision 0029) is not what is measured.
    CAIRN_TURNS_PER_MINUTE: "100000",
    NEXT_TELEMETRY_DISABLED: "1",
  };
  delete env.CAIRN_FAULT_INJECTION;
  return env;
}

function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [path.join(root, "bin/cairn.mjs"), ...args],
      { cwd: root, env, timeout: 120_000 },
      (error, _stdout, stderr) => {
        if (error)
          reject(
            new Error(`cairn ${args.slice(0, 2).join(" ")} failed: ${stderr || error.message}`),
          );
        else resolve();
      },
    );
  });
}

async function mapLimit<T, R>(items: T[], limit: number, run: (item: T) => Promise<R>) {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const position = next++;
      results[position] = await run(items[position]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** Starts `node scripts/start.mjs` in its own process group (so a build it runs stops too). */
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
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (app.exitCode !== null || app.signalCode !== null)
      throw new Error(
        `The app exited (${app.exitCode ?? app.signalCode}) before it was healthy:\n${log.slice(-30).join("\n")}`,
      );
    try {
      const response = await fetch(`${APP_URL}/api/health`, { signal: AbortSignal.timeout(5_000) });
      if (response.ok) return;
    } catch {
      // not up yet
    }
    await sleep(1_000);
  }
  throw new Error(`The app was not healthy within 10 min:\n${log.slice(-30).join("\n")}`);
}

async function stopApp(app: ChildProcess): Promise<void> {
  if (app.exitCode !== null || app.signalCode !== null || app.pid === undefined) return;
  const exited = new Promise<void>((resolve) => app.once("exit", () => resolve()));
  try {
    process.kill(-app.pid, "SIGTERM");
  } catch {
    app.kill("SIGTERM");
  }
  const done = await Promise.race([exited.then(() => true), sleep(10_000).then(() => false)]);
  if (!done) {
    try {
      process.kill(-app.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
}

/** Cookie header value from Set-Cookie headers (name=value pairs only). */
export function cookiePairs(setCookies: string[]): Map<string, string> {
  const pairs = new Map<string, string>();
  for (const header of setCookies) {
    const pair = header.split(";")[0]!;
    const eq = pair.indexOf("=");
    if (eq > 0) pairs.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
  }
  return pairs;
}

async function signIn(index: number): Promise<string> {
  const csrf = await fetch(`${APP_URL}/api/auth/csrf`);
  if (!csrf.ok) throw new Error(`GET /api/auth/csrf: ${csrf.status}`);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const jar = cookiePairs(csrf.headers.getSetCookie());
  const response = await fetch(`${APP_URL}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      cookie: [...jar].map(([name, value]) => `${name}=${value}`).join("; "),
    },
    body: new URLSearchParams({
      csrfToken,
      email: email(index),
      password: password(index),
      callbackUrl: `${APP_URL}/chat`,
    }),
  });
  await response.arrayBuffer();
  const session = [...cookiePairs(response.headers.getSetCookie())].find(([name]) =>
    name.startsWith("authjs.session-token"),
  );
  if (!session)
    throw new Error(
      `Sign-in of ${email(index)} set no session cookie (status ${response.status}, location ${response.headers.get("location")})`,
    );
  return `${session[0]}=${session[1]}`;
}

interface TurnTiming {
  index: number;
  status: number;
  ttfb: number;
  total: number;
  error?: string;
}

async function runTurn(index: number, chatId: string, cookie: string): Promise<TurnTiming> {
  const started = performance.now();
  let ttfb = Number.NaN;
  try {
    const response = await fetch(`${APP_URL}/api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie },
      body: JSON.stringify({
        chatId,
        message: {
          id: randomUUID(),
          role: "user",
          parts: [{ type: "text", text: `load ${index}` }],
        },
      }),
      signal: AbortSignal.timeout(TURN_TIMEOUT_MS),
    });
    const decoder = new TextDecoder();
    let body = "";
    if (response.body) {
      const reader = response.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (Number.isNaN(ttfb)) ttfb = performance.now() - started;
        body += decoder.decode(value, { stream: true });
      }
    }
    const total = performance.now() - started;
    let error: string | undefined;
    if (response.status !== 200) error = `HTTP ${response.status}: ${body.slice(0, 200)}`;
    else if (/"type":"error"/.test(body))
      error = `stream error: ${/"errorText":"[^"]*"/.exec(body)?.[0] ?? "?"}`;
    else if (!body.includes("[DONE]")) error = "stream ended without [DONE]";
    return { index, status: response.status, ttfb, total, error };
  } catch (error) {
    return {
      index,
      status: 0,
      ttfb,
      total: performance.now() - started,
      error: error instanceof Error ? error.message : String(error),
    };
  }
}

interface UserSetup {
  index: number;
  userId: string;
  chatId: string;
  cookie: string;
}

async function setUpUsers(db: Db, indexes: number[], env: NodeJS.ProcessEnv): Promise<UserSetup[]> {
  const create = (index: number) =>
    runCli(
      [
        "user",
        "create",
        "--email",
        email(index),
        "--password",
        password(index),
        "--role",
        "member",
        "--workspace",
        WORKSPACE,
      ],
      env,
    );
  // SQLite allows one writer: parallel CLIs (and the app's own start-up) can hit "database is
  // locked"; retry those a few times.
  const createWithRetry = async (index: number) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await create(index);
      } catch (error) {
        if (attempt >= 8 || !/database is locked|SQLITE_BUSY|timed out/i.test(String(error)))
          throw error;
        await sleep(200 * attempt);
      }
    }
  };
  // The first creates the workspace; the rest join it, a few at a time.
  await createWithRetry(indexes[0]!);
  await mapLimit(indexes.slice(1), CLI_PARALLELISM, createWithRetry);
  const workspace = await db.workspace.findUnique({ where: { name: WORKSPACE } });
  if (!workspace) throw new Error(`The CLI did not create workspace "${WORKSPACE}".`);
  const users = await db.user.findMany({ where: { email: { in: indexes.map(email) } } });
  const byEmail = new Map(users.map((user) => [user.email, user.id]));
  const setups: UserSetup[] = [];
  for (const index of indexes) {
    const userId = byEmail.get(email(index));
    if (!userId) throw new Error(`No user ${email(index)} after the CLI ran.`);
    const chat = await db.chat.create({
      data: { workspaceId: workspace.id, userId, title: `Load ${index}` },
    });
    setups.push({ index, userId, chatId: chat.id, cookie: "" });
  }
  return setups;
}

interface Verification {
  rows: Record<string, string | number>[];
  lost: number;
  openRecords: number;
}

async function verify(db: Db, setups: UserSetup[]): Promise<Verification> {
  // Turns are recorded as their streams finish: wait until none is running.
  const chatIds = setups.map((setup) => setup.chatId);
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  await sleep(2_000);
  while (
    Date.now() < deadline &&
    (await db.turn.count({ where: { chatId: { in: chatIds }, status: "running" } })) > 0
  )
    await sleep(500);

  const rows: Record<string, string | number>[] = [];
  let lost = 0;
  for (const setup of setups) {
    const dirKey = `user:${setup.userId}`;
    const files = await db.persistentFile.findMany({ where: { dirKey }, select: { path: true } });
    const commits = await db.dirCommit.count({ where: { dirKey } });
    const turns = await db.turn.findMany({
      where: { chatId: setup.chatId },
      select: { status: true, error: true },
    });
    const fileOk = files.length === 1 && files[0]!.path === `load-${setup.index}.md`;
    const ok = fileOk && commits === 1 && turns.length === 1 && turns[0]!.status === "completed";
    if (!ok) lost += 1;
    rows.push({
      user: email(setup.index),
      files: files.map((file) => file.path).join(",") || "-",
      commits,
      turns:
        turns
          .map((turn) => turn.status + (turn.error ? ` (${turn.error.slice(0, 60)})` : ""))
          .join(",") || "-",
      ok: ok ? "yes" : "NO",
    });
  }
  const openRecords = await db.dirCommitRecord.count({ where: { status: { not: "resolved" } } });
  return { rows, lost, openRecords };
}

export async function benchChatLoad(): Promise<string> {
  const spans: ModelSpan[] = [];
  let scripted: ScriptedModelServer | undefined;
  let proxy: Server | undefined;
  let app: ChildProcess | undefined;
  let db: Db | undefined;
  const log: string[] = [];
  try {
    if (!(await portIsFree(PORT)))
      throw new Error(`Port ${PORT} is in use; set BENCH_LOAD_PORT to a free port.`);

    scripted = await startScriptedModelServer({ port: 0 });
    const answer = Array.from({ length: ANSWER_WORDS }, (_, word) => `word${word + 1}`).join(" ");
    scripted.setScript([
      {
        whenLastIsToolResult: false,
        match: (request) => loadIndex(request) !== undefined,
        reply: (request) => {
          const index = loadIndex(request)!;
          return {
            toolCalls: [
              {
                name: "memory",
                arguments: {
                  command: "create",
                  path: `/persistent/user/load-${index}.md`,
                  file_text: `Load note ${index}\n`,
                },
              },
            ],
          };
        },
      },
      {
        whenLastIsToolResult: true,
        match: (request) => lastIsToolResult(request),
        reply: { text: answer, delayMs: WORD_DELAY_MS },
      },
    ]);
    proxy = await startTimingProxy(scripted.url, spans);
    const proxyURL = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/v1`;

    rmSync(DATA_DIR, { recursive: true, force: true });
    const env = appEnv(proxyURL);
    // Migrate up front so users can be created while the app builds/starts.
    await runCli(["db", "migrate"], env);

    const indexes = Array.from({ length: CHATS + 1 }, (_, index) => index); // 0 = warm-up
    db = createDb({
      provider: "sqlite",
      url: DATABASE_URL,
      filePath: path.join(DATA_DIR, "cairn.db"),
    });
    // Users and chats first, while nothing else writes the database.
    const setups = await setUpUsers(db, indexes, env);

    await waitForNoBuild();
    const startedAt = performance.now();
    app = startApp(env, log);
    await waitForHealth(app, log);
    const startup = performance.now() - startedAt;

    await mapLimit(setups, CLI_PARALLELISM, async (setup) => {
      setup.cookie = await signIn(setup.index);
    });

    // One warm-up turn (user 0), so the measured turns don't pay for first-request loading.
    const warm = await runTurn(0, setups[0]!.chatId, setups[0]!.cookie);
    if (warm.error) throw new Error(`Warm-up turn failed: ${warm.error}`);

    const measured = setups.slice(1);
    const batchStarted = performance.now();
    const timings = await Promise.all(
      measured.map((setup) => runTurn(setup.index, setup.chatId, setup.cookie)),
    );
    const batchWall = performance.now() - batchStarted;

    const modelTime = new Map<number, number>();
    const modelRequests = new Map<number, number>();
    for (const span of spans) {
      if (span.index === undefined) continue;
      modelTime.set(span.index, (modelTime.get(span.index) ?? 0) + (span.ended - span.started));
      modelRequests.set(span.index, (modelRequests.get(span.index) ?? 0) + 1);
    }
    const ok = timings.filter((timing) => !timing.error);
    const errors = timings.filter((timing) => timing.error);
    const total = summarize(ok.map((timing) => timing.total));
    const ttfb = summarize(ok.map((timing) => timing.ttfb));
    const model = summarize(ok.map((timing) => modelTime.get(timing.index) ?? Number.NaN));
    const added = summarize(
      ok.map((timing) => timing.total - (modelTime.get(timing.index) ?? Number.NaN)),
    );

    const check = await verify(db, measured);
    const figures = [
      {
        measure: "total turn",
        p50: ms(total.p50),
        p95: ms(total.p95),
        min: ms(total.min),
        mean: ms(total.mean),
      },
      {
        measure: "time to first byte",
        p50: ms(ttfb.p50),
        p95: ms(ttfb.p95),
        min: ms(ttfb.min),
        mean: ms(ttfb.mean),
      },
      {
        measure: "model (both requests)",
        p50: ms(model.p50),
        p95: ms(model.p95),
        min: ms(model.min),
        mean: ms(model.mean),
      },
      {
        measure: "added latency",
        p50: ms(added.p50),
        p95: ms(added.p95),
        min: ms(added.min),
        mean: ms(added.mean),
      },
    ];
    const badRequests = measured.filter((setup) => modelRequests.get(setup.index) !== 2).length;
    const failing = check.rows.filter((row) => row.ok !== "yes");
    return [
      `chat-load: ${measured.length} concurrent chats against next start (${APP_URL}), scripted model: memory tool call, then ${ANSWER_WORDS} words × ${WORD_DELAY_MS} ms; ${loadLine()}`,
      `app ready in ${ms(startup)} (incl. build if any); batch wall time ${ms(batchWall)}; warm-up turn ${ms(warm.total)}`,
      "",
      table(figures),
      "",
      `errors: ${errors.length}/${timings.length}${errors.length ? `\n${errors.map((timing) => `  load ${timing.index}: ${timing.error}`).join("\n")}` : ""}`,
      `model requests per turn ≠ 2: ${badRequests}`,
      `lost commits (users without exactly one file load-<n>.md, one DirCommit and one completed Turn): ${check.lost}; open DirCommitRecords: ${check.openRecords}`,
      "",
      table(check.rows),
      failing.length ? `${failing.length} user(s) not ok` : `all ${check.rows.length} users ok`,
    ].join("\n");
  } catch (error) {
    if (log.length) console.error(`chat-load: last app output:\n${log.slice(-20).join("\n")}`);
    throw error;
  } finally {
    await db?.$disconnect().catch(() => undefined);
    if (app) await stopApp(app);
    if (proxy) {
      proxy.closeAllConnections();
      await new Promise<void>((resolve) => proxy!.close(() => resolve()));
    }
    await scripted?.close().catch(() => undefined);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  benchChatLoad().then(
    (report) => {
      console.log(report);
      process.exit(0);
    },
    (error: unknown) => {
      console.error(error instanceof Error ? (error.stack ?? error.message) : error);
      process.exit(1);
    },
  );
}
