import { z } from "zod";
import { isHttpUrl } from "@/lib/utils";
import type { ModelConfig, ModelProvider } from "@/lib/ai/resolve-model-config";
import { recordAuditEvent } from "@/lib/audit";
import { toDate, type Sql, type SqlExecutor } from "@/lib/sql-storage/sql";
import { openSecret, sealSecret, SealedSecretUnreadable, type ModelKeyring } from "./secret-box";

/** The providers the settings form offers, with the words it shows. */
export const MODEL_PROVIDER_LABELS: Record<ModelProvider, string> = {
  openai: "OpenAI",
  anthropic: "Anthropic",
  "openai-compatible": "OpenAI-compatible (Ollama, vLLM, LM Studio, llama.cpp)",
};

/** A workspace's saved model as an admin sees it: never the key, only whether one is saved. */
export interface ModelSettingsView {
  provider: ModelProvider;
  baseUrl: string | null;
  model: string;
  refineModel: string | null;
  apiKeySet: boolean;
  version: number;
  updatedAt: string;
}

const httpUrl = z
  .string()
  .trim()
  .max(500)
  .refine(
    isHttpUrl,
    "Enter an address starting with http:// or https://, such as http://127.0.0.1:11434/v1",
  );

/** What the form sends. `apiKey` blank keeps the saved key; `clearApiKey` removes it. */
export const modelSettingsInputSchema = z
  .object({
    provider: z.enum(["openai", "anthropic", "openai-compatible"]),
    baseUrl: z.union([z.literal(""), httpUrl]).optional(),
    apiKey: z.string().trim().max(1000).optional(),
    clearApiKey: z.boolean().optional(),
    model: z.string().trim().min(1, "Choose or type a model").max(200),
    refineModel: z.string().trim().max(200).optional(),
  })
  .superRefine((value, context) => {
    if (value.provider === "openai-compatible" && !value.baseUrl)
      context.addIssue({
        code: "custom",
        path: ["baseUrl"],
        message: "An OpenAI-compatible server needs its Base URL, usually ending in /v1",
      });
  });

export type ModelSettingsInput = z.infer<typeof modelSettingsInputSchema>;

function trimUrl(value: string | undefined): string | null {
  return value ? value.replace(/\/+$/, "") : null;
}

/** A workspace's `ModelSettings` row. */
export interface ModelSettingsRow {
  workspaceId: string;
  provider: string;
  baseUrl: string | null;
  model: string;
  refineModel: string | null;
  apiKeyEncrypted: string | null;
  version: number;
  updatedAt: Date;
  updatedBy: string | null;
}

/** The saved row of a workspace, or null. */
export async function readModelSettingsRow(
  sql: SqlExecutor,
  workspaceId: string,
): Promise<ModelSettingsRow | null> {
  const row = await sql.get<Omit<ModelSettingsRow, "updatedAt"> & { updatedAt: unknown }>(
    `SELECT "workspaceId", "provider", "baseUrl", "model", "refineModel", "apiKeyEncrypted",
            "version", "updatedAt", "updatedBy"
     FROM "ModelSettings" WHERE "workspaceId" = ?`,
    [workspaceId],
  );
  return row ? { ...row, version: Number(row.version), updatedAt: toDate(row.updatedAt) } : null;
}

/** The saved settings of a workspace for the admin page, or null. */
export async function readModelSettingsView(
  sql: SqlExecutor,
  workspaceId: string,
): Promise<ModelSettingsView | null> {
  const row = await readModelSettingsRow(sql, workspaceId);
  if (!row) return null;
  return {
    provider: row.provider as ModelProvider,
    baseUrl: row.baseUrl,
    model: row.model,
    refineModel: row.refineModel,
    apiKeySet: row.apiKeyEncrypted !== null,
    version: row.version,
    updatedAt: row.updatedAt.toISOString(),
  };
}

/**
 * Saves a workspace's model, sealing a new API key; the version goes up by one, which every
 * instance sees on its next turn. A blank `apiKey` keeps the saved one — unless the provider
 * changed, since a key for one provider is not sent to another.
 */
