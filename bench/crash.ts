// Crash test (issue 10): real processes, real faults, then count what survived.
//
// Starts a throwaway PostgreSQL cluster (initdb + pg_ctl, as the `postgres` user when run as
// root) on $CRASH_PG_PORT (default 5441), the scripted OpenAI-compatible model in-process, and
// `next start` (through scripts/start.mjs with CAIRN_SKIP_BUILD=1: build once beforehand with
// `npx next build`) on $CRASH_PORT (default 3140). Each fault is one chat turn whose model calls
// the memory tool to create `/persistent/user/crash-<n>.md`, then streams a slow answer; the
// fault is injected at a chosen point:
//
//   kill-after-write       kill -9 the app right after the tool reported the write
//   kill-during-answer     kill -9 the app one second into the answer
//   kill-on-row-lock       hold the dir's row lock so the commit waits on it, kill -9 the app
//   db-stop-during-answer  stop PostgreSQL during the answer, start it again after the turn
//   db-stop-at-commit      stop PostgreSQL as the answer ends (the commit finds it gone)
//   db-stop-long           stop PostgreSQL during the answer, kill -9 the app, wait longer than
//                          the retry window, start both again
//
// After each fault: restart what was stopped, wait for recovery, then count. A completed turn's
// change must be committed; an interrupted turn's change must be listed on Commit failures
// (an open `interrupted` record); anything else is lost. A change committed and also listed, or
// committed twice, is duplicated. Turns still `running` after recovery are counted too.
//
//   npx tsx bench/crash.ts                 # 200 faults (CRASH_FAULTS to change)
//   npm run test:crash                     # the short version: 18 faults, exits 1 on any loss
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import {
  lastIsToolResult,
  lastUserText,
  startScriptedModelServer,
  type RecordedRequest,
} from "../e2e/support/scripted-model-server";

const root = path.resolve(import.meta.dirname, "..");
const CI = process.argv.includes("--ci");
const FAULTS = Number(process.env.CRASH_FAULTS ?? (CI ? 18 : 200));
const PORT = Number(process.env.CRASH_PORT ?? 3140);
const MODEL_PORT = Number(process.env.CRASH_MODEL_PORT ?? 3149);
const PG_PORT = Number(process.env.CRASH_PG_PORT ?? 5441);
const PG_BIN = process.env.CRASH_PG_BIN ?? "/usr/lib/postgresql/15/bin";
const APP_URL = `http://127.0.0.1:${PORT}`;
const DATABASE_URL = `postgresql://postgres@127.0.0.1:${PG_PORT}/postgres`;
/** Short on purpose so a run is quick; production defaults are 60 s and 6 attempts from 2 s. */
const LEASE_MS = 3_000;
const RETRY_DELAY_MS = 500;
const RETRY_ATTEMPTS = 4;
/** 0.5 + 1 + 2 s of backoff: a database away longer than this outlasts the retries. */
const RETRY_WINDOW_MS = RETRY_DELAY_MS * (2 ** (RETRY_ATTEMPTS - 1) - 1);
const ANSWER_WORDS = 20;
const WORD_DELAY_MS = 100;
const RECOVERY_TIMEOUT_MS = 90_000;

const KINDS = [
  "kill-after-write",
  "kill-during-answer",
  "kill-on-row-lock",
  "db-stop-during-answer",
  "db-stop-at-commit",
  "db-stop-long",
] as const;
type FaultKind = (typeof KINDS)[number];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const isRoot = process.getuid?.() === 0;

function runPg(binary: string, args: string[]): string {
  const command = path.join(PG_BIN, binary);
  return isRoot
    ? execFileSync("runuser", ["-u", "postgres", "--", command, ...args], { encoding: "utf8" })
    : execFileSync(command, args, { encoding: "utf8" });
}

const work = mkdtempSync(path.join(tmpdir(), "cairn-crash-"));
const pgData = path.join(work, "pg");
const dataDir = path.join(work, "data");
const spoolDir = path.join(dataDir, "spool");

