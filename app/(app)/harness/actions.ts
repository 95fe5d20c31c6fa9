"use server";

import { revalidatePath } from "next/cache";
import { forbidden } from "next/navigation";
import { z } from "zod";
import { toAppError } from "@/lib/app-error";
import { requireActor } from "@/lib/auth";
import {
  canWriteGlobal,
  ENTRY_KINDS,
  HarnessError,
  type Actor,
  type Entry,
  type Harness,
} from "@/lib/harness";
import { harnessFor } from "@/lib/harness-service";

export type HarnessActionResult =
  | { ok: true; entry?: Pick<Entry, "kind" | "id" | "scope" | "chatId" | "version"> }
  | { ok: false; code: string; error: string };

/** Where an entry lives: the global scope, or one chat of the actor. */
const locationSchema = z.discriminatedUnion("scope", [
  z.object({ scope: z.literal("global") }),
  z.object({ scope: z.literal("local"), chatId: z.string().min(1) }),
]);
type Location = z.infer<typeof locationSchema>;

const kindFields = {
  title: z.string().optional(),
  content: z.string().optional(),
  path: z.string().trim().optional(),
  name: z.string().optional(),
  description: z.string().optional(),
  tools: z.array(z.string().trim().min(1)).optional(),
  model: z.string().trim().optional(),
};

const createSchema = z.object({
  kind: z.enum(ENTRY_KINDS),
  location: locationSchema,
  pinned: z.boolean().optional(),
  ...kindFields,
});

const updateSchema = z.object({
  kind: z.enum(ENTRY_KINDS),
  id: z.string().min(1),
  location: locationSchema,
  expectedVersion: z.number().int().positive(),
  reason: z.string().max(500).optional(),
  ...kindFields,
});

const refSchema = z.object({
  kind: z.enum(ENTRY_KINDS),
  id: z.string().min(1),
  location: locationSchema,
  expectedVersion: z.number().int().positive(),
});

/**
 * Every harness action: parse, then the Actor, then the scope check (global writes need
 * editor or admin: 403 otherwise, also when the action is called directly), then the core,
 * whose own checks (ownership of the chat, versions, contracts) stay authoritative.
 */
async function run<T extends z.ZodType>(
  schema: T,
  input: unknown,
  body: (options: {
    data: z.infer<T>;
    actor: Actor;
    harness: Harness;
    global: boolean;
  }) => Promise<HarnessActionResult>,
): Promise<HarnessActionResult> {
  const parsed = schema.safeParse(input);
  const actor = await requireActor();
  if (!parsed.success)
    return { ok: false, code: "validation:input", error: toAppError(parsed.error).message };
  const location = (parsed.data as { location?: Location }).location;
  const global = location?.scope === "global";
  if (global && !canWriteGlobal(actor)) forbidden();
  try {
    const harness = await harnessFor(actor, location?.scope === "local" ? location.chatId : null);
    const result = await body({ data: parsed.data, actor, harness, global });
    revalidatePath("/harness", "layout");
    return result;
  } catch (error) {
    if (HarnessError.isInstance(error) && error.code.startsWith("forbidden:")) forbidden();
    const appError = toAppError(error);
    return { ok: false, code: appError.code, error: appError.message };
  }
}

function refOf(entry: Entry) {
  return {
    kind: entry.kind,
    id: entry.id,
    scope: entry.scope,
    chatId: entry.chatId,
    version: entry.version,
  };
}

function scopeOf(global: boolean) {
  return global ? { global: true } : { scope: "local" as const };
}

export async function createEntryAction(
  input: z.infer<typeof createSchema>,
): Promise<HarnessActionResult> {
  return run(createSchema, input, async ({ data, harness, global }) => {
    const common = { path: data.path || undefined, pinned: data.pinned, ...scopeOf(global) };
    const entry =
      data.kind === "skill"
        ? await harness.createSkill({
            ...common,
            name: data.name ?? "",
            description: data.description ?? "",
            body: data.content ?? "",
          })
        : data.kind === "subagent"
          ? await harness.createSubagent({
              ...common,
              name: data.name ?? "",
              description: data.description ?? "",
              instructions: data.content ?? "",
              tools: data.tools ?? [],
              model: data.model || undefined,
            })
          : await harness.createEntry({
              ...common,
              kind: data.kind,
              title: data.title ?? "",
              content: data.content ?? "",
            });
    return { ok: true, entry: refOf(entry) };
  });
}

export async function updateEntryAction(
  input: z.infer<typeof updateSchema>,
): Promise<HarnessActionResult> {
  return run(updateSchema, input, async ({ data, harness, global }) => {
    const common = {
      id: data.id,
      expectedVersion: data.expectedVersion,
      reason: data.reason,
      path: data.path || undefined,
      ...scopeOf(global),
    };
    const entry =
      data.kind === "skill"
        ? await harness.updateSkill({
            ...common,
            name: data.name,
            description: data.description,
            body: data.content,
          })
        : data.kind === "subagent"
          ? await harness.updateSubagent({
              ...common,
              name: data.name,
              description: data.description,
              instructions: data.content,
              tools: data.tools,
              model: data.model === undefined ? undefined : data.model || null,
            })
          : await harness.updateEntry({
              ...common,
              kind: data.kind,
              title: data.title,
              content: data.content,
            });
    return { ok: true, entry: refOf(entry) };
  });
}

export async function deleteEntryAction(
  input: z.infer<typeof refSchema>,
): Promise<HarnessActionResult> {
  return run(refSchema, input, async ({ data, harness, global }) => {
    await harness.deleteEntry({
      kind: data.kind,
      id: data.id,
      expectedVersion: data.expectedVersion,
      ...scopeOf(global),
    });
    return { ok: true };
  });
}

const pinSchema = refSchema.extend({ pinned: z.boolean() });

export async function setPinnedAction(
  input: z.infer<typeof pinSchema>,
): Promise<HarnessActionResult> {
  return run(pinSchema, input, async ({ data, harness, global }) => {
    const entry = await harness.setPinned({
      kind: data.kind,
      id: data.id,
      expectedVersion: data.expectedVersion,
      pinned: data.pinned,
      ...scopeOf(global),
    });
    return { ok: true, entry: refOf(entry) };
  });
}

const restoreSchema = z.object({ revisionId: z.string().min(1), location: locationSchema });

export async function restoreRevisionAction(
  input: z.infer<typeof restoreSchema>,
): Promise<HarnessActionResult> {
  return run(restoreSchema, input, async ({ data, harness, global }) => {
    const revision = await harness.restoreRevision({
      revisionId: data.revisionId,
      global: global || undefined,
      cause: "manual",
      reason: "Restored from the history page",
    });
    return { ok: true, entry: revision.after ? refOf(revision.after) : undefined };
  });
}
