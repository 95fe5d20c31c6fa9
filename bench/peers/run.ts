// Cairn beside its peers (issue 12, item 5): the memory work of one chat turn through Cairn, a
// raw SQL floor, Mastra's `Memory` on LibSQL and mem0's open-source `Memory`, each system in its
// own child process (bench/peers/worker.ts), one turn at a time, round-robin with a rotating
// start. Workload and mapping: bench/README.md ("Peers").
//
//   npx tsx bench/peers/run.ts                     # short: 5 warm-up + 30 timed turns, 1 rep
//   BENCH_PEERS_TURNS=200 BENCH_PEERS_WARMUP=20 BENCH_PEERS_REPS=3 npx tsx bench/peers/run.ts
//   BENCH_PEERS_ONLY=floor-sqlite,cairn-sqlite npx tsx bench/peers/run.ts
//   npm run bench -- peers
import { fork, type ChildProcess } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { loadLine, ms, summarize, table } from "../stats";
import { startOpenAIStub } from "./openai-stub";
import { ITEMS, THREAD, type TurnSample } from "./workload";

const SYSTEMS = ["floor-sqlite", "cairn-sqlite", "floor-pg", "cairn-pg", "mastra", "mem0"];
const TURNS = Number(process.env.BENCH_PEERS_TURNS ?? 30);
const WARMUP = Number(process.env.BENCH_PEERS_WARMUP ?? 5);
const REPS = Number(process.env.BENCH_PEERS_REPS ?? 1);
const ONLY = process.env.BENCH_PEERS_ONLY?.split(",");
const SETUP_TIMEOUT_MS = 10 * 60_000;
const TURN_TIMEOUT_MS = 120_000;

interface Worker {
  name: string;
  child: ChildProcess;
  info: string;
  samples: TurnSample[];
  error?: string;
}

function request<T>(child: ChildProcess, message: object, timeout: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`no answer to ${JSON.stringify(message)} within ${timeout} ms`));
    }, timeout);
    const onMessage = (answer: { type: string; message?: string }) => {
      cleanup();
      if (answer.type === "error") reject(new Error(answer.message));
      else resolve(answer as T);
    };
    const onExit = (code: number | null) => {
      cleanup();
      reject(new Error(`worker exited (${code})`));
    };
    const cleanup = () => {
      clearTimeout(timer);
      child.off("message", onMessage);
      child.off("exit", onExit);
    };
    child.on("message", onMessage);
    child.on("exit", onExit);
    child.send(message);
  });
}

