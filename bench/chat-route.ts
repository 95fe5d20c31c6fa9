// The chat route's cost on the server (issue 12, item 3): drives `POST /api/chat` on `next start`
// (the production build in `.next`, not rebuilt here) with the scripted OpenAI-compatible model, at
// the medium workload (1,000 harness entries, 200 files in the user's memory dir), on SQLite and
// on PostgreSQL (a fresh database on $BENCH_PG_URL's server), and reports:
//
// - server CPU per turn: the server process tree's CPU time (utime+stime from /proc/<pid>/stat)
//   before and after N sequential turns, divided by N; per-turn p50/p95 from the threads'
//   /proc/<pid>/task/*/schedstat (nanoseconds; /proc/stat counts 10 ms ticks);
// - added latency per turn p50/p95: the client's wall time minus the scripted model's own time
//   (a timing proxy in front of the model measures each model request, as in chat-load.ts);
// - a concurrency run: $BENCH_ROUTE_CHATS (50) users each send one turn at once; added p95 and
//   lost commits (turns whose memory file did not land in the user's dir).
//
// Every turn: the model calls the `memory` tool to create `/persistent/user/load-<n>.md`, then
// streams a 10-word answer ($BENCH_ROUTE_WORD_DELAY ms before each word, default 20).
//
//   npx tsx bench/chat-route.ts                      # both databases
//   BENCH_ROUTE_DB=sqlite npx tsx bench/chat-route.ts
//   npx tsx bench/chat-route.ts --cpu-prof           # also profile the server, print top 25
//   npx tsx bench/chat-route.ts --summarize-prof <file.cpuprofile>
//
// Env: BENCH_ROUTE_PORT (3190), BENCH_ROUTE_TURNS (20 sequential), BENCH_ROUTE_CHATS (50),
// BENCH_ROUTE_DB (sqlite,postgresql), BENCH_PG_URL (postgresql://postgres@127.0.0.1:5432/postgres),
// BENCH_ROUTE_WARMUP (3), BENCH_ROUTE_NODE_FLAGS (extra node flags for the server),
// BENCH_PG_DB_PREFIX (cairn_bench_route_), BENCH_ROUTE_INSTANCES (1; PostgreSQL: n servers on
// ports PORT…PORT+n-1 share the database, the burst is spread over them), BENCH_ROUTE_KEEP_DB
// (1: keep the seeded database and print its URL).
// Needs a build: `npx next build` first (this bench never builds).
import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { SourceMap } from "node:module";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { pathToFileURL } from "node:url";
import pg from "pg";
import { lastIsToolResult, startScriptedModelServer } from "../e2e/support/scripted-model-server";
import { createDb, migrateDatabase, type DatabaseTarget, type Db } from "@/lib/db";
import type { Actor } from "@/lib/harness";
import { companyDirKey, userDirKey } from "@/lib/workspace-dirs";
import { reindexAll } from "@/lib/search/index-store";
import { createDirBacking, sqlForDb } from "@/lib/sql-storage";
import { cookiePairs, startTimingProxy, type ModelSpan } from "./chat-load";
import { loadLine, ms, summarize, table } from "./stats";
import { noteContent, seedEntries } from "./turn-overhead";

const root = path.resolve(import.meta.dirname, "..");
const PORT = Number(process.env.BENCH_ROUTE_PORT ?? 3190);
const APP_URL = `http://127.0.0.1:${PORT}`;
/**
 * `next start` instances on the PostgreSQL database (ports PORT, PORT+1, …); the burst's chats
 * are spread over them round-robin. SQLite always runs one.
 */
const INSTANCES = Math.max(1, Number(process.env.BENCH_ROUTE_INSTANCES ?? 1));
const urlOf = (instance: number) => `http://127.0.0.1:${PORT + instance}`;
const TURNS = Number(process.env.BENCH_ROUTE_TURNS ?? 20);
const CHATS = Number(process.env.BENCH_ROUTE_CHATS ?? 50);
/**
 * Warm-up turns before the measured ones (BENCH_ROUTE_WARMUP, default 3), by user 0 in chats of
 * their own (ten turns each), so the measured chat starts empty whatever the warm-up: a long
 * warm-up shows the steady state of a server whose code the JIT has optimized.
 */
const WARMUP = Number(process.env.BENCH_ROUTE_WARMUP ?? 3);
const ENTRIES = 1_000;
const FILES = 200;
/**
 * Issue 23's scaled workload: the sequential user's memory dir (`BENCH_ROUTE_MEMORY_FILES`,
 * default 200 like everyone's) and the workspace's company knowledge (`BENCH_ROUTE_COMPANY_FILES`
 * files of ~5 KB in 37 folders, default none). With company files the index is rebuilt after
 * seeding (`reindexAll`), so the prompt's passages search the whole knowledge base; compare
 * `BENCH_ROUTE_MEMORY_FILES=5000 BENCH_ROUTE_COMPANY_FILES=100000` with `…=200 …=200`.
 */
