import { beforeAll, describe, expect, it } from "vitest";

import { createAccessToken } from "@/lib/access-tokens";
import { createTurnRate } from "@/lib/chat/turn-rate";
import { createTurnSlots } from "@/lib/chat/turn-slots";
import { registerTestDatabase, testDatabaseProvider } from "@/lib/db/testing";
import { createPersistentDirsService } from "@/lib/workspace-dirs";
import { harnessStorageFor, listDirCommits, sqlFor } from "@/lib/sql-storage";
import { handleMcpRequest, type HandleMcpRequestOptions } from "./handle-mcp-request";
import { sqlForDb } from "@/lib/sql-storage/sql";
import { mcpPost } from "./testing";

const database = registerTestDatabase();
let base: Omit<HandleMcpRequestOptions, "slots" | "rate">;
let userId: string;
let token: string;

beforeAll(async () => {
  const { db, target } = database;
  base = {
    sql: sqlForDb(db),
    dirs: createPersistentDirsService({ sql: sqlFor(target) }),
    harnessStorage: harnessStorageFor({ target }),
  };
  const workspace = await db.workspace.create({ data: { name: "Acme" } });
  const user = await db.user.create({ data: { email: "member@acme.test", name: "Member" } });
  await db.membership.create({
    data: { userId: user.id, workspaceId: workspace.id, role: "member" },
  });
  userId = user.id;
  ({ token } = await createAccessToken(sqlForDb(db), {
    userId,
    workspaceId: workspace.id,
    name: "laptop",
  }));
});

function post(body: BodyInit, headers: Record<string, string> = {}) {
  return mcpPost({ token, body, headers });
}

let nextId = 1;
const write = (path: string) => ({
  jsonrpc: "2.0",
  id: nextId++,
  method: "tools/call",
  params: { name: "memory", arguments: { command: "create", path, file_text: `${path}\n` } },
});
const read = () => ({
  jsonrpc: "2.0",
  id: nextId++,
  method: "tools/call",
  params: { name: "harness_search", arguments: {} },
});

/** A clock that stands still: the bucket does not refill during the test. */
const frozen = () => 1_000_000;

async function commitsOf() {
  const { commits } = await listDirCommits({
    sql: sqlFor(database.target),
    dirKey: `user:${userId}`,
  });
  return commits.length;
}

describe(`MCP request limits on ${testDatabaseProvider()}`, () => {
  it("refuses a batch of writes past the rate with 429 and Retry-After, and writes nothing of it", async () => {
    const rate = createTurnRate({ perMinute: 6, now: frozen });
    const slots = createTurnSlots({ maxPerUser: 2 });
    const options = { ...base, rate, slots };
    const first = await handleMcpRequest(
      post(JSON.stringify([1, 2, 3, 4].map((n) => write(`/persistent/user/rate-${n}.md`)))),
      options,
    );
    expect(first.status).toBe(200);
    const answers = (await first.json()) as { result?: { isError?: boolean } }[];
    expect(answers).toHaveLength(4);
    expect(answers.every((answer) => answer.result && !answer.result.isError)).toBe(true);
    const before = await commitsOf();

    // Two tokens left; three writes asked.
    const refused = await handleMcpRequest(
      post(JSON.stringify([5, 6, 7].map((n) => write(`/persistent/user/rate-${n}.md`)))),
      options,
    );
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("10");
    expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(
      "You are starting turns faster than 6 a minute. Try again in 10 s.",
    );
    expect(await commitsOf()).toBe(before);
    expect(slots.running(userId)).toBe(0);

    // Reads are not limited.
    const reads = await handleMcpRequest(post(JSON.stringify([read(), read(), read()])), options);
    expect(reads.status).toBe(200);
  });

  it("counts MCP writes against the concurrent turns a person has running (chat turns too)", async () => {
    const slots = createTurnSlots({ maxPerUser: 2 });
    const options = { ...base, slots, rate: createTurnRate({ perMinute: 30, now: frozen }) };
    // Two turns running (a chat turn and an MCP request, say).
    const held = [slots.tryAcquire(userId)!, slots.tryAcquire(userId)!];
    const refused = await handleMcpRequest(
      post(JSON.stringify(write("/persistent/user/busy.md"))),
      options,
    );
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("5");
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(
      /^You already have 2 turns running \(chat turns and MCP memory or write calls together\)/,
    );
    expect((await handleMcpRequest(post(JSON.stringify(read())), options)).status).toBe(200);
    held[0]!.release();
    const allowed = await handleMcpRequest(
      post(JSON.stringify(write("/persistent/user/busy.md"))),
      options,
    );
    expect(allowed.status).toBe(200);
    expect(slots.running(userId)).toBe(1);
    held[1]!.release();
  });

  it("holds one slot for a batch and runs its writes one after another", async () => {
    const slots = createTurnSlots({ maxPerUser: 1 });
    const options = { ...base, slots, rate: createTurnRate({ perMinute: 30, now: frozen }) };
    const batch = [1, 2, 3, 4, 5].map(() => ({
      ...write("/persistent/user/counter.md"),
      params: {
        name: "memory",
        arguments: {
          command: "insert",
          path: "/persistent/user/counter.md",
          insert_line: 0,
          insert_text: "x",
        },
      },
    }));
    await handleMcpRequest(post(JSON.stringify(write("/persistent/user/counter.md"))), options);
    const response = await handleMcpRequest(post(JSON.stringify(batch)), options);
    expect(response.status).toBe(200);
    const answers = (await response.json()) as { result: { isError?: boolean } }[];
    // Side by side, each insert would have loaded the same version: merges or conflicts.
    expect(answers.map((answer) => answer.result.isError ?? false)).toEqual(Array(5).fill(false));
    const view = await handleMcpRequest(
      post(
        JSON.stringify({
          jsonrpc: "2.0",
          id: nextId++,
          method: "tools/call",
          params: {
            name: "memory",
            arguments: { command: "view", path: "/persistent/user/counter.md" },
          },
        }),
      ),
      options,
    );
    const text = ((await view.json()) as { result: { content: { text: string }[] } }).result
      .content[0]!.text;
    expect(text.match(/\bx\b/g)).toHaveLength(5);
  });

  it("refuses a batch of more than 20 messages", async () => {
    const response = await handleMcpRequest(
      post(JSON.stringify(Array.from({ length: 21 }, () => read()))),
      { ...base },
    );
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toBe(
      "A batch may hold at most 20 messages; this one has 21.",
    );
  });

  it("answers 413 to a chunked body over the limit without reading it whole", async () => {
    let produced = 0;
    const chunk = new Uint8Array(64 * 1024).fill(0x20);
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (produced >= 300 * 1024 * 1024) return controller.close();
        produced += chunk.byteLength;
        controller.enqueue(chunk.slice());
      },
    });
    const response = await handleMcpRequest(post(body), { ...base });
    expect(response.status).toBe(413);
    expect(produced).toBeLessThan(5 * 1024 * 1024);
  });
});