export async function saveModelSettings(
  sql: Sql,
  options: { workspaceId: string; input: ModelSettingsInput; key: ModelKeyring; by: string },
): Promise<void> {
  const { input } = options;
  const current = await readModelSettingsRow(sql, options.workspaceId);
  const typed = input.apiKey ? input.apiKey : null;
  const keepOld =
    !typed && !input.clearApiKey && current !== null && current.provider === input.provider;
  const apiKeyEncrypted = typed
    ? sealSecret(typed, options.key)
    : keepOld
      ? current.apiKeyEncrypted
      : null;
  const values = {
    provider: input.provider,
    baseUrl: trimUrl(input.baseUrl),
    model: input.model,
    refineModel: input.refineModel ? input.refineModel : null,
    apiKeyEncrypted,
    updatedBy: options.by,
  };
  await sql.transaction(async (tx) => {
    await tx.run(
      `INSERT INTO "ModelSettings"
         ("workspaceId", "provider", "baseUrl", "model", "refineModel", "apiKeyEncrypted", "updatedBy", "version", "updatedAt")
       VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?)
       ON CONFLICT ("workspaceId") DO UPDATE SET
         "provider" = excluded."provider", "baseUrl" = excluded."baseUrl", "model" = excluded."model",
         "refineModel" = excluded."refineModel", "apiKeyEncrypted" = excluded."apiKeyEncrypted",
         "updatedBy" = excluded."updatedBy", "version" = "ModelSettings"."version" + 1,
         "updatedAt" = excluded."updatedAt"`,
      [
        options.workspaceId,
        values.provider,
        values.baseUrl,
        values.model,
        values.refineModel,
        values.apiKeyEncrypted,
        values.updatedBy,
        new Date(),
      ],
    );
    // What changed, never the key itself: only whether one was typed, kept or cleared.
    await recordAuditEvent(tx, {
      workspaceId: options.workspaceId,
      actorId: options.by,
      kind: "model_settings.changed",
      target: { type: "workspace", id: options.workspaceId },
      details: {
        action: "saved",
        provider: values.provider,
        model: values.model,
        refineModel: values.refineModel,
        baseUrl: values.baseUrl,
        apiKey: typed ? "replaced" : keepOld ? "kept" : "none",
        ...(current
          ? {
              before: {
                provider: current.provider,
                model: current.model,
                refineModel: current.refineModel,
                baseUrl: current.baseUrl,
              },
            }
          : {}),
      },
      via: "web",
    });
  });
}

/** Removes a workspace's saved model (chat falls back to the environment or a local Ollama). */
export async function deleteModelSettings(
  sql: Sql,
  workspaceId: string,
  by: string | null = null,
): Promise<void> {
  await sql.transaction(async (tx) => {
    const removed = await tx.run(`DELETE FROM "ModelSettings" WHERE "workspaceId" = ?`, [
      workspaceId,
    ]);
    if (removed.changes === 0) return;
    await recordAuditEvent(tx, {
      workspaceId,
      actorId: by,
      kind: "model_settings.changed",
      target: { type: "workspace", id: workspaceId },
      details: { action: "removed" },
      via: "web",
    });
  });
}

/** The saved model as the model layer reads it (with the key opened), for one version. */
export type WorkspaceModelResult =
  | { status: "configured"; config: ModelConfig }
  | { status: "misconfigured"; message: string; help: [] };

/** What a saved row means to the model layer: the key opened, or why it cannot be. */
export function workspaceModelOf(
  row: {
    provider: string;
    baseUrl: string | null;
    model: string;
    refineModel: string | null;
    apiKeyEncrypted: string | null;
  },
  key: ModelKeyring,
): WorkspaceModelResult {
  let apiKey: string | undefined;
  if (row.apiKeyEncrypted) {
    try {
      apiKey = openSecret(row.apiKeyEncrypted, key);
    } catch (error) {
      if (error instanceof SealedSecretUnreadable)
        return { status: "misconfigured", message: error.message, help: [] };
      throw error;
    }
  }
  return {
    status: "configured",
    config: {
      provider: row.provider as ModelProvider,
      modelId: row.model,
      refineModelId: row.refineModel ?? row.model,
      ...(apiKey !== undefined && { apiKey }),
      ...(row.baseUrl !== null && { baseURL: row.baseUrl }),
      source: "workspace",
    },
  };
}

/**
 * The model the form describes, for Test connection and the model listing: a blank API key means
 * the saved one (when the provider is the same), as Save would keep it.
 */
export async function modelConfigFromInput(
  sql: SqlExecutor,
  options: {
    workspaceId: string;
    input: Pick<ModelSettingsInput, "provider" | "baseUrl" | "apiKey" | "clearApiKey"> & {
      model?: string;
    };
    key: ModelKeyring;
  },
): Promise<ModelConfig> {
  const { input } = options;
  let apiKey = input.apiKey ? input.apiKey : undefined;
  if (!apiKey && !input.clearApiKey) {
    const saved = await sql.get<{ provider: string; apiKeyEncrypted: string | null }>(
      `SELECT "provider", "apiKeyEncrypted" FROM "ModelSettings" WHERE "workspaceId" = ?`,
      [options.workspaceId],
    );
    if (saved?.apiKeyEncrypted && saved.provider === input.provider)
      apiKey = openSecret(saved.apiKeyEncrypted, options.key);
  }
  const baseURL = trimUrl(input.baseUrl);
  return {
    provider: input.provider,
    modelId: input.model ?? "",
    refineModelId: input.model ?? "",
    ...(apiKey !== undefined && { apiKey }),
    ...(baseURL !== null && { baseURL }),
    source: "workspace",
  };
}
