// One system of the peer benchmark in its own process (forked by bench/peers/run.ts with an IPC
// channel). Messages in: {type:"setup"}, {type:"turn", turn}, {type:"close"}. Out: {type:"ready",
// info}, {type:"sample", wall, cpu, context}, {type:"error", message}. Each turn is timed here
// (wall + this process's CPU); housekeeping that keeps sizes constant runs untimed after it.
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { DatabaseTarget } from "@/lib/db";
import { threadText, userText, replyText, itemText, ITEMS, THREAD, TOKEN_BUDGET } from "./workload";

const PG_URL = process.env.BENCH_PG_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";

interface System {
  setup(): Promise<string>;
  turn(turn: number): Promise<number | undefined>;
  housekeeping(turn: number): Promise<void>;
  close(): Promise<void>;
}

const tempDir = () => mkdtempSync(path.join(tmpdir(), "cairn-peers-"));

async function freshPgDatabase(prefix: string) {
  const { default: pg } = await import("pg");
  const name = `${prefix}_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

// ------------------------------------------------------------------ floor: raw SQL

const FLOOR_SCHEMA = [
  "CREATE TABLE msg (id TEXT PRIMARY KEY, thread TEXT NOT NULL, seq INTEGER NOT NULL, role TEXT NOT NULL, content TEXT NOT NULL, created_at BIGINT NOT NULL, UNIQUE (thread, seq))",
  "CREATE TABLE item (id TEXT PRIMARY KEY, content TEXT NOT NULL, version INTEGER NOT NULL, updated_at BIGINT NOT NULL)",
  "CREATE TABLE rev (item TEXT NOT NULL, version INTEGER NOT NULL, content TEXT NOT NULL, at BIGINT NOT NULL, PRIMARY KEY (item, version))",
];

async function floorSqlite(): Promise<System> {
  const { default: Database } = await import("better-sqlite3");
  const dir = tempDir();
  const db = new Database(path.join(dir, "floor.db"));
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  for (const statement of FLOOR_SCHEMA) db.exec(statement);
  const insertMsg = db.prepare(
    "INSERT INTO msg (id, thread, seq, role, content, created_at) VALUES (?, 't', (SELECT coalesce(max(seq), 0) + 1 FROM msg WHERE thread = 't'), ?, ?, ?)",
  );
  const thread = db.prepare("SELECT id, role, content FROM msg WHERE thread = 't' ORDER BY seq");
  const items = db.prepare("SELECT id, content, version FROM item");
  const updateItem = db.prepare(
    "UPDATE item SET content = ?, version = version + 1, updated_at = ? WHERE id = ? RETURNING version",
  );
  const insertRev = db.prepare("INSERT INTO rev (item, version, content, at) VALUES (?, ?, ?, ?)");
  const insertItem = db.prepare(
    "INSERT INTO item (id, content, version, updated_at) VALUES (?, ?, 1, ?)",
  );
  const commit = db.transaction((turn: number) => {
    insertMsg.run(randomUUID(), "assistant", replyText(turn), Date.now());
    const id = `item-${turn % ITEMS}`;
    const content = itemText(turn % ITEMS, turn);
    const { version } = updateItem.get(content, Date.now(), id) as { version: number };
    insertRev.run(id, version, content, Date.now());
  });
  return {
    async setup() {
      db.transaction(() => {
        for (let index = 0; index < ITEMS; index++) {
          insertItem.run(`item-${index}`, itemText(index), Date.now());
          insertRev.run(`item-${index}`, 1, itemText(index), Date.now());
        }
        for (let index = 0; index < THREAD; index++)
          insertMsg.run(
            randomUUID(),
            index % 2 ? "assistant" : "user",
            threadText(index),
            Date.now(),
          );
      })();
      return "better-sqlite3, WAL, prepared statements";
    },
    async turn(turn) {
      insertMsg.run(randomUUID(), "user", userText(turn), Date.now());
      const messages = thread.all() as Array<{ role: string; content: string }>;
      const rows = items.all() as Array<{ id: string; content: string }>;
      const prompt =
        rows.map((row) => `[${row.id}] ${row.content}`).join("\n") +
        messages.map((message) => `${message.role}: ${message.content}`).join("\n");
      commit(turn);
      return Math.round(prompt.length / 4);
    },
    async housekeeping() {
      db.prepare(
        "DELETE FROM msg WHERE thread = 't' AND seq <= (SELECT max(seq) FROM msg WHERE thread = 't') - ?",
      ).run(THREAD);
    },
    async close() {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function floorPg(): Promise<System> {
  const { default: pg } = await import("pg");
  const database = await freshPgDatabase("cairn_peers_floor");
  const pool = new pg.Pool({ connectionString: database.url, max: 1 });
  const insertMsg =
    "INSERT INTO msg (id, thread, seq, role, content, created_at) VALUES ($1, 't', (SELECT coalesce(max(seq), 0) + 1 FROM msg WHERE thread = 't'), $2, $3, $4)";
  return {
    async setup() {
      for (const statement of FLOOR_SCHEMA) await pool.query(statement);
      const client = await pool.connect();
      await client.query("BEGIN");
      for (let index = 0; index < ITEMS; index++) {
        await client.query(
          "INSERT INTO item (id, content, version, updated_at) VALUES ($1, $2, 1, $3)",
          [`item-${index}`, itemText(index), Date.now()],
        );
        await client.query("INSERT INTO rev (item, version, content, at) VALUES ($1, 1, $2, $3)", [
          `item-${index}`,
          itemText(index),
          Date.now(),
        ]);
      }
      for (let index = 0; index < THREAD; index++)
        await client.query(insertMsg, [
          randomUUID(),
          index % 2 ? "assistant" : "user",
          threadText(index),
          Date.now(),
        ]);
      await client.query("COMMIT");
      client.release();
      return "pg 8, one pooled connection, parameterized queries";
    },
    async turn(turn) {
      await pool.query({
        name: "ins",
        text: insertMsg,
        values: [randomUUID(), "user", userText(turn), Date.now()],
      });
      const messages = await pool.query({
        name: "thread",
        text: "SELECT id, role, content FROM msg WHERE thread = 't' ORDER BY seq",
      });
      const rows = await pool.query({
        name: "items",
        text: "SELECT id, content, version FROM item",
      });
      const prompt =
        rows.rows
          .map((row: { id: string; content: string }) => `[${row.id}] ${row.content}`)
          .join("\n") +
        messages.rows
          .map(
            (message: { role: string; content: string }) => `${message.role}: ${message.content}`,
          )
          .join("\n");
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        await client.query({
          name: "ins",
          text: insertMsg,
          values: [randomUUID(), "assistant", replyText(turn), Date.now()],
        });
        const id = `item-${turn % ITEMS}`;
        const content = itemText(turn % ITEMS, turn);
        const updated = await client.query({
          name: "upd",
          text: "UPDATE item SET content = $1, version = version + 1, updated_at = $2 WHERE id = $3 RETURNING version",
          values: [content, Date.now(), id],
        });
        await client.query({
          name: "rev",
          text: "INSERT INTO rev (item, version, content, at) VALUES ($1, $2, $3, $4)",
          values: [id, updated.rows[0].version, content, Date.now()],
        });
        await client.query("COMMIT");
      } finally {
        client.release();
      }
      return Math.round(prompt.length / 4);
    },
    async housekeeping() {
      await pool.query(
        "DELETE FROM msg WHERE thread = 't' AND seq <= (SELECT max(seq) FROM msg WHERE thread = 't') - $1",
        [THREAD],
      );
    },
    async close() {
      await pool.end();
      await database.drop();
    },
  };
}

// ------------------------------------------------------------------ Cairn: memory calls

async function cairn(provider: "sqlite" | "postgresql"): Promise<System> {
  const { createDb, migrateDatabase } = await import("@/lib/db");
  const { createHarness, formatHarnessStateWithTokens } = await import("@/lib/harness");
  const { harnessStorageFor } = await import("@/lib/sql-storage");
  const { appendMessage, loadChatMessages } = await import("@/lib/chat/messages");
  const { sqlFor } = await import("@/lib/sql-storage/sql");
  let target: DatabaseTarget;
  let cleanup: () => Promise<void>;
  if (provider === "sqlite") {
    const dir = tempDir();
    const filePath = path.join(dir, "cairn.db");
    target = { provider, url: `file:${filePath}`, filePath };
    cleanup = async () => rmSync(dir, { recursive: true, force: true });
  } else {
    const database = await freshPgDatabase("cairn_peers_cairn");
    target = { provider, url: database.url };
    cleanup = database.drop;
  }
  await migrateDatabase({ target });
  const db = createDb(target);
  const sql = sqlFor(target);
  const workspace = await db.workspace.create({ data: { name: "peers" } });
  const user = await db.user.create({ data: { email: "peers@example.com", name: "Peers" } });
  await db.membership.create({
    data: { userId: user.id, workspaceId: workspace.id, role: "admin" },
  });
  const chat = await db.chat.create({
    data: { workspaceId: workspace.id, userId: user.id, title: "Peers" },
  });
  const actor = { userId: user.id, workspaceId: workspace.id, role: "admin" as const };
  // As the app does: a harness per turn over the storage for this database.
  const harness = () =>
    createHarness({ storage: harnessStorageFor({ target }), actor, chatId: chat.id });
  const message = (role: "user" | "assistant", text: string) => ({
    id: randomUUID(),
    role,
    parts: [{ type: "text" as const, text }],
  });
  return {
    async setup() {
      for (let start = 0; start < ITEMS; start += 500) {
        await harness().applyEdits({
          edits: Array.from({ length: Math.min(500, ITEMS - start) }, (_, offset) => ({
            op: "create" as const,
            kind: "memory" as const,
            global: true,
            id: `item-${start + offset}`,
            title: `Item ${start + offset}`,
            content: itemText(start + offset),
          })),
        });
      }
      for (let index = 0; index < THREAD; index++)
        await appendMessage(
          sql,
          chat.id,
          message(index % 2 ? "assistant" : "user", threadText(index)),
        );
      return `the SQL layer on ${provider} (the app's storage: harnessStorageFor)`;
    },
    async turn(turn) {
      const store = harness();
      await appendMessage(sql, chat.id, message("user", userText(turn)));
      const messages = await loadChatMessages(sql, chat.id);
      const state = await store.snapshot();
      const view = formatHarnessStateWithTokens({
        state,
        tokenBudget: TOKEN_BUDGET,
        query: userText(turn),
      });
      const id = `item-${turn % ITEMS}`;
      const entry = state.entries.find(
        (candidate) => candidate.id === id && candidate.kind === "memory",
      );
      if (!entry) throw new Error(`no entry ${id}`);
      await store.updateEntry({
        kind: "memory",
        id,
        global: true,
        expectedVersion: entry.version,
        content: itemText(turn % ITEMS, turn),
      });
      await appendMessage(sql, chat.id, message("assistant", replyText(turn)));
      return view.tokens + Math.round(JSON.stringify(messages).length / 4);
    },
    async housekeeping() {
      const last = await db.chatMessage.findFirst({
        where: { chatId: chat.id },
        orderBy: { seq: "desc" },
        select: { seq: true },
      });
      await db.chatMessage.deleteMany({
        where: { chatId: chat.id, seq: { lte: (last?.seq ?? 0) - THREAD } },
      });
    },
    async close() {
      await db.$disconnect();
      await cleanup();
    },
  };
}