const MEMORY_FILES = Number(process.env.BENCH_ROUTE_MEMORY_FILES ?? FILES);
const COMPANY_FILES = Number(process.env.BENCH_ROUTE_COMPANY_FILES ?? 0);
const SEED_BATCH = 2_000;
const ANSWER_WORDS = 10;
const WORD_DELAY_MS = Number(process.env.BENCH_ROUTE_WORD_DELAY ?? 20);
const PG_URL = process.env.BENCH_PG_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const DBS = (process.env.BENCH_ROUTE_DB ?? "sqlite,postgresql").split(",") as Array<
  "sqlite" | "postgresql"
>;
/** Name prefix of the throwaway PostgreSQL database (a shared server: give each engineer their own). */
const PG_DB_PREFIX = process.env.BENCH_PG_DB_PREFIX ?? "cairn_bench_route_";
const PROF_DIR = path.join(root, "bench/results/prof");
const WORKSPACE = "Route";
const TURN_TIMEOUT_MS = 180_000;
const CLK_TCK = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;

const sleep = (millis: number) => new Promise((resolve) => setTimeout(resolve, millis));
const email = (index: number) => `route${index}@example.com`;
const password = (index: number) => `route-pass-${index}`;

// ---------------------------------------------------------------- /proc readings

/** The pid and every descendant's pid (next start may fork workers). */
export function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const ppid = Number(fields[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone
    }
  }
  const tree = [pid];
  for (let index = 0; index < tree.length; index++)
    tree.push(...(children.get(tree[index]!) ?? []));
  return tree;
}

