// The harness overhead of one chat turn — everything except the model — on SQLite, wired as the
// app wires it (lib/chat/run-chat-turn.ts): `streamHarness` with the Prisma harness store, the
// app's persistent dirs (a Prisma-backed `memory()` dir for the user, company knowledge) and the
// Prisma commit log, against a mock model (`ai/test`) that answers at once.
// Two rows per workload: a turn that only answers, and a turn whose model writes one memory file
// (a `memory` tool call, then text) so a commit is included.
// Not included: the route's own bookkeeping around the turn (ownership check, storing the user's
// message and the turn record), which is not harness overhead.
// Target (issue 5): p95 under 50 ms for the medium workload.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { simulateReadableStream, type UIMessage } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { BASE_PROMPT } from "@/lib/chat/base-prompt";
import { createDb, migrateDatabase, type DatabaseTarget, type Db } from "@/lib/db";
import {
  createHarness,
  streamHarness,
  type Actor,
  type HarnessDefinition,
  type HarnessEdit,
  type TurnResult,
} from "@/lib/harness";
import {
  createPersistentDirsService,
  userDirKey,
  type AppExtraBody,
  type AppSession,
} from "@/lib/workspace-dirs";
import { createDirBacking, harnessStorageFor, sqlForDb } from "@/lib/sql-storage";
import { loadLine, ms, summarize, table } from "./stats";

interface Workload {
  name: string;
  entries: number;
  files: number;
  turns: number;
}

const scale = Number(process.env.BENCH_TURN_SCALE ?? 1);
const WORKLOADS: Workload[] = [
  { name: "small", entries: 10, files: 10, turns: Math.ceil(50 * scale) },
  { name: "medium", entries: 1_000, files: 200, turns: Math.ceil(50 * scale) },
  { name: "large", entries: 10_000, files: 1_000, turns: Math.ceil(20 * scale) },
].filter(
  (workload) =>
    !process.env.BENCH_TURN_ONLY || process.env.BENCH_TURN_ONLY.split(",").includes(workload.name),
);
const WARMUP_TURNS = 3;
const SEED_BATCH = 500;
/** Memory files are notes: a title line and about 1 KB of text. */
const FILE_BYTES = 1024;

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

const textReply = (text: string): LanguageModelV4StreamPart[] => [
  { type: "stream-start", warnings: [] },
  { type: "text-start", id: "t" },
  { type: "text-delta", id: "t", delta: text },
  { type: "text-end", id: "t" },
  { type: "finish", usage, finishReason: { unified: "stop", raw: "stop" } },
];

const toolCallReply = (toolName: string, input: unknown): LanguageModelV4StreamPart[] => [
  { type: "stream-start", warnings: [] },
  { type: "tool-call", toolCallId: "call-1", toolName, input: JSON.stringify(input) },
  { type: "finish", usage, finishReason: { unified: "tool-calls", raw: "tool_calls" } },
];

/** A model that answers each step with the next reply at once (no delay between chunks). */
function scriptedModel(replies: LanguageModelV4StreamPart[][]) {
  let step = 0;
  return new MockLanguageModelV4({
    doStream: () =>
      Promise.resolve({
        stream: simulateReadableStream({
          chunks: replies[Math.min(step++, replies.length - 1)]!,
          initialDelayInMs: null,
          chunkDelayInMs: null,
        }),
      }),
  });
}

export function noteContent(index: number): string {
  const head = `# Note ${index}: preference or fact number ${index}\n`;
  const line = `The user mentioned detail ${index} while discussing project planning and deadlines.\n`;
  let body = head;
  while (body.length + line.length <= FILE_BYTES) body += line;
  return body;
}

const PHASES = ["dirs", "prompt", "model", "commit"] as const;
type Phase = (typeof PHASES)[number];

/**
 * Where a turn's time went, from its trace (millisecond timestamps): loading the dirs; the
 * harness view, refinements and instructions; the model steps with their tool calls; the commit.
 */
function phasesOf(trace: TurnResult["trace"]): Record<Phase, number> {
  const time = (type: string, which: "first" | "last" = "last") => {
    const events = trace.filter((event) => event.type === type);
    const event = which === "first" ? events[0] : events.at(-1);
    return event ? Date.parse(event.at) : Number.NaN;
  };
  const started = time("turn.started");
  const loaded = time("dir.loaded");
  const built = time("instructions.built");
  const stepped = time("model.step");
  return {
    dirs: loaded - started,
    prompt: built - loaded,
    model: stepped - built,
    commit: time("turn.finished") - stepped,
  };
}

