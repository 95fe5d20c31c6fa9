// The stack's floor for a chat turn: what the same turn costs the server with nothing of Cairn's
// in it — the AI SDK's documented chat route (`streamText` with one tool →
// `toUIMessageStreamResponse`) in the smallest Next app (`bench/stack-floor/`), on `next start`
// with the pinned Next, AI SDK and Node. Same scripted model and turn shape as `chat-route`
// (a `memory` tool call, then a 10-word answer at 20 ms a word), measured the same way: the
// server's CPU per turn (every thread's run time, /proc/<pid>/task/*/schedstat) for sequential
// turns, and 50 chats at once (added latency = client wall time − the model's own time).
// Also `POST /api/noop` (`Response.json`): Next's floor per request.
//
//   npx next build bench/stack-floor && npx tsx bench/stack-floor.ts
//
// Env: STACK_FLOOR_PORT (3430), STACK_FLOOR_TURNS (40), STACK_FLOOR_WARMUP (100),
// STACK_FLOOR_CHATS (50).
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import type { AddressInfo, Server } from "node:net";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { startScriptedModelServer } from "../e2e/support/scripted-model-server";
import { startTimingProxy, type ModelSpan } from "./chat-load";
import { scriptMemoryTurn, treeCpuMs, treeRuntimeMs } from "./chat-route";
import { loadLine, percentile, table } from "./stats";

const root = path.resolve(import.meta.dirname, "..");
const appDir = path.join(root, "bench/stack-floor");
const PORT = Number(process.env.STACK_FLOOR_PORT ?? 3430);
const TURNS = Number(process.env.STACK_FLOOR_TURNS ?? 40);
const WARMUP = Number(process.env.STACK_FLOOR_WARMUP ?? 100);
const CHATS = Number(process.env.STACK_FLOOR_CHATS ?? 50);
const ANSWER_WORDS = 10;
const WORD_DELAY_MS = 20;
const APP_URL = `http://127.0.0.1:${PORT}`;
const sleep = (millis: number) => new Promise((resolve) => setTimeout(resolve, millis));
const ms = (value: number) => `${value.toFixed(1)} ms`;

function startApp(modelURL: string, log: string[]): ChildProcess {
  if (!existsSync(path.join(appDir, ".next", "BUILD_ID")))
    throw new Error("No build in bench/stack-floor/.next: run `npx next build bench/stack-floor`.");
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "production",
    FLOOR_MODEL_URL: modelURL,
    NEXT_TELEMETRY_DISABLED: "1",
  };
  delete env.NODE_OPTIONS;
  const child = spawn(
    process.execPath,
    [
      path.join(root, "node_modules/next/dist/bin/next"),
      "start",
      appDir,
      "-p",
      String(PORT),
      "-H",
      "127.0.0.1",
    ],
    { cwd: root, env, detached: true, stdio: ["ignore", "pipe", "pipe"] },
  );
  const keep = (chunk: Buffer) => {
    log.push(chunk.toString("utf8"));
    if (log.length > 100) log.shift();
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  return child;
}

async function waitUntilUp(app: ChildProcess, log: string[]) {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (app.exitCode !== null) throw new Error(`The floor app exited:\n${log.join("")}`);
    try {
      if ((await fetch(`${APP_URL}/api/noop`, { method: "POST" })).ok) return;
    } catch {
      // not yet
    }
    await sleep(200);
  }
  throw new Error(`The floor app did not start:\n${log.join("")}`);
}

