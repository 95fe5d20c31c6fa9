// Nothing typed is lost (issue 26): with no model, `POST /api/chat` keeps the message and
// answers 503 `model:unavailable`; members are told to ask an admin, never how to configure.
// Once a model is saved on Admin → Settings → Model, the kept message is sent (regenerate).
import { sqlForDb } from "@/lib/sql-storage/sql";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createUserInWorkspace } from "@/lib/accounts/accounts";
import { registerAppTestWorld } from "@/lib/accounts/testing";
import type * as AuthModule from "@/lib/auth/auth";
import type { TestSignIn } from "@/lib/auth/testing";
import { NO_MODEL_ENV } from "@/lib/ai/testing";
import { testDatabaseProvider } from "@/lib/db/testing";
import { modelKeyFromSecret, saveModelSettings } from "@/lib/model-settings";
import { loadChatMessages } from "./messages";
vi.mock("server-only", () => ({}));

// The signed-in person: a mocked Auth.js decode of a cookie of their own.
const session = vi.hoisted((): TestSignIn => ({ current: null }));
vi.mock("next/headers", async () =>
  (await import("@/lib/auth/testing")).sessionCookieHeaders(session),
);
vi.mock("@/lib/auth/auth", async (importOriginal) => {
  const { authSignedInAs } = await import("@/lib/auth/testing");
  return authSignedInAs(await importOriginal<typeof AuthModule>(), session);
});

/** A one-answer OpenAI-compatible endpoint on loopback, for the model saved mid-test. */
async function startTinyModelServer() {
  const { createServer } = await import("node:http");
  const seen: string[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      const parsed = JSON.parse(body || "{}") as { model?: string };
      seen.push(parsed.model ?? "");
      res.writeHead(200, { "content-type": "text/event-stream" });
      const chunk = (delta: object, finish: string | null = null) =>
        `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 0, model: parsed.model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      res.end(
        chunk({ role: "assistant", content: "Got it, sent at last." }) +
          chunk({}, "stop") +
          "data: [DONE]\n\n",
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address() as { port: number };
  return { url: `http://127.0.0.1:${address.port}/v1`, seen, close: () => server.close() };
}

function post(chatId: string, id: string, text: string, mode?: "regenerate") {
  return import("@/app/api/chat/route").then(({ POST }) =>
    POST(
      new Request("http://localhost/api/chat", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          chatId,
          message: { id, role: "user", parts: [{ type: "text", text }] },
          ...(mode && { mode }),
        }),
      }),
    ),
  );
}

describe(`a message sent with no model is kept (${testDatabaseProvider()})`, () => {
  const world = registerAppTestWorld({ role: "admin", env: NO_MODEL_ENV });
  let member: { userId: string; chatId: string };
  let model: Awaited<ReturnType<typeof startTinyModelServer>>;
  beforeAll(async () => {
    model = await startTinyModelServer();
    const { db } = world.database;
    const { user } = await createUserInWorkspace(sqlForDb(db), {
      email: "max@example.com",
      password: "long-password",
      role: "member",
      workspaceName: "Acme",
    });
    const chat = await db.chat.create({
      data: { workspaceId: world.actor.workspaceId, userId: user.id, title: "Member's" },
    });
    member = { userId: user.id, chatId: chat.id };
  });
  afterAll(() => model?.close());

  it("stores a member's message, answers 503 in plain words without configuration", async () => {
    session.current = { userId: member.userId, workspaceId: world.actor.workspaceId };
    const response = await post(member.chatId, "m-1", "Please remember my dentist is Tuesday.");
    expect(response.status).toBe(503);
    const body = (await response.json()) as { error: string; code: string; stored: boolean };
    expect(body).toMatchObject({ code: "model:unavailable", stored: true });
    expect(body.error).toBe("Not sent — no model is connected. Ask an admin to connect a model.");
    expect(body.error).not.toMatch(/AI_|\.env|OLLAMA/);
    const stored = await loadChatMessages(world.database.sql, member.chatId);
    expect(stored.map((message) => message.id)).toEqual(["m-1"]);
    // Sent again (the same id): still one message.
    await post(member.chatId, "m-1", "Please remember my dentist is Tuesday.");
    expect(await loadChatMessages(world.database.sql, member.chatId)).toHaveLength(1);
  });

  it("tells an admin what is missing", async () => {
    session.current = { userId: world.actor.userId, workspaceId: world.actor.workspaceId };
    const response = await post(world.chatId, "a-1", "Hello?");
    expect(response.status).toBe(503);
    const body = (await response.json()) as { error: string };
    expect(body.error).toMatch(/^Not sent — no model is connected\. .*Admin → Settings → Model/);
  });

  it("once an admin saves a model, the kept message is sent and answered", async () => {
    await saveModelSettings(sqlForDb(world.database.db), {
      workspaceId: world.actor.workspaceId,
      input: { provider: "openai-compatible", baseUrl: model.url, model: "tiny-model" },
      key: modelKeyFromSecret(process.env.AUTH_SECRET!),
      by: world.actor.userId,
    });
    session.current = { userId: member.userId, workspaceId: world.actor.workspaceId };
    const response = await post(
      member.chatId,
      "m-1",
      "Please remember my dentist is Tuesday.",
      "regenerate",
    );
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("Got it, sent at last.");
    expect(model.seen).toContain("tiny-model");
    // The stream ended once the turn was recorded: the answer is stored already.
    const stored = await loadChatMessages(world.database.sql, member.chatId);
    expect(stored.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(stored[0]!.id).toBe("m-1");
  });
});