async function freshDatabase() {
  const directory = mkdtempSync(path.join(tmpdir(), "cairn-bench-turn-"));
  const filePath = path.join(directory, "bench.db");
  const target: DatabaseTarget = { provider: "sqlite", url: `file:${filePath}`, filePath };
  await migrateDatabase({ target });
  return { directory, target };
}

/** Harness entries through the public API, in batches: mostly memories, some prompts and skills, a tenth local to the chat. */
export async function seedEntries(options: {
  db: Db;
  target: DatabaseTarget;
  actor: Actor;
  chatId: string;
  count: number;
}) {
  const harness = createHarness({
    // The storage the app uses on this database (lib/sql-storage/harness-storage.ts).
    storage: harnessStorageFor({ target: options.target }),
    actor: options.actor,
    chatId: options.chatId,
  });
  const skills = Math.min(20, Math.floor(options.count / 50));
  for (let index = 0; index < skills; index++) {
    await harness.createSkill({
      global: true,
      name: `skill-${index}`,
      description: `How to handle request type ${index} (checklists, tone, format).`,
      body: `Step by step instructions for request type ${index}.\n`.repeat(10),
    });
  }
  for (let start = skills; start < options.count; start += SEED_BATCH) {
    const edits: HarnessEdit[] = [];
    for (let index = start; index < Math.min(options.count, start + SEED_BATCH); index++) {
      edits.push({
        op: "create",
        kind: index % 33 === 0 ? "prompt" : "memory",
        global: index % 10 !== 0,
        id: `entry-${index}`,
        title: `Entry ${index}: ${["deploys", "billing", "support", "hiring", "design"][index % 5]} note`,
        content: `Fact ${index}: the team decided item ${index} after a review of ${["deploys", "billing", "support", "hiring", "design"][index % 5]}. Keep it in mind when answering.`,
        path: ["ops", "finance", "support", "people", "product"][index % 5],
      });
    }
    await harness.applyEdits({ edits });
  }
}

