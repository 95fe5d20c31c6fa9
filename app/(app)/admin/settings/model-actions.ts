"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { action, fail } from "@/lib/actions";
import { cairn } from "@/lib/cairn";
import { getSql } from "@/lib/sql-storage/sql";
import {
  deleteModelSettings,
  modelConfigFromInput,
  modelSettingsInputSchema,
  readModelSettingsRow,
  saveModelSettings,
  SealedSecretUnreadable,
} from "@/lib/model-settings";
import { listEndpointModels, testModelConnection } from "@/lib/model-settings/probe";

/** Admin → Settings → Model (decision 0043). Every action is the workspace's admins' only. */

export const saveModelSettingsAction = action(
  { input: modelSettingsInputSchema, role: "admin" },
  async ({ input, actor }) => {
    if (input.provider !== "openai-compatible" && !input.apiKey) {
      const saved = await readModelSettingsRow(getSql(), actor.workspaceId);
      if (input.clearApiKey || !saved?.apiKeyEncrypted || saved.provider !== input.provider)
        fail("validation:input", "Enter the API key: this provider needs one.");
    }
    await saveModelSettings(getSql(), {
      workspaceId: actor.workspaceId,
      input,
      key: cairn().modelKey(),
      by: actor.userId,
    });
    cairn().workspaceModels.forget(actor.workspaceId);
    revalidatePath("/admin/settings");
    revalidatePath("/chat", "layout");
  },
);

export const removeModelSettingsAction = action(
  { input: z.object({}), role: "admin" },
  async ({ actor }) => {
    await deleteModelSettings(getSql(), actor.workspaceId, actor.userId);
    cairn().workspaceModels.forget(actor.workspaceId);
    revalidatePath("/admin/settings");
  },
);

const probeSchema = z.object({
  provider: z.enum(["openai", "anthropic", "openai-compatible"]),
  baseUrl: z.string().trim().max(500).optional(),
  apiKey: z.string().trim().max(1000).optional(),
  clearApiKey: z.boolean().optional(),
  model: z.string().trim().max(200).optional(),
});

async function configOf(
  input: z.infer<typeof probeSchema>,
  workspaceId: string,
): ReturnType<typeof modelConfigFromInput> {
  const baseUrl = input.baseUrl ? input.baseUrl : undefined;
  if (baseUrl) {
    const url = URL.canParse(baseUrl) ? new URL(baseUrl) : null;
    if (!url || (url.protocol !== "http:" && url.protocol !== "https:"))
      fail("validation:input", "The Base URL must start with http:// or https://.");
  } else if (input.provider === "openai-compatible") {
    fail("validation:input", "Enter the server's Base URL first (usually ending in /v1).");
  }
  try {
    return await modelConfigFromInput(getSql(), {
      workspaceId,
      input: { ...input, baseUrl },
      key: cairn().modelKey(),
    });
  } catch (error) {
    if (error instanceof SealedSecretUnreadable) fail("validation:input", error.message);
    throw error;
  }
}

/** Test connection: one real one-token call with what the form holds (a blank key: the saved one). */
export const testModelConnectionAction = action(
  { input: probeSchema, role: "admin" },
  async ({ input, actor }) => {
    if (!input.model) fail("validation:input", "Choose or type a model first.");
    const config = await configOf(input, actor.workspaceId);
    return testModelConnection(config);
  },
);

/** The models the endpoint lists, for the Model field's suggestions; `null` when it lists none. */
export const listModelsAction = action(
  { input: probeSchema, role: "admin" },
  async ({ input, actor }) => {
    const config = await configOf(input, actor.workspaceId);
    return listEndpointModels({
      provider: config.provider,
      baseURL: config.baseURL,
      apiKey: config.apiKey,
    });
  },
);