/** utime + stime of the process tree, in ms (10 ms resolution). */
export function treeCpuMs(pid: number): number {
  let ticks = 0;
  for (const member of processTree(pid)) {
    try {
      const stat = readFileSync(`/proc/${member}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      // fields[0] is field 3 (state): utime is field 14, stime field 15.
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // gone
    }
  }
  return (ticks * 1000) / CLK_TCK;
}

/** Run time of every live thread of the process tree, in ms (nanosecond resolution). */
export function treeRuntimeMs(pid: number): number {
  let ns = 0;
  for (const member of processTree(pid)) {
    try {
      for (const task of readdirSync(`/proc/${member}/task`)) {
        ns += Number(readFileSync(`/proc/${member}/task/${task}/schedstat`, "utf8").split(" ")[0]);
      }
    } catch {
      // gone
    }
  }
  return ns / 1e6;
}

// ---------------------------------------------------------------- database setup

interface Setup {
  target: DatabaseTarget;
  db: Db;
  env: NodeJS.ProcessEnv;
  users: Array<{ index: number; userId: string; chatId: string; cookie: string }>;
  /** User 0's warm-up chats. */
  warmChatIds: string[];
  cleanup: () => Promise<void>;
  seedMs: number;
}

async function setUp(provider: "sqlite" | "postgresql", modelURL: string): Promise<Setup> {
  const dataDir = path.join(root, "data", `bench-route-${provider}`);
  rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(dataDir, { recursive: true });
  let target: DatabaseTarget;
  let dropDatabase = async () => {};
  if (provider === "sqlite") {
    const filePath = path.join(dataDir, "cairn.db");
    target = { provider, url: `file:${filePath}`, filePath };
  } else {
    const name = `${PG_DB_PREFIX}${Date.now()}`;
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const url = new URL(PG_URL);
    url.pathname = `/${name}`;
    target = { provider, url: url.toString() };
    dropDatabase = async () => {
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    };
  }
  await migrateDatabase({ target });
  const db = createDb(target);
  const started = performance.now();
  // Cheap hashes for the bench users (read when the module loads, hence the late import).
  process.env.CAIRN_BCRYPT_COST = "4";
  const { createUserInWorkspace } = await import("@/lib/accounts");
  const users: Setup["users"] = [];
  const warmChatIds: string[] = [];
  // User 0 runs the sequential turns; users 1..CHATS the concurrency run.
  for (let index = 0; index <= CHATS; index++) {
    const { user, workspace } = await createUserInWorkspace(sqlForDb(db), {
      email: email(index),
      password: password(index),
      role: index === 0 ? "admin" : "member",
      workspaceName: WORKSPACE,
    });
    const chat = await db.chat.create({
      data: { workspaceId: workspace.id, userId: user.id, title: `Route ${index}` },
    });
    const actor: Actor = { userId: user.id, workspaceId: workspace.id, role: "admin" };
    if (index === 0) {
      for (let warm = 0; warm < Math.ceil(WARMUP / 10); warm++) {
        const chat = await db.chat.create({
          data: { workspaceId: workspace.id, userId: user.id, title: `Warm-up ${warm}` },
        });
        warmChatIds.push(chat.id);
      }
      // 1,000 entries, nine in ten global (so every user of the workspace sees them).
      await seedEntries({ db, target, actor, chatId: chat.id, count: ENTRIES });
    }
    await seedDir({
      db,
      dirKey: userDirKey(actor),
      harnessDir: "/persistent/user",
      count: index === 0 ? MEMORY_FILES : FILES,
      file: (file) => ({
        path: `notes/note-${String(file).padStart(4, "0")}.md`,
        content: noteContent(file),
      }),
    });
    if (index === 0 && COMPANY_FILES > 0) {
      await seedDir({
        db,
        dirKey: companyDirKey(actor),
        harnessDir: "/persistent/company",
        count: COMPANY_FILES,
        file: (file) => ({
          path: `area-${file % 37}/topic-${Math.floor(file / 37) % 27}/doc-${file}.md`,
          content: companyDocContent(file),
        }),
      });
    }
    users.push({ index, userId: user.id, chatId: chat.id, cookie: "" });
  }
  if (COMPANY_FILES > 0) await reindexAll(sqlForDb(db));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(PORT),
    NODE_ENV: "production",
    CAIRN_DATA_DIR: dataDir,
    DATABASE_URL: target.url,
    AUTH_SECRET: "bench-route-secret-not-for-production-0123456789",
    AUTH_TRUST_HOST: "true",
    AI_PROVIDER: "openai-compatible",
    AI_BASE_URL: modelURL,
    AI_MODEL: "scripted-model",
    AI_API_KEY: "x",
    CAIRN_SIGNIN_LIMIT_IP: "100000",
    // Many turns by one person: the per-person turn rate (decision 0029) is not what is measured.
    CAIRN_TURNS_PER_MINUTE: "100000",
    NEXT_TELEMETRY_DISABLED: "1",
    CHECKPOINT_DISABLE: "1",
  };
  delete env.CAIRN_FAULT_INJECTION;
  delete env.NODE_OPTIONS;
  return {
    target,
    db,
    env,
    users,
    warmChatIds,
    seedMs: performance.now() - started,
    cleanup: async () => {
      await db.$disconnect().catch(() => undefined);
      await dropDatabase().catch(() => undefined);
    },
  };
}

// ---------------------------------------------------------------- server

function startServer(
  env: NodeJS.ProcessEnv,
  profile: boolean,
  log: string[],
  port = PORT,
): ChildProcess {
  if (!existsSync(path.join(root, ".next", "BUILD_ID")))
    throw new Error("No production build in .next: run `npx next build` first.");
  const args = [
    ...(process.env.BENCH_ROUTE_NODE_FLAGS?.split(/\s+/).filter(Boolean) ?? []),
    ...(profile ? ["--cpu-prof", "--cpu-prof-dir", PROF_DIR] : []),
    path.join(root, "node_modules/next/dist/bin/next"),
    "start",
    "-p",
    String(port),
    "-H",
    "127.0.0.1",
  ];
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...env, PORT: String(port) },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const keep = (chunk: Buffer) => {
    for (const line of chunk.toString("utf8").split("\n")) {
      if (!line.trim()) continue;
      log.push(line);
      if (log.length > 200) log.shift();
    }
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  return child;
}

async function waitForHealth(app: ChildProcess, log: string[], appUrl = APP_URL) {
  const deadline = Date.now() + 5 * 60_000;
  while (Date.now() < deadline) {
    if (app.exitCode !== null || app.signalCode !== null)
      throw new Error(`The app exited before it was healthy:\n${log.slice(-30).join("\n")}`);
    try {
      const response = await fetch(`${appUrl}/api/health`, { signal: AbortSignal.timeout(5_000) });
      if (response.ok) return;
    } catch {
      // not up yet
    }
    await sleep(500);
  }
  throw new Error(`The app was not healthy within 5 min:\n${log.slice(-30).join("\n")}`);
}

/** SIGTERM (next exits through process.exit, so --cpu-prof writes its file), then SIGKILL. */
async function stopServer(app: ChildProcess) {
  if (app.exitCode !== null || app.signalCode !== null || app.pid === undefined) return;
  const exited = new Promise<void>((resolve) => app.once("exit", () => resolve()));
  app.kill("SIGTERM");
  const done = await Promise.race([exited.then(() => true), sleep(30_000).then(() => false)]);
  if (!done) {
    try {
      process.kill(-app.pid, "SIGKILL");
    } catch {
      // gone
    }
  }
}

// ---------------------------------------------------------------- client

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
      origin: APP_URL,
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
    throw new Error(`Sign-in of ${email(index)} set no session cookie (${response.status})`);
  return `${session[0]}=${session[1]}`;
}

interface Turn {
  load: number;
  total: number;
  error?: string;
  /** 409s answered before the turn started: the chat's previous turn was still being recorded. */
  busy: number;
}

/**
 * One turn. The previous turn of the chat holds the chat's claim until it is recorded, which
 * happens just after its stream ends: a 409 is retried after 20 ms (the wait counts as added
 * latency) and counted.
 */
async function runTurn(
  load: number,
  chatId: string,
  cookie: string,
  appUrl = APP_URL,
): Promise<Turn> {
  const started = performance.now();
  let busy = 0;
  for (;;) {
    const turn = await tryTurn(load, chatId, cookie, appUrl, started);
    if (!turn.error?.startsWith("HTTP 409") || performance.now() - started > 10_000)
      return { ...turn, busy };
    busy++;
    await sleep(20);
  }
}

async function tryTurn(
  load: number,
  chatId: string,
  cookie: string,
  appUrl: string,
  started: number,
): Promise<Omit<Turn, "busy">> {
  try {
    const response = await fetch(`${appUrl}/api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie, origin: appUrl },
      body: JSON.stringify({
        chatId,
        message: {
          id: randomUUID(),
          role: "user",
          parts: [{ type: "text", text: `load ${load}` }],
        },
      }),
      signal: AbortSignal.timeout(TURN_TIMEOUT_MS),
    });
    const body = await response.text();
    const total = performance.now() - started;
    let error: string | undefined;
    if (response.status !== 200) error = `HTTP ${response.status}: ${body.slice(0, 200)}`;
    else if (/"type":"error"/.test(body))
      error = `stream error: ${/"errorText":"[^"]*"/.exec(body)?.[0] ?? "?"}`;
    else if (!body.includes("[DONE]")) error = "stream ended without [DONE]";
    return { load, total, error };
  } catch (error) {
    return { load, total: performance.now() - started, error: String(error) };
  }
}