function startPg() {
  runPg("pg_ctl", [
    "-D",
    pgData,
    "-l",
    path.join(work, "pg.log"),
    "-w",
    "-o",
    `-p ${PG_PORT} -k ${work} -c listen_addresses=127.0.0.1 -c client_connection_check_interval=500 -c fsync=on`,
    "start",
  ]);
}
function stopPg() {
  runPg("pg_ctl", ["-D", pgData, "-w", "-m", "fast", "stop"]);
}

function initPg() {
  if (isRoot) {
    chmodSync(work, 0o755);
    chownSync(work, uidOf("postgres"), gidOf("postgres"));
  }
  runPg("initdb", ["-D", pgData, "-U", "postgres", "--auth=trust", "-E", "UTF8"]);
  startPg();
}
function uidOf(user: string) {
  return Number(execFileSync("id", ["-u", user], { encoding: "utf8" }).trim());
}
function gidOf(user: string) {
  return Number(execFileSync("id", ["-g", user], { encoding: "utf8" }).trim());
}

function appEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(PORT),
    DATABASE_URL,
    CAIRN_DATA_DIR: dataDir,
    AUTH_SECRET: "crash-test-secret-not-for-production-0123456789",
    AUTH_TRUST_HOST: "true",
    CAIRN_BCRYPT_COST: "4",
    AI_PROVIDER: "openai-compatible",
    AI_BASE_URL: `http://127.0.0.1:${MODEL_PORT}/v1`,
    AI_MODEL: "scripted-model",
    AI_API_KEY: "x",
    CAIRN_SIGNIN_LIMIT_IP: "100000",
    // Many turns by one person: the per-person turn rate (decision 0029) is not what is measured.
    CAIRN_TURNS_PER_MINUTE: "100000",
    CAIRN_SKIP_BUILD: "1",
    CAIRN_TURN_LEASE_MS: String(LEASE_MS),
    CAIRN_DURABILITY_INTERVAL_MS: "500",
    CAIRN_COMMIT_RETRY_DELAY_MS: String(RETRY_DELAY_MS),
    CAIRN_COMMIT_RETRY_ATTEMPTS: String(RETRY_ATTEMPTS),
    NEXT_TELEMETRY_DISABLED: "1",
  };
  delete env.CAIRN_FAULT_INJECTION;
  return env;
}

