/**
 * Issue 26: a model saved on Admin → Settings → Model on one instance is used by the very next
 * turn on another, without a restart. Two `next start` instances of one build on one fresh
 * PostgreSQL database, with no AI_* variables (and no Ollama).
 *
 *     npx next build            # once
 *     MULTI_PORT_A=… MULTI_PORT_B=… MULTI_MODEL_PORT=… npx vitest run -c vitest.multi.config.ts multi-instance/model-settings.multi.test.ts
 */
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from "vitest";
import {
  MODEL_URL,
  PORTS,
  cairn,
  callServerAction,
  createChat,
  createDatabase,
  model,
  sendMessage,
  signInOrThrow,
  startInstance,
  startModelServer,
  type Proc,
  type Session,
} from "./support";

const admin = { email: "nia@multi.example", password: "multi-admin-pass-9", name: "Nia" };
const NO_MODEL = {
  AI_PROVIDER: "",
  AI_BASE_URL: "",
  AI_MODEL: "",
  AI_API_KEY: "",
  OLLAMA_BASE_URL: "http://127.0.0.1:9",
};

let database: Awaited<ReturnType<typeof createDatabase>>;
let modelServer: Proc;
const instances: Proc[] = [];
const bases = PORTS.map((port) => `http://127.0.0.1:${port}`);

beforeAll(async () => {
  database = await createDatabase();
  cairn(database.url, ["db", "migrate"]);
  cairn(database.url, [
    "user",
    "create",
    "--email",
    admin.email,
    "--password",
    admin.password,
    "--role",
    "admin",
    "--workspace",
    "Settings Co",
    "--name",
    admin.name,
  ]);
  modelServer = await startModelServer();
  for (const port of PORTS)
    instances.push(await startInstance({ port, databaseUrl: database.url, env: NO_MODEL }));
}, 300_000);

afterAll(async () => {
  for (const instance of instances) await instance.kill("SIGTERM");
  await modelServer?.kill("SIGTERM");
  await database?.drop();
}, 60_000);

/** The model id the app asked for in the last recorded request. */
function lastModel(requests: unknown[]): unknown {
  return (requests.at(-1) as { model?: unknown } | undefined)?.model;
}

function saveModel(session: Session, modelId: string) {
  return callServerAction(session, {
    pagePath: "/admin/settings",
    file: "app/(app)/admin/settings/model-actions.ts",
    name: "saveModelSettingsAction",
    args: [
      {
        provider: "openai-compatible",
        baseUrl: `${MODEL_URL}/v1`,
        apiKey: "multi-settings-key",
        model: modelId,
      },
    ],
  });
}

describe("model settings across instances", () => {
  it("a model saved on instance A is used by the next turn on instance B, and a change too", async () => {
    onTestFailed(() => {
      for (const proc of [...instances, modelServer])
        console.log(`--- ${proc.label} ---\n${proc.tail(60)}`);
    });
    const onA = await signInOrThrow(bases[0]!, admin);
    const onB = await signInOrThrow(bases[1]!, admin);
    const chatId = await createChat(onB, "Across instances");
    await model.reset();
    await model.setScript([{ reply: { text: "Answered from the saved model." } }]);

    // No model yet: B keeps the message and says so.
    const refused = await sendMessage(onB, chatId, "Is anyone there?");
    expect(refused.status).toBe(503);
    expect(JSON.parse(refused.body)).toMatchObject({ code: "model:unavailable", stored: true });

    // B has looked at the (missing) settings; A saves a model; B's next turn uses it.
    expect(await saveModel(onA, "first-saved-model")).not.toContain('"ok":false');
    const first = await sendMessage(onB, chatId, "Now?");
    expect(first.status, first.body).toBe(200);
    // The answer streams word by word.
    expect(first.body).toContain('"delta":"Answered "');
    expect(lastModel(await model.requests())).toBe("first-saved-model");

    // A changes the model: B's cached copy is replaced on its next turn, no restart.
    expect(await saveModel(onA, "second-saved-model")).not.toContain('"ok":false');
    const second = await sendMessage(onB, chatId, "And now?");
    expect(second.status, second.body).toBe(200);
    expect(lastModel(await model.requests())).toBe("second-saved-model");
  });
});