async function runWorkload(workload: Workload) {
  const { directory, target } = await freshDatabase();
  const db = createDb(target);
  try {
    const workspace = await db.workspace.create({ data: { name: "bench" } });
    const user = await db.user.create({ data: { email: "bench@example.com", name: "Bench" } });
    await db.membership.create({
      data: { userId: user.id, workspaceId: workspace.id, role: "admin" },
    });
    const chat = await db.chat.create({
      data: { workspaceId: workspace.id, userId: user.id, title: "Bench chat" },
    });
    const actor: Actor = { userId: user.id, workspaceId: workspace.id, role: "admin" };

    let started = performance.now();
    await seedEntries({ db, target, actor, chatId: chat.id, count: workload.entries });
    const seedEntriesMs = performance.now() - started;
    started = performance.now();
    const files = Array.from({ length: workload.files }, (_, index) => ({
      path: `notes/note-${String(index).padStart(4, "0")}.md`,
      content: noteContent(index),
    }));
    await createDirBacking({ sql: sqlForDb(db), dirKey: () => userDirKey(actor) }).store({
      extraBody: null,
      session: null,
      harnessDir: "/persistent/user",
      changes: { created: files, updated: [], deleted: [] },
      snapshot: Object.fromEntries(files.map((file) => [file.path, file.content])),
      cursor: 0,
    });
    const seedFilesMs = performance.now() - started;

    // As the app does once per process (lib/workspace-dirs/process-dirs.ts).
    const dirsService = createPersistentDirsService({ sql: sqlForDb(db) });
    const definitionFor = (
      model: MockLanguageModelV4,
    ): HarnessDefinition<AppExtraBody, AppSession> => ({
      model: () => model,
      instructions: BASE_PROMPT,
      persistentDirs: dirsService.dirs,
      commitLog: dirsService.commitLog,
      store: () =>
        createHarness({ storage: harnessStorageFor({ target }), actor, chatId: chat.id }),
      tokenBudget: 4_000,
      compaction: { contextWindowTokens: 128_000, threshold: 0.7 },
      recentRefinements: async () =>
        (
          await db.refinement.findMany({
            where: {
              workspaceId: actor.workspaceId,
              OR: [{ scope: "global" }, { chatId: chat.id }],
              status: { not: "imported" },
            },
            orderBy: { createdAt: "desc" },
            take: 3,
            select: { id: true, summary: true, status: true, createdAt: true },
          })
        ).map((row) => ({ ...row, createdAt: row.createdAt.toISOString() })),
    });

    const runTurn = async (turn: number, withWrite: boolean) => {
      const model = scriptedModel(
        withWrite
          ? [
              toolCallReply("memory", {
                command: "create",
                path: "/persistent/user/bench/last-turn.md",
                file_text: `# Last turn\nTurn ${turn} asked about deploys.\n`,
              }),
              textReply("Noted."),
            ]
          : [textReply("Deploys happen on Fridays.")],
      );
      const message: UIMessage = {
        id: `m-${turn}-${withWrite}`,
        role: "user",
        parts: [{ type: "text", text: `When do deploys happen? (turn ${turn})` }],
      };
      const handle = streamHarness({
        harness: definitionFor(model),
        messages: [message],
        session: { chatId: chat.id },
        extraBody: { actor },
      });
      // Drain the UI stream as the browser would.
      const reader = handle.toUIMessageStream().getReader();
      while (!(await reader.read()).done);
      const result = await handle.finished;
      if (result.status !== "completed") {
        throw new Error(`turn ${turn} ${result.status}: ${result.error?.message}`);
      }
      if (withWrite && result.persistence.status !== "succeeded") {
        throw new Error(`turn ${turn} did not commit: ${JSON.stringify(result.persistence)}`);
      }
      if (withWrite && !result.trace.some((event) => event.type === "commit.succeeded")) {
        throw new Error(`turn ${turn} wrote no memory file`);
      }
      return phasesOf(result.trace);
    };

    const measure = async (withWrite: boolean) => {
      for (let turn = 0; turn < WARMUP_TURNS; turn++) await runTurn(-1 - turn, withWrite);
      const wall: number[] = [];
      const cpu: number[] = [];
      const phases: Record<Phase, number[]> = { dirs: [], prompt: [], model: [], commit: [] };
      for (let turn = 0; turn < workload.turns; turn++) {
        const cpuStarted = process.cpuUsage();
        const turnStarted = performance.now();
        const turnPhases = await runTurn(turn, withWrite);
        wall.push(performance.now() - turnStarted);
        const used = process.cpuUsage(cpuStarted);
        cpu.push((used.user + used.system) / 1000);
        for (const phase of PHASES) phases[phase].push(turnPhases[phase]);
      }
      return {
        wall: summarize(wall),
        cpu: summarize(cpu),
        phases: Object.fromEntries(
          PHASES.map((phase) => [phase, summarize(phases[phase]).p50]),
        ) as Record<Phase, number>,
      };
    };
    // Alternate so both variants see the same machine conditions.
    const answer = await measure(false);
    const write = await measure(true);
    const commits = await db.dirCommit.count({ where: { dirKey: userDirKey(actor) } });
    // 1 seed commit + one per write turn (warm-up included).
    if (commits !== 1 + WARMUP_TURNS + workload.turns) {
      throw new Error(`expected ${1 + WARMUP_TURNS + workload.turns} commits, found ${commits}`);
    }
    return { answer, write, seedEntriesMs, seedFilesMs };
  } finally {
    await db.$disconnect();
    rmSync(directory, { recursive: true, force: true });
  }
}

export async function benchTurnOverhead(): Promise<string> {
  const rows: Record<string, string | number>[] = [];
  const seeding: string[] = [];
  for (const workload of WORKLOADS) {
    const result = await runWorkload(workload);
    const label = `${workload.name} (${workload.entries.toLocaleString("en")} entries, ${workload.files.toLocaleString("en")} files)`;
    for (const [variant, summary] of [
      ["answer only", result.answer],
      ["writes 1 memory file", result.write],
    ] as const) {
      rows.push({
        workload: label,
        turn: variant,
        turns: summary.wall.n,
        p50: ms(summary.wall.p50),
        p95: ms(summary.wall.p95),
        "cpu p50": ms(summary.cpu.p50),
        "cpu p95": ms(summary.cpu.p95),
        "p50 dirs/prompt/model/commit": PHASES.map((phase) =>
          summary.phases[phase].toFixed(0),
        ).join(" / "),
      });
    }
    seeding.push(
      `${workload.name}: entries ${ms(result.seedEntriesMs)}, files ${ms(result.seedFilesMs)}`,
    );
  }
  return [
    `Turn overhead on SQLite (streamHarness, mock model answering at once; target p95 < 50 ms for medium; ${loadLine()})`,
    table(rows),
    `seeding (not timed above): ${seeding.join("; ")}`,
  ].join("\n");
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await benchTurnOverhead());