async function turn(route: string, load: number): Promise<{ total: number; error?: string }> {
  const started = performance.now();
  const message = {
    id: randomUUID(),
    role: "user",
    parts: [{ type: "text", text: `load ${load}` }],
  };
  const response = await fetch(`${APP_URL}/api/${route}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ messages: [message] }),
  });
  const body = await response.text();
  const total = performance.now() - started;
  if (response.status !== 200)
    return { total, error: `HTTP ${response.status}: ${body.slice(0, 200)}` };
  if (/"type":"error"/.test(body)) return { total, error: `stream error: ${body.slice(0, 300)}` };
  if (!body.includes("[DONE]") || !body.includes(`word${ANSWER_WORDS}`))
    return { total, error: "the answer did not stream to its end" };
  return { total };
}

async function benchRoute(
  route: string,
): Promise<{ rows: Record<string, string | number>[]; noopCpu: number; errors: string[] }> {
  const scripted = await startScriptedModelServer({ port: 0 });
  const answer = Array.from({ length: ANSWER_WORDS }, (_, word) => `word${word + 1}`).join(" ");
  scriptMemoryTurn(scripted, { answer, wordDelayMs: WORD_DELAY_MS });
  const spans: ModelSpan[] = [];
  const proxy: Server = await startTimingProxy(scripted.url, spans);
  const log: string[] = [];
  const app = startApp(`http://127.0.0.1:${(proxy.address() as AddressInfo).port}/v1`, log);
  const modelTime = (load: number) =>
    spans
      .filter((span) => span.index === load)
      .reduce((sum, span) => sum + span.ended - span.started, 0);
  try {
    await waitUntilUp(app, log);
    const pid = app.pid!;
    // Next's floor: 400 requests that do nothing, after 400 of warm-up.
    for (let index = 0; index < 400; index++)
      await fetch(`${APP_URL}/api/noop`, { method: "POST" }).then((r) => r.text());
    const noopBefore = treeRuntimeMs(pid);
    for (let index = 0; index < 400; index++)
      await fetch(`${APP_URL}/api/noop`, { method: "POST" }).then((r) => r.text());
    const noopCpu = (treeRuntimeMs(pid) - noopBefore) / 400;

    let load = 10_000;
    for (let index = 0; index < WARMUP; index++) {
      const result = await turn(route, load++);
      if (result.error) throw new Error(`warm-up turn failed: ${result.error}`);
    }
    await sleep(500);
    const cpu: number[] = [];
    const added: number[] = [];
    const errors: string[] = [];
    const ticksBefore = treeCpuMs(pid);
    for (let index = 0; index < TURNS; index++) {
      const before = treeRuntimeMs(pid);
      const result = await turn(route, load);
      cpu.push(treeRuntimeMs(pid) - before);
      if (result.error) errors.push(result.error);
      else added.push(result.total - modelTime(load));
      load++;
    }
    const seqTicks = treeCpuMs(pid) - ticksBefore;
    const seqLoad = loadLine();
    await sleep(500);

    const burstBefore = treeRuntimeMs(pid);
    const burst = await Promise.all(
      Array.from({ length: CHATS }, (_, index) =>
        turn(route, 20_000 + index).then((result) => ({ ...result, load: 20_000 + index })),
      ),
    );
    const burstCpu = treeRuntimeMs(pid) - burstBefore;
    const burstLoad = loadLine();
    const burstAdded = burst
      .filter((result) => !result.error)
      .map((result) => result.total - modelTime(result.load));
    const burstErrors = burst.filter((result) => result.error).map((result) => result.error!);

    const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
    const rows = [
      {
        route: `/api/${route}`,
        run: `${TURNS} sequential turns`,
        "CPU/turn p50": ms(percentile(sorted(cpu), 50)),
        "CPU/turn mean (/proc/stat)": ms(seqTicks / TURNS),
        "added p50": ms(percentile(sorted(added), 50)),
        "added p95": ms(percentile(sorted(added), 95)),
        errors: errors.length,
        load: seqLoad,
      },
      {
        route: `/api/${route}`,
        run: `${CHATS} chats at once`,
        "CPU/turn p50": "-",
        "CPU/turn mean (/proc/stat)": ms(burstCpu / CHATS),
        "added p50": ms(percentile(sorted(burstAdded), 50)),
        "added p95": ms(percentile(sorted(burstAdded), 95)),
        errors: burstErrors.length,
        load: burstLoad,
      },
    ];
    return { rows, noopCpu, errors: [...errors, ...burstErrors] };
  } finally {
    try {
      process.kill(-app.pid!, "SIGTERM");
    } catch {
      // gone
    }
    proxy.close();
    await scripted.close().catch(() => undefined);
  }
}

/** Each route in a server of its own (JIT and heap not shared). */
export async function benchStackFloor(): Promise<string> {
  const routes = (process.env.STACK_FLOOR_ROUTES ?? "turn,lean").split(",");
  const rows: Record<string, string | number>[] = [];
  const lines: string[] = [];
  for (const route of routes) {
    const result = await benchRoute(route);
    rows.push(...result.rows);
    lines.push(
      `/api/${route}: Next's floor in the same server (POST /api/noop, Response.json) ${result.noopCpu.toFixed(2)} ms of CPU per request`,
      ...result.errors.slice(0, 5).map((error) => `  error: ${error}`),
    );
  }
  return [
    `stack-floor: a chat turn in a bare Next app on next start (${APP_URL}), scripted model: memory tool call, then ${ANSWER_WORDS} words × ${WORD_DELAY_MS} ms; ${WARMUP} warm-up turns; /api/turn = the AI SDK's documented route, /api/lean = the same with Cairn's stream plumbing`,
    "",
    table(rows),
    "",
    ...lines,
  ].join("\n");
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(await benchStackFloor());
  process.exit(0);
}
