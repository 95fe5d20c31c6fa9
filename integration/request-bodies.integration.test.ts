/**
 * Request bodies and turn limits against `next start` (issue 31, findings 2–4): a 450 MB chunked
 * body — made on the fly, never held — to `/api/chat` (signed out and signed in), `/api/mcp` and
 * a server action is answered early, and the server's resident memory (VmRSS of the next-server
 * process) stays within 100 MB of where it was. MCP writes share the person's concurrent-turn
 * slots and turn rate with chat turns (a scripted model keeps a turn running). Run with `npm run test:integration` (one server for the file; port
 * CAIRN_INTEGRATION_PORT + 1, default 3151). The figures are printed; bench/body-limits.ts
 * measures the same on demand.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { createAccessToken } from "@/lib/access-tokens";
import { createUserInWorkspace } from "@/lib/accounts";
import {
  startScriptedModelServer,
  type ScriptedModelServer,
} from "../e2e/support/scripted-model-server";
import { sessionCookieFor, startAppServer, type AppServer } from "./support/app-server";
import { megabytes, rssOf, sampleRss, serverPidBelow } from "./support/process-memory";
import { postStreamedBody } from "./support/streamed-body";
import { sqlForDb } from "@/lib/sql-storage/sql";

const port = Number(process.env.CAIRN_INTEGRATION_PORT ?? 3150) + 1;
/** The body's size: 450 MB, as in the review (CAIRN_INTEGRATION_BODY_MB to change it). */
const BIG = Number(process.env.CAIRN_INTEGRATION_BODY_MB ?? 450) * 1024 * 1024;
/** How far the server's RSS may move during one 450 MB request. */
const RSS_BUDGET = 100 * 1024 * 1024;

let app: AppServer;
let model: ScriptedModelServer;
let serverPid: number;
let userId: string;
let workspaceId: string;
let cookie: string;
let token: string;

beforeAll(
  async () => {
    model = await startScriptedModelServer();
    app = await startAppServer({
      port,
      env: {
        // One turn at a time and 10 a minute make the turn-limit cases below decisive.
        CAIRN_MAX_TURNS_PER_USER: "1",
        CAIRN_TURNS_PER_MINUTE: "10",
        AI_PROVIDER: "openai-compatible",
        AI_BASE_URL: model.baseURL,
        AI_MODEL: model.modelId,
        AI_API_KEY: "integration-not-a-secret",
      },
    });
    serverPid = serverPidBelow(app.pid);
    const { user, workspace } = await createUserInWorkspace(sqlForDb(app.db), {
      email: "member@acme.test",
      password: "integration-password",
      name: "Member",
      role: "member",
      workspaceName: "Acme",
    });
    userId = user.id;
    workspaceId = workspace.id;
    cookie = await sessionCookieFor({ userId: user.id, workspaceId: workspace.id, role: "member" });
    ({ token } = await createAccessToken(sqlForDb(app.db), {
      userId: user.id,
      workspaceId: workspace.id,
      name: "laptop",
    }));
    // Warm the routes so their first compile-free load is not counted as the body's memory.
    await fetch(`${app.baseUrl}/api/chat`, { method: "POST", headers: { cookie }, body: "{}" });
    await fetch(`${app.baseUrl}/api/mcp`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: "{}",
    });
    await fetch(`${app.baseUrl}/sign-in`);
  },
  25 * 60 * 1000,
);

afterAll(async () => {
  await app?.db.$disconnect();
  await app?.stop();
  await model?.close();
});