/** The commit errors in a turn's persistence record, compacted to one line. */
function persistenceError(text: string | null): string {
  if (!text) return "none";
  try {
    const record = JSON.parse(text) as {
      status: string;
      commits?: Array<{ status: string; error?: { code?: string; message?: string } }>;
    };
    const errors = (record.commits ?? [])
      .filter((commit) => commit.error)
      .map(
        (commit) =>
          `${commit.error!.code}: ${(commit.error!.message ?? "").replace(/\s+/g, " ").trim().slice(-400)}`,
      );
    return `${record.status}${errors.length ? ` — ${errors.join("; ")}` : ""}`;
  } catch {
    return text.slice(0, 200);
  }
}

/** Whether turn `load`'s memory file landed in the user's dir. */
async function landed(db: Db, userId: string, load: number): Promise<boolean> {
  const file = await db.persistentFile.findFirst({
    where: { dirKey: `user:${userId}`, path: `load-${load}.md` },
    select: { path: true },
  });
  return Boolean(file);
}

// ---------------------------------------------------------------- one database

interface DbResult {
  rows: Record<string, string | number>[];
  notes: string[];
  windows: { sequential: Window; burst: Window };
}

/**
 * The medium turn's script: a user message "load N" gets a `memory` tool call creating
 * `/persistent/user/load-N.md`, and the tool's result gets `answer` a word at a time (also used
 * by `stack-floor.ts`, so both benches time the same turn).
 */
export function scriptMemoryTurn(
  scripted: Awaited<ReturnType<typeof startScriptedModelServer>>,
  options: { answer: string; wordDelayMs: number },
): void {
  scripted.setScript([
    {
      whenLastIsToolResult: false,
      match: (request) => /\bload (\d+)\b/.test(JSON.stringify(request.messages.at(-1))),
      reply: (request) => {
        const load = /\bload (\d+)\b/.exec(JSON.stringify(request.messages.at(-1)))![1];
        return {
          toolCalls: [
            {
              name: "memory",
              arguments: {
                command: "create",
                path: `/persistent/user/load-${load}.md`,
                file_text: `Route note ${load}\n`,
              },
            },
          ],
        };
      },
    },
    {
      whenLastIsToolResult: true,
      match: (request) => lastIsToolResult(request),
      reply: { text: options.answer, delayMs: options.wordDelayMs },
    },
  ]);
}

