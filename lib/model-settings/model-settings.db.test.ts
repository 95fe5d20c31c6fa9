// Admin → Settings → Model on both databases: the key sealed at rest and never read back, the
// precedence of AI_* variables, and the per-version cache that lets a change saved on one
// instance reach the next turn on another (decision 0043).
import { sqlForDb } from "@/lib/sql-storage/sql";
import { afterAll, describe, expect, it } from "vitest";
import { registerAppTestWorld } from "@/lib/accounts/testing";
import { getChatModel, getRefineModel } from "@/lib/ai";
import { createCairn } from "@/lib/cairn";
import { testConfig } from "@/lib/cairn/testing";
import { findChatForTurn, sqlOf } from "@/lib/chat/queries";
import { NO_MODEL_ENV } from "@/lib/ai/testing";
import { testDatabaseProvider } from "@/lib/db/testing";
import {
  deleteModelSettings,
  modelKeyFromSecret,
  readModelSettingsView,
  saveModelSettings,
} from "./index";

const key = modelKeyFromSecret(process.env.AUTH_SECRET!);

describe(`model settings saved in the app (${testDatabaseProvider()})`, () => {
  const world = registerAppTestWorld({ role: "admin", env: NO_MODEL_ENV });

  it("with nothing saved there is no model, and the message names where to connect one", async () => {
    const model = await getChatModel({ workspaceId: world.actor.workspaceId });
    expect(model.status).toBe("unavailable");
    if (model.status === "ready") return;
    expect(model.message).toContain("Admin → Settings → Model");
  });

  it("saves the key sealed, never reads it back to the page, and the next call uses the model", async () => {
    const { db } = world.database;
    await saveModelSettings(sqlForDb(db), {
      workspaceId: world.actor.workspaceId,
      input: {
        provider: "openai-compatible",
        baseUrl: "http://127.0.0.1:8000/v1/",
        apiKey: "sk-very-secret-42",
        model: "llama3.2",
        refineModel: "llama3.2:1b",
      },
      key,
      by: world.actor.userId,
    });
    const row = await db.modelSettings.findUniqueOrThrow({
      where: { workspaceId: world.actor.workspaceId },
    });
    expect(row.apiKeyEncrypted).not.toContain("sk-very-secret-42");
    expect(row.baseUrl).toBe("http://127.0.0.1:8000/v1");
    const view = await readModelSettingsView(sqlForDb(db), world.actor.workspaceId);
    expect(view).toMatchObject({ apiKeySet: true, model: "llama3.2", version: 1 });
    expect(JSON.stringify(view)).not.toContain("sk-very-secret-42");

    const chat = await getChatModel({ workspaceId: world.actor.workspaceId });
    expect(chat).toMatchObject({
      status: "ready",
      source: "workspace",
      provider: "openai-compatible",
      modelId: "llama3.2",
      baseURL: "http://127.0.0.1:8000/v1",
    });
    const refine = await getRefineModel({ workspaceId: world.actor.workspaceId });
    expect(refine).toMatchObject({ status: "ready", modelId: "llama3.2:1b" });
  });

  it("keeps the saved key when the field is left blank, and drops it when the provider changes", async () => {
    const { db } = world.database;
    const workspaceId = world.actor.workspaceId;
    const before = await db.modelSettings.findUniqueOrThrow({ where: { workspaceId } });
    await saveModelSettings(sqlForDb(db), {
      workspaceId,
      input: {
        provider: "openai-compatible",
        baseUrl: "http://127.0.0.1:8000/v1",
        apiKey: "",
        model: "qwen3",
      },
      key,
      by: world.actor.userId,
    });
    const kept = await db.modelSettings.findUniqueOrThrow({ where: { workspaceId } });
    expect(kept.apiKeyEncrypted).toBe(before.apiKeyEncrypted);
    expect(kept.version).toBe(before.version + 1);
    expect(kept.refineModel).toBeNull();
    await saveModelSettings(sqlForDb(db), {
      workspaceId,
      input: { provider: "openai", baseUrl: "", apiKey: "", model: "gpt-4.1-mini" },
      key,
      by: world.actor.userId,
    });
    expect(
      (await db.modelSettings.findUniqueOrThrow({ where: { workspaceId } })).apiKeyEncrypted,
    ).toBeNull();
  });

  it("a change saved elsewhere is used by this process's next call (the cached copy checks the version)", async () => {
    const { db } = world.database;
    const workspaceId = world.actor.workspaceId;
    // Another instance: its own Cairn (and cache) on the same database.
    const other = createCairn(testConfig({ database: world.database.target, env: NO_MODEL_ENV }));
    try {
      const save = (model: string) =>
        saveModelSettings(sqlForDb(db), {
          workspaceId,
          input: { provider: "openai-compatible", baseUrl: "http://127.0.0.1:8000/v1", model },
          key,
          by: world.actor.userId,
        });
      await save("first-model");
      const first = await other.workspaceModels.get(workspaceId);
      expect(first?.status === "configured" && first.config.modelId).toBe("first-model");
      await save("second-model");
      // The turn's path: the version comes with the chat, no extra statement.
      const chat = await findChatForTurn(sqlOf(db), {
        chatId: world.chatId,
        userId: world.actor.userId,
        workspaceId,
      });
      const second = await other.workspaceModels.get(workspaceId, chat!.modelSettingsVersion);
      expect(second?.status === "configured" && second.config.modelId).toBe("second-model");
      // Removed elsewhere: gone here too.
      await deleteModelSettings(sqlForDb(db), workspaceId);
      expect(await other.workspaceModels.get(workspaceId)).toBeNull();
    } finally {
      await other.close();
    }
  });

  it("after AUTH_SECRET changes, a saved key is reported unreadable in words, never used", async () => {
    const { db } = world.database;
    const workspaceId = world.actor.workspaceId;
    await saveModelSettings(sqlForDb(db), {
      workspaceId,
      input: {
        provider: "openai",
        baseUrl: "",
        apiKey: "sk-before-rotation",
        model: "gpt-4.1-mini",
      },
      key,
      by: world.actor.userId,
    });
    const rotated = createCairn(
      testConfig({
        database: world.database.target,
        env: { ...NO_MODEL_ENV, AUTH_SECRET: "a-rotated-secret-0123456789-abcdefghij" },
      }),
    );
    try {
      const result = await rotated.workspaceModels.get(workspaceId);
      expect(result?.status).toBe("misconfigured");
      expect(result?.status === "misconfigured" && result.message).toMatch(
        /AUTH_SECRET has changed.*enter the key again/,
      );
    } finally {
      await rotated.close();
    }
  });
});

describe(`AI_* variables win over the saved model (${testDatabaseProvider()})`, () => {
  const world = registerAppTestWorld({
    role: "admin",
    env: {
      ...NO_MODEL_ENV,
      AI_PROVIDER: "openai-compatible",
      AI_BASE_URL: "http://127.0.0.1:9999/v1",
      AI_MODEL: "from-the-environment",
    },
  });
  afterAll(() => undefined);

  it("uses the environment's model while one is set", async () => {
    await saveModelSettings(sqlForDb(world.database.db), {
      workspaceId: world.actor.workspaceId,
      input: { provider: "openai-compatible", baseUrl: "http://127.0.0.1:8000/v1", model: "saved" },
      key,
      by: world.actor.userId,
    });
    const model = await getChatModel({ workspaceId: world.actor.workspaceId });
    expect(model).toMatchObject({
      status: "ready",
      source: "env",
      modelId: "from-the-environment",
    });
  });
});