/** Sends the 450 MB body and reports the answer with the server's RSS before, at peak and after. */
async function sendBig(path: string, headers: Record<string, string>, prefix?: string) {
  const before = rssOf(serverPid);
  const sampler = sampleRss(serverPid);
  const result = await postStreamedBody({
    url: `${app.baseUrl}${path}`,
    totalBytes: BIG,
    headers,
    prefix,
  });
  await new Promise((resolve) => setTimeout(resolve, 300));
  const peak = sampler.stop();
  const after = rssOf(serverPid);
  console.log(
    `${path} ${JSON.stringify(Object.keys(headers))}: ${result.status} ${result.body.slice(0, 80)} in ${result.answerMs?.toFixed(0)} ms after ${megabytes(result.sentBeforeAnswer)} sent; RSS ${megabytes(before)} → peak ${megabytes(peak)} → ${megabytes(after)}${result.error ? ` (then ${result.error})` : ""}`,
  );
  // The server still answers.
  expect((await fetch(`${app.baseUrl}/api/health`)).status).toBe(200);
  return { ...result, before, peak, after };
}

describe("request bodies are bounded before they are parsed", () => {
  it("/api/chat without a session: 401 before the body is read", async () => {
    const sent = await sendBig("/api/chat", {});
    expect(sent.status).toBe(401);
    expect(sent.body).toContain("Sign in first.");
    expect(sent.sentBeforeAnswer).toBeLessThan(BIG);
    expect(sent.peak - sent.before).toBeLessThan(RSS_BUDGET);
  });

  it("/api/chat with a session: 413 after at most 256 KiB", async () => {
    const sent = await sendBig("/api/chat", { cookie });
    expect(sent.status).toBe(413);
    expect(sent.body).toContain("larger than 256 KiB");
    expect(sent.sentBeforeAnswer).toBeLessThan(BIG);
    expect(sent.peak - sent.before).toBeLessThan(RSS_BUDGET);
  });

  it("/api/mcp with a valid token and no Content-Length: 413 while streaming", async () => {
    const sent = await sendBig(
      "/api/mcp",
      { authorization: `Bearer ${token}`, accept: "application/json, text/event-stream" },
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"memory","arguments":{"command":"create","path":"/persistent/user/a.md","file_text":"',
    );
    expect(sent.status).toBe(413);
    expect(sent.sentBeforeAnswer).toBeLessThan(BIG);
    expect(sent.peak - sent.before).toBeLessThan(RSS_BUDGET);
  });

  it("a server action without a session and without a length: refused by the proxy", async () => {
    const sent = await sendBig(
      "/sign-in",
      { "next-action": "7f".padEnd(42, "0"), "content-type": "text/plain;charset=UTF-8" },
      '["',
    );
    expect(sent.status).toBe(411);
    expect(sent.peak - sent.before).toBeLessThan(RSS_BUDGET);
  });

  it("the sign-in action still reaches Next signed out when its length is declared and small", async () => {
    const html = await (await fetch(`${app.baseUrl}/sign-in`)).text();
    const actionId = /\$ACTION_1:0" value="\{&quot;id&quot;:&quot;([0-9a-f]+)&quot;/.exec(
      html,
    )?.[1];
    expect(actionId).toBeDefined();
    const post = (extra: string) => {
      const form = new FormData();
      form.set("0", '["$undefined","$K1"]');
      form.set("1_email", "member@acme.test");
      form.set("1_password", "integration-password");
      if (extra) form.set("1_extra", extra);
      return fetch(`${app.baseUrl}/sign-in`, {
        method: "POST",
        headers: { "next-action": actionId!, accept: "text/x-component", origin: app.baseUrl },
        body: form,
      });
    };
    const small = await post("");
    // The action ran (an RSC answer), not the proxy's refusal.
    expect(small.status).toBe(200);
    expect(small.headers.get("content-type")).toContain("text/x-component");
    const large = await post("x".repeat(70 * 1024));
    expect(large.status).toBe(413);
  });

  it("a server action with a session and a large chunked body: Next's 5 MB limit, memory bounded", async () => {
    const html = await (await fetch(`${app.baseUrl}/sign-in`)).text();
    const actionId = /\$ACTION_1:0" value="\{&quot;id&quot;:&quot;([0-9a-f]+)&quot;/.exec(
      html,
    )![1]!;
    // A real action: Next reads its body, counting while it streams, and stops at 5 MB.
    const real = await sendBig(
      "/sign-in",
      { cookie, "next-action": actionId, "content-type": "text/plain;charset=UTF-8" },
      '["',
    );
    // Next's ApiError(413) reaches a fetch action's caller as a 500 (Next's own behaviour); the
    // body was not parsed and the action did not run.
    expect([413, 500]).toContain(real.status);
    expect(real.peak - real.before).toBeLessThan(RSS_BUDGET);
    // An unknown action id is refused before its body is parsed.
    const unknown = await sendBig(
      "/files",
      { cookie, "next-action": "7f".padEnd(42, "0"), "content-type": "text/plain;charset=UTF-8" },
      '["',
    );
    expect(unknown.status).toBe(409);
    expect(unknown.peak - unknown.before).toBeLessThan(RSS_BUDGET);
  });
});

describe("MCP writes share the person's turn limits with chat turns", () => {
  const mcp = (messages: unknown) =>
    fetch(`${app.baseUrl}/api/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify(messages),
    });
  let nextId = 1;
  const write = (name: string) => ({
    jsonrpc: "2.0",
    id: nextId++,
    method: "tools/call",
    params: {
      name: "memory",
      arguments: { command: "create", path: `/persistent/user/${name}.md`, file_text: "x\n" },
    },
  });
  const read = () => ({
    jsonrpc: "2.0",
    id: nextId++,
    method: "tools/call",
    params: { name: "harness_search", arguments: {} },
  });

  it("refuses an MCP write while a chat turn holds the only slot, and past the shared rate", async () => {
    // CAIRN_MAX_TURNS_PER_USER=1, CAIRN_TURNS_PER_MINUTE=10 (a token every 6 s).
    const chat = await app.db.chat.create({
      data: { workspaceId, userId, title: "Slow turn" },
      select: { id: true },
    });
    model.setScript([{ reply: { text: "one two three four five six", delayMs: 250 } }]);
    const turn = await fetch(`${app.baseUrl}/api/chat`, {
      method: "POST",
      headers: { cookie, "content-type": "application/json" },
      body: JSON.stringify({
        chatId: chat.id,
        message: { id: "slow-1", role: "user", parts: [{ type: "text", text: "take your time" }] },
      }),
    });
    expect(turn.status).toBe(200);
    const turnDone = turn.text();

    const busy = await mcp(write("while-the-turn-runs"));
    expect(busy.status).toBe(429);
    expect(busy.headers.get("retry-after")).toBe("5");
    expect(((await busy.json()) as { error: { message: string } }).error.message).toMatch(
      /You already have 1 turn running \(chat turns and MCP memory or write calls together\)/,
    );
    // Reads are not limited.
    expect((await mcp(read())).status).toBe(200);

    await turnDone;
    // The slot is released once the turn has been recorded.
    let after = await mcp(write("after-the-turn"));
    for (let tries = 0; after.status === 429 && tries < 40; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      after = await mcp(write("after-the-turn"));
    }
    expect(after.status).toBe(200);

    // 10 tokens: the chat turn took one, the write one; a batch of 11 could never pass.
    const tooBig = await mcp(Array.from({ length: 11 }, (_, index) => write(`big-${index}`)));
    expect(tooBig.status).toBe(400);
    const batch = await mcp(Array.from({ length: 8 }, (_, index) => write(`batch-${index}`)));
    expect(batch.status).toBe(200);
    const overRate = await mcp([write("over-1"), write("over-2")]);
    expect(overRate.status).toBe(429);
    const retryAfter = Number(overRate.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(12);
    // The chat shares the bucket: its next turn waits too.
    const chatOverRate = await fetch(`${app.baseUrl}/api/chat`, {
      method: "POST",
      headers: { cookie, "content-type": "application/json" },
      body: JSON.stringify({
        chatId: chat.id,
        message: { id: "slow-2", role: "user", parts: [{ type: "text", text: "again" }] },
      }),
    });
    expect(chatOverRate.status).toBe(429);
    expect(Number(chatOverRate.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(((await chatOverRate.json()) as { error: string }).error).toMatch(
      /^You are starting turns faster than 10 a minute\. Try again in \d+ s\.$/,
    );
  });
});