async function benchOne(provider: "sqlite" | "postgresql", profile: boolean): Promise<DbResult> {
  const spans: ModelSpan[] = [];
  const scripted = await startScriptedModelServer({ port: 0 });
  const answer = Array.from({ length: ANSWER_WORDS }, (_, word) => `word${word + 1}`).join(" ");
  scriptMemoryTurn(scripted, { answer, wordDelayMs: WORD_DELAY_MS });
  const proxy: Server = await startTimingProxy(scripted.url, spans);
  const modelURL = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/v1`;
  const log: string[] = [];
  let app: ChildProcess | undefined;
  const others: ChildProcess[] = [];
  const instances = provider === "postgresql" ? INSTANCES : 1;
  let setup: Setup | undefined;
  try {
    setup = await setUp(provider, modelURL);
    const { db, users } = setup;
    app = startServer(setup.env, profile, log);
    // More instances on the same database, each with its own data dir (spool, journal files).
    for (let instance = 1; instance < instances; instance++) {
      const dataDir = path.join(setup.env.CAIRN_DATA_DIR!, `instance-${instance}`);
      mkdirSync(dataDir, { recursive: true });
      others.push(
        startServer({ ...setup.env, CAIRN_DATA_DIR: dataDir }, false, log, PORT + instance),
      );
    }
    await waitForHealth(app, log);
    for (const [index, other] of others.entries())
      await waitForHealth(other, log, urlOf(index + 1));
    const pid = app.pid!;
    const pids = [pid, ...others.map((other) => other.pid!)];
    for (const user of users) user.cookie = await signIn(user.index);
    const modelTime = (load: number) =>
      spans
        .filter((span) => span.index === load)
        .reduce((sum, span) => sum + span.ended - span.started, 0);

    // Sequential turns by user 0 in one chat: warm-up, then TURNS measured.
    const seq = users[0]!;
    let load = 10_000;
    for (let turn = 0; turn < WARMUP; turn++) {
      const result = await runTurn(load++, setup.warmChatIds[Math.floor(turn / 10)]!, seq.cookie);
      if (result.error) throw new Error(`warm-up turn failed: ${result.error}`);
    }
    await sleep(500);
    const cpuPerTurn: number[] = [];
    const added: number[] = [];
    const errors: string[] = [];
    let lostSeq = 0;
    let busySeq = 0;
    const cpuBefore = treeCpuMs(pid);
    const seqStarted = performance.now();
    const seqFrom = monotonicMicros();
    for (let turn = 0; turn < TURNS; turn++) {
      const runBefore = treeRuntimeMs(pid);
      const result = await runTurn(load, seq.chatId, seq.cookie);
      cpuPerTurn.push(treeRuntimeMs(pid) - runBefore);
      busySeq += result.busy;
      if (result.error) errors.push(result.error);
      else added.push(result.total - modelTime(load));
      load++;
    }
    const seqWall = performance.now() - seqStarted;
    const seqTo = monotonicMicros();
    const cpuTotal = treeCpuMs(pid) - cpuBefore;
    await sleep(1_000); // turns are recorded as their streams finish
    for (let turn = 0; turn < TURNS; turn++)
      if (!(await landed(db, seq.userId, load - TURNS + turn))) lostSeq++;
    const seqLoad = loadLine();

    // Concurrency: users 1..CHATS, one turn each, all at once.
    const burstUsers = users.slice(1);
    const instanceOf = (position: number) => position % instances;
    const burstCpuBefore = pids.map((member) => treeCpuMs(member));
    const burstStarted = performance.now();
    const burstFrom = monotonicMicros();
    const burst = await Promise.all(
      burstUsers.map(async (user, position) => {
        const turn = await runTurn(
          user.index,
          user.chatId,
          user.cookie,
          urlOf(instanceOf(position)),
        );
        return { ...turn, instance: instanceOf(position), ended: performance.now() };
      }),
    );
    const burstWall = performance.now() - burstStarted;
    const burstTo = monotonicMicros();
    const burstCpuEach = pids.map((member, index) => treeCpuMs(member) - burstCpuBefore[index]!);
    const burstCpu = burstCpuEach.reduce((sum, cpu) => sum + cpu, 0);
    const burstLoad = loadLine();
    // Turns are recorded as their streams finish: wait until none is running (up to 60 s).
    const settleStarted = performance.now();
    await sleep(1_000);
    while (
      performance.now() - settleStarted < 60_000 &&
      (await db.turn.count({ where: { status: "running" } })) > 0
    )
      await sleep(500);
    const settle = performance.now() - settleStarted;
    let lost = 0;
    const lostDetails: string[] = [];
    for (const user of burstUsers) {
      if (await landed(db, user.userId, user.index)) continue;
      lost++;
      const turns = await db.turn.findMany({
        where: { chatId: user.chatId },
        select: { status: true, error: true, persistence: true },
      });
      lostDetails.push(
        `  lost (load ${user.index}): turn ${turns.map((turn) => `${turn.status}${turn.error ? ` (${turn.error.slice(0, 160)})` : ""} persistence ${persistenceError(turn.persistence)}`).join(", ") || "none"}`,
      );
    }
    const burstOk = burst.filter((turn) => !turn.error);
    const perInstance =
      instances === 1
        ? []
        : pids.map((_, instance) => {
            const mine = burst.filter((turn) => turn.instance === instance);
            const ok = mine.filter((turn) => !turn.error);
            const added = summarize(ok.map((turn) => turn.total - modelTime(turn.load)));
            const wall = Math.max(...mine.map((turn) => turn.ended - burstStarted));
            return `  instance ${instance + 1} (${urlOf(instance)}): ${ok.length}/${mine.length} turns ok in ${ms(wall)} = ${(ok.length / (wall / 1000)).toFixed(1)} turns/s; CPU ${ms(burstCpuEach[instance]! / Math.max(1, mine.length))}/turn; added p50 ${ms(added.p50)}, p95 ${ms(added.p95)}`;
          });
    const burstAdded = summarize(burstOk.map((turn) => turn.total - modelTime(turn.load)));
    const burstModel = summarize(burstOk.map((turn) => modelTime(turn.load)));

    const cpu = summarize(cpuPerTurn);
    const add = summarize(added);
    const seqModel = summarize(
      Array.from({ length: TURNS }, (_, turn) => modelTime(load - TURNS + turn)),
    );
    const label = provider === "sqlite" ? "SQLite" : "PostgreSQL";
    return {
      windows: {
        sequential: { from: seqFrom, to: seqTo, turns: TURNS },
        burst: { from: burstFrom, to: burstTo, turns: CHATS },
      },
      rows: [
        {
          database: label,
          run: `${TURNS} sequential turns`,
          "CPU/turn (mean, /proc/stat)": ms(cpuTotal / TURNS),
          "CPU/turn p50": ms(cpu.p50),
          "CPU/turn p95": ms(cpu.p95),
          "added p50": ms(add.p50),
          "added p95": ms(add.p95),
          "model p50": ms(seqModel.p50),
          "errors / lost": `${errors.length} / ${lostSeq}`,
          load: seqLoad.replace("load average ", ""),
        },
        {
          database: label,
          run: `${CHATS} chats at once${instances > 1 ? ` on ${instances} instances` : ""}`,
          "CPU/turn (mean, /proc/stat)": ms(burstCpu / CHATS),
          "CPU/turn p50": "-",
          "CPU/turn p95": "-",
          "added p50": ms(burstAdded.p50),
          "added p95": ms(burstAdded.p95),
          "model p50": ms(burstModel.p50),
          "errors / lost": `${burst.length - burstOk.length} / ${lost}`,
          load: burstLoad.replace("load average ", ""),
        },
      ],
      notes: [
        `${label}: seeded ${ENTRIES} entries + ${CHATS + 1} users × ${FILES} files in ${ms(setup.seedMs)}; sequential wall ${ms(seqWall)} (${(TURNS / (seqWall / 1000)).toFixed(1)} turns/s); burst wall ${ms(burstWall)} (${(CHATS / (burstWall / 1000)).toFixed(1)} turns/s)`,
        ...perInstance,
        `${label}: burst settled ${ms(settle)} after its last response; 409 retries (previous turn still being recorded): sequential ${busySeq}`,
        ...lostDetails.slice(0, 5),
        ...errors.slice(0, 3).map((error) => `  sequential error: ${error}`),
        ...burst
          .filter((turn) => turn.error)
          .slice(0, 3)
          .map((turn) => `  burst error (load ${turn.load}): ${turn.error}`),
      ],
    };
  } catch (error) {
    if (log.length) console.error(`chat-route: last app output:\n${log.slice(-20).join("\n")}`);
    throw error;
  } finally {
    if (app) await stopServer(app);
    for (const other of others) await stopServer(other);
    // BENCH_ROUTE_KEEP_DB=1 keeps the seeded database for a look afterwards (its URL is printed).
    if (process.env.BENCH_ROUTE_KEEP_DB === "1" && setup) {
      console.log(`chat-route: kept ${setup.target.url}`);
      await setup.db.$disconnect().catch(() => undefined);
    } else await setup?.cleanup();
    proxy.closeAllConnections();
    await new Promise<void>((resolve) => proxy.close(() => resolve()));
    await scripted.close().catch(() => undefined);
  }
}

// ---------------------------------------------------------------- profile summary

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
}

/** A span of the server's CPU profile, in the monotonic clock's microseconds (V8's timestamps). */
interface Window {
  from: number;
  to: number;
  turns: number;
}

const monotonicMicros = () => Number(process.hrtime.bigint() / 1000n);

/** Source maps of the built chunks (Turbopack writes `<chunk>.js.map` beside each). */
const sourceMaps = new Map<string, SourceMap | null>();
function original(url: string, line: number, column: number) {
  const file = url.replace(/^file:\/\//, "");
  if (!file.includes("/.next/")) return undefined;
  if (!sourceMaps.has(file)) {
    try {
      sourceMaps.set(file, new SourceMap(JSON.parse(readFileSync(`${file}.map`, "utf8"))));
    } catch {
      sourceMaps.set(file, null);
    }
  }
  const entry = sourceMaps.get(file)?.findEntry(line, column) as
    { originalSource?: string; originalLine?: number } | undefined;
  if (!entry?.originalSource) return undefined;
  return {
    source: decodeURIComponent(entry.originalSource)
      .replace(/^(\.\.\/)+/, "")
      .replace(/^\[project\]\//, ""),
    line: (entry.originalLine ?? 0) + 1,
  };
}

/** What a source file belongs to: its npm package, or the app's top folder (lib/harness, app, …). */
function areaOf(source: string): string {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(source);
  if (pkg) return pkg[1]!;
  if (source.startsWith("node:"))
    return source.replace(/^node:(internal\/)?(deps\/)?/, "node:").split("/")[0]!;
  if (source.startsWith("wasm://")) return "wasm (Prisma query compiler)";
  const parts = source.split("/");
  return parts[0] === "lib" ? parts.slice(0, 2).join("/") : (parts[0] ?? source);
}

/**
 * Top self-time functions of a .cpuprofile, aggregated by function + source (built chunks are
 * mapped back to their sources through the chunk's source map), and by area (npm package or app
 * folder). `window`: only samples taken inside it, and per-turn figures.
 */
export function summarizeProfile(file: string, top = 25, window?: Window): string {
  const profile = JSON.parse(readFileSync(file, "utf8")) as {
    nodes: ProfileNode[];
    samples: number[];
    timeDeltas: number[];
    startTime: number;
  };
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfById = new Map<number, number>();
  let at = profile.startTime;
  for (let index = 0; index < profile.samples.length; index++) {
    const delta = profile.timeDeltas[index] ?? 0;
    at += delta;
    if (window && (at < window.from || at > window.to)) continue;
    const id = profile.samples[index]!;
    selfById.set(id, (selfById.get(id) ?? 0) + delta / 1000);
  }
  const shortUrl = (url: string) =>
    url
      .replace(/^file:\/\//, "")
      .replace(`${root}/`, "")
      .replace(/^.*node_modules\//, "node_modules/");
  const byFunction = new Map<string, number>();
  const byArea = new Map<string, number>();
  let total = 0;
  let idle = 0;
  for (const [id, self] of selfById) {
    const frame = byId.get(id)!.callFrame;
    total += self;
    if (frame.functionName === "(idle)" || frame.functionName === "(program)") {
      idle += self;
      continue;
    }
    const mapped = original(frame.url, frame.lineNumber, frame.columnNumber);
    const source = mapped ? mapped.source : shortUrl(frame.url) || "(native)";
    const line = mapped ? mapped.line : frame.lineNumber + 1;
    const key = `${frame.functionName || "(anonymous)"}  ${source}${frame.url ? `:${line}` : ""}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + self);
    const area =
      frame.functionName === "(garbage collector)" ? "(garbage collector)" : areaOf(source);
    byArea.set(area, (byArea.get(area) ?? 0) + self);
  }
  const busy = total - idle;
  const perTurn = (self: number) => (window ? (self / window.turns).toFixed(2) : "-");
  const rows = (map: Map<string, number>, label: string, count: number) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, count)
      .map(([key, self]) => ({
        [label]: key.length > 120 ? `${key.slice(0, 117)}...` : key,
        "self ms": self.toFixed(0),
        "ms/turn": perTurn(self),
        "% busy": ((100 * self) / busy).toFixed(1),
      }));
  return [
    `profile ${path.relative(root, file)}${window ? ` (${window.turns} turns)` : ""}: ${(total / 1000).toFixed(2)} s sampled, busy ${(busy / 1000).toFixed(2)} s${window ? ` = ${perTurn(busy)} ms/turn` : ""} (idle/program ${(idle / 1000).toFixed(2)} s)`,
    "",
    `top ${top} functions by self time:`,
    table(rows(byFunction, "function  source:line", top)),
    "",
    "by area (npm package or app folder):",
    table(rows(byArea, "area", 20)),
  ].join("\n");
}