function startWorker(name: string, env: NodeJS.ProcessEnv, log: string[]): ChildProcess {
  const child = fork(path.join(import.meta.dirname, "worker.ts"), [name], {
    execArgv: ["--import", "tsx"],
    env,
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  const keep = (chunk: Buffer) => {
    for (const line of chunk.toString("utf8").split("\n"))
      if (line.trim()) log.push(`${name}: ${line.slice(0, 300)}`);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  return child;
}

async function oneRepetition(rep: number, baseURL: string, log: string[]) {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    BENCH_PEERS_OPENAI_URL: baseURL,
    MEM0_TELEMETRY: "false",
    MASTRA_TELEMETRY_DISABLED: "1",
    NODE_ENV: "production",
  };
  const names = SYSTEMS.filter((name) => !ONLY || ONLY.includes(name));
  const workers: Worker[] = [];
  // Set up one at a time (seeding is heavy), so each system seeds on a quieter machine.
  for (const name of names) {
    const child = startWorker(name, env, log);
    const worker: Worker = { name, child, info: "", samples: [] };
    workers.push(worker);
    try {
      const ready = await request<{ info: string }>(child, { type: "setup" }, SETUP_TIMEOUT_MS);
      worker.info = ready.info;
    } catch (error) {
      worker.error = `setup: ${error instanceof Error ? error.message.split("\n").slice(0, 3).join(" | ") : error}`;
    }
  }
  const live = () => workers.filter((worker) => !worker.error);
  for (let turn = 0; turn < WARMUP + TURNS; turn++) {
    const order = live();
    const start = (turn + rep) % Math.max(1, order.length);
    for (const worker of [...order.slice(start), ...order.slice(0, start)]) {
      try {
        const sample = await request<TurnSample>(
          worker.child,
          { type: "turn", turn: rep * 100_000 + turn },
          TURN_TIMEOUT_MS,
        );
        if (turn >= WARMUP) worker.samples.push(sample);
      } catch (error) {
        worker.error = `turn ${turn}: ${error instanceof Error ? error.message.split("\n").slice(0, 3).join(" | ") : error}`;
      }
    }
  }
  for (const worker of workers) {
    await request(worker.child, { type: "close" }, 60_000).catch(() => undefined);
    worker.child.kill();
  }
  return workers;
}

export async function benchPeers(): Promise<string> {
  const stub = await startOpenAIStub();
  const log: string[] = [];
  const all = new Map<string, { info: string; samples: TurnSample[]; errors: string[] }>();
  const loads: string[] = [];
  try {
    for (let rep = 0; rep < REPS; rep++) {
      loads.push(loadLine());
      for (const worker of await oneRepetition(rep, stub.baseURL, log)) {
        const entry = all.get(worker.name) ?? { info: worker.info, samples: [], errors: [] };
        entry.samples.push(...worker.samples);
        if (worker.error) entry.errors.push(worker.error);
        all.set(worker.name, entry);
      }
      loads.push(loadLine());
    }
  } finally {
    await stub.close();
  }
  const p50 = (name: string) => summarize(all.get(name)?.samples.map((s) => s.wall) ?? []).p50;
  const cpu50 = (name: string) => summarize(all.get(name)?.samples.map((s) => s.cpu) ?? []).p50;
  const rows = [...all].map(([name, { samples }]) => {
    const wall = summarize(samples.map((sample) => sample.wall));
    const cpu = summarize(samples.map((sample) => sample.cpu));
    const cairn = name.endsWith("-pg") ? "cairn-pg" : "cairn-sqlite";
    const floor = name.endsWith("-pg") ? "floor-pg" : "floor-sqlite";
    const ratio = (value: number, of: number) =>
      Number.isFinite(of) && of > 0 ? (value / of).toFixed(2) : "-";
    return {
      system: name,
      n: wall.n,
      "wall p50": samples.length ? ms(wall.p50) : "-",
      "wall p95": samples.length ? ms(wall.p95) : "-",
      "cpu p50": samples.length ? ms(cpu.p50) : "-",
      "cpu p95": samples.length ? ms(cpu.p95) : "-",
      "÷ Cairn (wall/cpu)": samples.length
        ? `${ratio(wall.p50, p50(cairn))} / ${ratio(cpu.p50, cpu50(cairn))}`
        : "-",
      "÷ floor (wall/cpu)": samples.length
        ? `${ratio(wall.p50, p50(floor))} / ${ratio(cpu.p50, cpu50(floor))}`
        : "-",
      "context tokens p50": samples.length
        ? summarize(samples.map((s) => s.context ?? Number.NaN)).p50.toFixed(0)
        : "-",
    };
  });
  const errors = [...all].flatMap(([name, { errors: list }]) =>
    list.map((error) => `  ${name}: ${error}`),
  );
  return [
    `peers: ${ITEMS} memory items, ${THREAD}-message thread; ${WARMUP} warm-up + ${TURNS} timed turns × ${REPS} rep(s), round-robin, one process per system; mem0 stub: ${stub.requests.chat} chat + ${stub.requests.embeddings} embedding requests`,
    `load: ${loads.join(" → ")}`,
    "",
    table(rows),
    "",
    "Ratios: -pg rows against cairn-pg / floor-pg, the others against cairn-sqlite / floor-sqlite.",
    ...[...all].map(([name, { info }]) => `  ${name}: ${info || "(did not start)"}`),
    ...(errors.length
      ? ["errors:", ...errors, "worker output (last 15 lines):", ...log.slice(-15)]
      : []),
  ].join("\n");
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  benchPeers().then(
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