const appLog: string[] = [];
let currentApp: ChildProcess | null = null;
function startApp(): ChildProcess {
  const child = spawn(process.execPath, [path.join(root, "scripts/start.mjs")], {
    cwd: root,
    env: appEnv(),
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const keep = (chunk: Buffer) => {
    for (const line of chunk.toString("utf8").split("\n")) {
      if (!line.trim()) continue;
      appLog.push(line);
      if (appLog.length > 300) appLog.shift();
    }
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  currentApp = child;
  return child;
}

async function waitForHealth(app: ChildProcess): Promise<void> {
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline) {
    if (app.exitCode !== null || app.signalCode !== null)
      throw new Error(`The app exited before it was healthy:\n${appLog.slice(-30).join("\n")}`);
    try {
      const response = await fetch(`${APP_URL}/api/health`, { signal: AbortSignal.timeout(3_000) });
      if (response.ok) return;
    } catch {
      // not up yet
    }
    await sleep(300);
  }
  throw new Error(`The app was not healthy within 3 min:\n${appLog.slice(-30).join("\n")}`);
}

/** kill -9 of the app's whole process group (start.mjs and `next start`). */
async function killApp(app: ChildProcess): Promise<void> {
  if (app.pid === undefined || app.exitCode !== null || app.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => app.once("exit", () => resolve()));
  try {
    process.kill(-app.pid, "SIGKILL");
  } catch {
    app.kill("SIGKILL");
  }
  await exited;
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

async function signIn(email: string, password: string): Promise<string> {
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
    body: new URLSearchParams({ csrfToken, email, password, callbackUrl: `${APP_URL}/chat` }),
  });
  await response.arrayBuffer();
  const session = [...cookiePairs(response.headers.getSetCookie())].find(([name]) =>
    name.startsWith("authjs.session-token"),
  );
  if (!session) throw new Error(`Sign-in set no session cookie (status ${response.status})`);
  return `${session[0]}=${session[1]}`;
}

/** Sends one turn and reads its stream to the end (or until the app dies). */
async function sendTurn(options: {
  chatId: string;
  cookie: string;
  messageId: string;
  text: string;
}): Promise<string> {
  try {
    const response = await fetch(`${APP_URL}/api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie: options.cookie },
      body: JSON.stringify({
        chatId: options.chatId,
        message: {
          id: options.messageId,
          role: "user",
          parts: [{ type: "text", text: options.text }],
        },
      }),
      signal: AbortSignal.timeout(120_000),
    });
    return await response.text();
  } catch (error) {
    return `connection ended: ${error instanceof Error ? error.message : String(error)}`;
  }
}

async function query<T extends pg.QueryResultRow>(sql: string, values: unknown[] = []) {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    return (await client.query<T>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

async function until(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if (await check()) return true;
    } catch {
      // the database may be restarting
    }
    await sleep(250);
  }
  return false;
}

interface Outcome {
  index: number;
  kind: FaultKind;
  answered: boolean;
  turnStatus: string;
  committed: number;
  listed: number;
  result: "committed" | "listed" | "lost" | "duplicated";
  running: number;
}

async function main() {
  console.error(
    `crash: ${FAULTS} faults; PostgreSQL on ${PG_PORT}, app on ${PORT}, model on ${MODEL_PORT}`,
  );
  initPg();
  const model = await startScriptedModelServer({ port: MODEL_PORT });
  model.setScript([
    {
      match: (request: RecordedRequest) =>
        /crash \d+/.test(lastUserText(request)) && !lastIsToolResult(request),
      reply: (request: RecordedRequest) => {
        const index = /crash (\d+)/.exec(lastUserText(request))![1];
        return {
          toolCalls: [
            {
              name: "memory",
              arguments: {
                command: "create",
                path: `/persistent/user/crash-${index}.md`,
                file_text: `fault ${index}\n`,
              },
            },
          ],
        };
      },
    },
    {
      whenLastIsToolResult: true,
      reply: {
        text: Array.from({ length: ANSWER_WORDS }, (_, word) => `word${word}`).join(" "),
        delayMs: WORD_DELAY_MS,
      },
    },
    { reply: { text: "ok" } },
  ]);

  const env = appEnv();
  execFileSync(process.execPath, [path.join(root, "bin/cairn.mjs"), "db", "migrate"], {
    cwd: root,
    env,
  });
  execFileSync(
    process.execPath,
    [
      path.join(root, "bin/cairn.mjs"),
      "user",
      "create",
      "--email",
      "crash@example.com",
      "--password",
      "crash-pass-123",
      "--role",
      "member",
      "--workspace",
      "Crash",
    ],
    { cwd: root, env },
  );
  const [user] = await query<{ id: string; workspaceId: string }>(
    `SELECT u.id, m."workspaceId" FROM "User" u JOIN "Membership" m ON m."userId" = u.id WHERE u.email = $1`,
    ["crash@example.com"],
  );
  const dirKey = `user:${user!.id}`;

  let app = startApp();
  await waitForHealth(app);
  const cookie = await signIn("crash@example.com", "crash-pass-123");
  const newChat = async (title: string) => {
    const id = randomUUID();
    await query(
      `INSERT INTO "Chat" (id, "workspaceId", "userId", title, "createdAt", "updatedAt") VALUES ($1, $2, $3, $4, now(), now())`,
      [id, user!.workspaceId, user!.id, title],
    );
    return id;
  };
  // A first turn creates the dir's version row (the row-lock fault needs it).
  await sendTurn({
    chatId: await newChat("warm-up"),
    cookie,
    messageId: randomUUID(),
    text: "crash 0",
  });

  const outcomes: Outcome[] = [];
  const started = Date.now();
  for (let index = 1; index <= FAULTS; index += 1) {
    const kind = KINDS[(index - 1) % KINDS.length]!;
    const chatId = await newChat(`fault ${index}`);
    const messageId = randomUUID();
    const requestsBefore = model.requests.length;
    const toolResultArrived = () =>
      model.requests
        .slice(requestsBefore)
        .some(
          (request) =>
            lastIsToolResult(request) && lastUserText(request).includes(`crash ${index}`),
        );
    let lock: pg.Client | null = null;
    const turn = sendTurn({ chatId, cookie, messageId, text: `crash ${index}` });
    if (!(await until(async () => toolResultArrived(), 60_000))) {
      const answer = await Promise.race([
        turn,
        new Promise<string>((resolve) => setTimeout(() => resolve("(no answer yet)"), 100)),
      ]);
      throw new Error(
        `fault ${index}: the tool result never reached the model; the chat route answered: ${answer.slice(0, 500)}\n${appLog.slice(-20).join("\n")}`,
      );
    }

    let appKilled = false;
    let pgStopped = false;
    switch (kind) {
      case "kill-after-write":
        await killApp(app);
        appKilled = true;
        break;
      case "kill-during-answer":
        await sleep(1_000);
        await killApp(app);
        appKilled = true;
        break;
      case "kill-on-row-lock": {
        lock = new pg.Client({ connectionString: DATABASE_URL });
        await lock.connect();
        await lock.query("BEGIN");
        await lock.query(`SELECT 1 FROM "PersistentDirState" WHERE "dirKey" = $1 FOR UPDATE`, [
          dirKey,
        ]);
        const waiting = await until(
          async () =>
            (await query<{ n: string }>(`SELECT count(*) AS n FROM pg_locks WHERE NOT granted`))[0]!
              .n !== "0",
          30_000,
        );
        if (!waiting) console.error(`fault ${index}: the commit never waited on the lock`);
        await killApp(app);
        appKilled = true;
        await lock.query("ROLLBACK");
        await lock.end();
        break;
      }
      case "db-stop-during-answer":
        await sleep(500);
        stopPg();
        pgStopped = true;
        await turn;
        await sleep(1_000);
        break;
      case "db-stop-at-commit":
        await sleep(ANSWER_WORDS * WORD_DELAY_MS - 150);
        stopPg();
        pgStopped = true;
        await turn;
        await sleep(1_000);
        break;
      case "db-stop-long":
        await sleep(500);
        stopPg();
        pgStopped = true;
        await turn;
        await sleep(500);
        await killApp(app);
        appKilled = true;
        await sleep(RETRY_WINDOW_MS + 2_000);
        break;
    }
    if (pgStopped) startPg();
    if (appKilled) {
      app = startApp();
      await waitForHealth(app);
    }
    // Completed: the answer ended and the turn's status part reached the client.
    const answered = (await turn).includes('"type":"data-turn"');

    // Recovery: the turn is closed, the spool is empty, and its change is committed or listed.
    const path_ = `crash-${index}.md`;
    const count = async () => {
      const [turnRow] = await query<{ status: string }>(
        `SELECT status FROM "Turn" WHERE "userMessageId" = $1`,
        [messageId],
      );
      const committed = Number(
        (
          await query<{ n: string }>(
            `SELECT count(*) AS n FROM "DirCommit" WHERE "dirKey" = $1 AND created::jsonb ? $2`,
            [dirKey, path_],
          )
        )[0]!.n,
      );
      const listed = Number(
        (
          await query<{ n: string }>(
            `SELECT count(*) AS n FROM "DirCommitRecord" WHERE status IN ('failed','conflict','interrupted') AND changes LIKE $1`,
            [`%"${path_}"%`],
          )
        )[0]!.n,
      );
      const retrying = Number(
        (
          await query<{ n: string }>(
            `SELECT count(*) AS n FROM "DirCommitRecord" WHERE status = 'failed' AND "nextAttemptAt" IS NOT NULL AND changes LIKE $1`,
            [`%"${path_}"%`],
          )
        )[0]!.n,
      );
      const running = Number(
        (
          await query<{ n: string }>(`SELECT count(*) AS n FROM "Turn" WHERE status = 'running'`)
        )[0]!.n,
      );
      return { turnStatus: turnRow?.status ?? "missing", committed, listed, retrying, running };
    };
    let last: Awaited<ReturnType<typeof count>> | null = null;
    await until(async () => {
      last = await count();
      const spoolEmpty =
        !existsSync(spoolDir) || readdirSync(spoolDir).every((name) => !name.endsWith(".json"));
      return (
        spoolEmpty &&
        last.running === 0 &&
        last.retrying === 0 &&
        last.turnStatus !== "running" &&
        last.committed + last.listed > 0
      );
    }, RECOVERY_TIMEOUT_MS);
    const final = last ?? (await count());
    const result: Outcome["result"] =
      final.committed + final.listed > 1
        ? "duplicated"
        : final.committed === 1
          ? "committed"
          : final.listed === 1
            ? "listed"
            : "lost";
    outcomes.push({
      index,
      kind,
      answered,
      turnStatus: final.turnStatus,
      committed: final.committed,
      listed: final.listed,
      result,
      running: final.running,
    });
    console.error(
      `fault ${String(index).padStart(3)} ${kind.padEnd(22)} ${answered ? "answered" : "cut off "} turn ${final.turnStatus.padEnd(11)} → ${result}`,
    );
  }
  const seconds = (Date.now() - started) / 1000;
  await killApp(app);
  await model.close();
  stopPg();

  const completed = outcomes.filter((outcome) => outcome.answered);
  const interrupted = outcomes.filter((outcome) => !outcome.answered);
  const lost = outcomes.filter((outcome) => outcome.result === "lost").length;
  const duplicated = outcomes.filter((outcome) => outcome.result === "duplicated").length;
  const running = outcomes.at(-1)?.running ?? 0;
  const byKind = KINDS.map((kind) => {
    const of = outcomes.filter((outcome) => outcome.kind === kind);
    return `| ${kind} | ${of.length} | ${of.filter((o) => o.result === "committed").length} | ${of.filter((o) => o.result === "listed").length} | ${of.filter((o) => o.result === "lost").length} | ${of.filter((o) => o.result === "duplicated").length} |`;
  });
  console.log(`\nCrash test: ${outcomes.length} faults in ${seconds.toFixed(0)} s\n`);
  console.log("| fault | runs | committed | listed (interrupted) | lost | duplicated |");
  console.log("| --- | --- | --- | --- | --- | --- |");
  for (const line of byKind) console.log(line);
  console.log(
    `\ncompleted turns' changes committed: ${completed.filter((o) => o.result === "committed").length}/${completed.length}`,
  );
  console.log(
    `interrupted turns' changes listed: ${interrupted.filter((o) => o.result === "listed").length}/${interrupted.length}`,
  );
  console.log(`lost: ${lost}, duplicated: ${duplicated}, turns left running: ${running}`);
  const bad =
    outcomes.filter((o) => o.result === "lost" || o.result === "duplicated").length +
    (running > 0 ? 1 : 0);
  console.log(`crash: ${outcomes.length - bad} passed, ${bad} failed`);
  rmSync(work, { recursive: true, force: true });
  process.exitCode = bad > 0 ? 1 : 0;
}

main().catch(async (error: unknown) => {
  console.error(error);
  console.error(appLog.slice(-40).join("\n"));
  if (currentApp) await killApp(currentApp);
  try {
    stopPg();
  } catch {
    // already stopped
  }
  process.exitCode = 1;
});