// ------------------------------------------------------------------ Mastra Memory on LibSQL

async function mastra(): Promise<System> {
  const { Memory } = await import("@mastra/memory");
  const { LibSQLStore } = await import("@mastra/libsql");
  const dir = tempDir();
  const storage = new LibSQLStore({ url: `file:${path.join(dir, "mastra.db")}` });
  const memory = new Memory({
    storage,
    options: {
      lastMessages: THREAD + 2,
      semanticRecall: false,
      workingMemory: { enabled: true, scope: "resource" },
    },
  });
  const resourceId = "user-1";
  const threadId = "thread-1";
  const lines = Array.from({ length: ITEMS }, (_, index) => `- item-${index}: ${itemText(index)}`);
  const message = (role: "user" | "assistant", text: string) => ({
    id: randomUUID(),
    role,
    threadId,
    resourceId,
    createdAt: new Date(),
    content: { format: 2 as const, parts: [{ type: "text" as const, text }] },
  });
  let seq = 0;
  const stamp = (value: ReturnType<typeof message>) => ({
    ...value,
    createdAt: new Date(Date.UTC(2026, 0, 1) + seq++ * 1000),
  });
  return {
    async setup() {
      await memory.createThread({ resourceId, threadId, title: "Peers" });
      await memory.updateWorkingMemory({ threadId, resourceId, workingMemory: lines.join("\n") });
      await memory.saveMessages({
        messages: Array.from({ length: THREAD }, (_, index) =>
          stamp(message(index % 2 ? "assistant" : "user", threadText(index))),
        ),
        format: "v2",
      });
      return "@mastra/memory 0.15.13 + @mastra/libsql 0.16.4 (file), working memory resource-scoped, semantic recall off";
    },
    async turn(turn) {
      await memory.saveMessages({
        messages: [stamp(message("user", userText(turn)))],
        format: "v2",
      });
      const recalled = await memory.query({ threadId, resourceId, selectBy: { last: THREAD + 2 } });
      const system = await memory.getSystemMessage({ threadId, resourceId });
      await memory.saveMessages({
        messages: [stamp(message("assistant", replyText(turn)))],
        format: "v2",
      });
      lines[turn % ITEMS] = `- item-${turn % ITEMS}: ${itemText(turn % ITEMS, turn)}`;
      await memory.updateWorkingMemory({ threadId, resourceId, workingMemory: lines.join("\n") });
      return Math.round(((system?.length ?? 0) + JSON.stringify(recalled.messages).length) / 4);
    },
    async housekeeping() {
      const { messages } = await memory.query({ threadId, resourceId, selectBy: { last: 200 } });
      const old = (messages as Array<{ id?: string }>).slice(
        0,
        Math.max(0, messages.length - THREAD),
      );
      const ids = old.map((item) => item.id).filter((id): id is string => Boolean(id));
      if (ids.length) await memory.deleteMessages(ids);
    },
    async close() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// ------------------------------------------------------------------ mem0 OSS Memory

async function mem0(): Promise<System> {
  const baseURL = process.env.BENCH_PEERS_OPENAI_URL;
  if (!baseURL) throw new Error("BENCH_PEERS_OPENAI_URL is not set");
  const { Memory } = await import("mem0ai/oss");
  const dir = tempDir();
  const memory = new Memory({
    version: "v1.1",
    embedder: {
      provider: "openai",
      config: { apiKey: "stub", model: "text-embedding-3-small", baseURL, embeddingDims: 256 },
    },
    vectorStore: {
      provider: "memory",
      config: { collectionName: "peers", dimension: 256, dbPath: path.join(dir, "vectors.db") },
    },
    llm: { provider: "openai", config: { apiKey: "stub", model: "gpt-4o-mini", baseURL } },
    historyDbPath: path.join(dir, "history.db"),
  } as ConstructorParameters<typeof Memory>[0]);
  const userId = "user-1";
  const added: string[] = [];
  return {
    async setup() {
      for (let index = 0; index < ITEMS; index++) {
        const result = await memory.add(itemText(index), { userId, infer: false });
        for (const item of result.results ?? []) added.push(item.id);
      }
      return "mem0ai 3.3.1 OSS Memory: default (in-process) vector store, SQLite history, stub LLM/embedder";
    },
    async turn(turn) {
      const found = await memory.search(userText(turn), { filters: { user_id: userId }, topK: 20 });
      const result = await memory.add(
        [
          { role: "user", content: userText(turn) },
          { role: "assistant", content: replyText(turn) },
        ],
        { userId },
      );
      if (!result.results?.length)
        throw new Error("mem0 add stored nothing (check the stub's answer)");
      for (const item of result.results) added.push(item.id);
      return Math.round(JSON.stringify(found.results ?? []).length / 4);
    },
    async housekeeping() {
      // Keep the store at ITEMS memories: delete the oldest.
      while (added.length > ITEMS) await memory.delete(added.shift()!);
    },
    async close() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// ------------------------------------------------------------------ main

const factories: Record<string, () => Promise<System>> = {
  "floor-sqlite": floorSqlite,
  "floor-pg": floorPg,
  "cairn-sqlite": () => cairn("sqlite"),
  "cairn-pg": () => cairn("postgresql"),
  mastra,
  mem0,
};

const name = process.argv[2] ?? "";
const send = (message: Record<string, unknown>) => process.send!(message);
let system: System | undefined;

process.on("message", (raw) => {
  const message = raw as { type: string; turn?: number };
  void (async () => {
    try {
      if (message.type === "setup") {
        const factory = factories[name];
        if (!factory) throw new Error(`unknown system ${name}`);
        system = await factory();
        send({ type: "ready", info: await system.setup() });
      } else if (message.type === "turn") {
        const turn = message.turn!;
        const cpu = process.cpuUsage();
        const started = performance.now();
        const context = await system!.turn(turn);
        const wall = performance.now() - started;
        const used = process.cpuUsage(cpu);
        await system!.housekeeping(turn);
        send({ type: "sample", wall, cpu: (used.user + used.system) / 1000, context });
      } else if (message.type === "close") {
        await system?.close();
        send({ type: "closed" });
        process.exit(0);
      }
    } catch (error) {
      send({
        type: "error",
        message: error instanceof Error ? (error.stack ?? error.message) : String(error),
      });
    }
  })();
});