function newestProfiles(since: number): string[] {
  if (!existsSync(PROF_DIR)) return [];
  return readdirSync(PROF_DIR)
    .filter((name) => name.endsWith(".cpuprofile"))
    .map((name) => path.join(PROF_DIR, name))
    .filter((file) => statSync(file).mtimeMs >= since)
    .sort((a, b) => statSync(b).size - statSync(a).size);
}

export async function benchChatRoute(): Promise<string> {
  const profile = process.argv.includes("--cpu-prof");
  const rows: Record<string, string | number>[] = [];
  const notes: string[] = [];
  const profiles: string[] = [];
  for (const provider of DBS) {
    const since = Date.now();
    const result = await benchOne(provider, profile);
    rows.push(...result.rows);
    notes.push(...result.notes);
    if (profile) {
      // The server process's profile (the largest written during this run).
      const [file] = newestProfiles(since);
      const label = provider === "sqlite" ? "SQLite" : "PostgreSQL";
      if (!file) profiles.push(`${label}: no profile written`);
      else {
        // The windows beside the profile, for other tools (e.g. inclusive time per stage).
        writeFileSync(`${file}.windows.json`, JSON.stringify(result.windows));
        profiles.push(
          `${label}, ${TURNS} sequential turns — ${summarizeProfile(file, 25, result.windows.sequential)}`,
          "",
          `${label}, ${CHATS} chats at once — ${summarizeProfile(file, 15, result.windows.burst)}`,
          "",
        );
      }
    }
  }
  return [
    `chat-route: POST /api/chat on next start (${APP_URL}), medium workload (${ENTRIES} entries, ${FILES} files per user${MEMORY_FILES !== FILES ? `, ${MEMORY_FILES} in the sequential user's memory` : ""}${COMPANY_FILES ? `, company knowledge of ${COMPANY_FILES} files, indexed` : ""}), scripted model: memory tool call, then ${ANSWER_WORDS} words × ${WORD_DELAY_MS} ms${profile ? "; server under --cpu-prof (slower)" : ""}`,
    "",
    table(rows),
    "",
    ...notes,
    ...(profiles.length ? ["", ...profiles] : []),
  ].join("\n");
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const at = process.argv.indexOf("--summarize-prof");
  const run =
    at >= 0
      ? Promise.resolve(summarizeProfile(path.resolve(process.argv[at + 1]!)))
      : benchChatRoute();
  run.then(
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

/** A dir's files written through the app's dir backing, `SEED_BATCH` files a commit. */
async function seedDir(options: {
  db: Db;
  dirKey: string;
  harnessDir: string;
  count: number;
  file: (index: number) => { path: string; content: string };
}): Promise<void> {
  const backing = createDirBacking({ sql: sqlForDb(options.db), dirKey: () => options.dirKey });
  let cursor: string | number = 0;
  for (let start = 0; start < options.count; start += SEED_BATCH) {
    const created = Array.from(
      { length: Math.min(SEED_BATCH, options.count - start) },
      (_, offset) => options.file(start + offset),
    );
    const result = await backing.store({
      extraBody: null,
      session: null,
      harnessDir: options.harnessDir,
      changes: { created, updated: [], deleted: [] },
      snapshot: Object.fromEntries(created.map((file) => [file.path, file.content])),
      cursor,
    });
    if (result.status !== "stored")
      throw new Error(`seeding ${options.dirKey} lost its compare-and-swap`);
    cursor = result.cursor;
  }
}

/** About 5 KB of handbook-like Markdown, different words per document (a small LCG). */
function companyDocContent(index: number): string {
  const words = [
    "policy",
    "travel",
    "expense",
    "leave",
    "onboarding",
    "security",
    "laptop",
    "review",
    "release",
    "incident",
    "runbook",
    "customer",
    "contract",
    "invoice",
    "holiday",
    "budget",
    "hiring",
    "interview",
    "deploy",
    "backup",
    "vendor",
    "privacy",
    "training",
    "office",
  ];
  let state = (index * 2654435761) >>> 0;
  const word = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return words[state % words.length]!;
  };
  let text = `# ${word()} ${word()} guide ${index}\n\n`;
  let section = 0;
  while (text.length < 5_000) {
    if (section % 4 === 0) text += `## ${word()} ${word()} ${section}\n\n`;
    text += `${Array.from({ length: 60 }, word).join(" ")} ${index}-${section}.\n\n`;
    section += 1;
  }
  return text;
}
