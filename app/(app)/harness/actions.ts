"use server";

import { revalidatePath } from "next/cache";
import { forbidden } from "next/navigation";
import { z } from "zod";
import { action } from "@/lib/actions";
import { canWriteGlobal } from "@/lib/auth/permissions";
import { ENTRY_KINDS, type Actor, type Entry, type Harness } from "@/lib/harness";
import { harnessFor } from "@/lib/harness-for-actor";

/** What a harness action reports back: the entry it wrote, when there is one. */
export type EntryRef = Pick<Entry, "kind" | "id" | "scope" | "chatId" | "version">;

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

type Body<T extends z.ZodType> = (options: {
  data: z.infer<T>;
  actor: Actor;
  harness: Harness;
  global: boolean;
}) => Promise<EntryRef | undefined>;

/**
 * Every harness action: the shared wrapper (parse, Actor, error mapping), then the scope check
 * (global writes need editor or admin: 403 otherwise, also when the action is called directly),
 * then the core, whose own checks (ownership of the chat, versions, contracts) stay
 * authoritative.
 */
function harnessAction<T extends z.ZodType<{ location: Location }>>(schema: T, body: Body<T>) {
  return action({ input: schema }, async ({ input, actor }) => {
    const location = (input as { location: Location }).location;
    const global = location.scope === "global";
    if (global && !canWriteGlobal(actor)) forbidden();
    const harness = await harnessFor(actor, location.scope === "local" ? location.chatId : null);
    const entry = await body({ data: input, actor, harness, global });
    revalidatePath("/harness", "layout");
    return { entry };
  });
}

function refOf(entry: Entry): EntryRef {
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

export const createEntryAction = harnessAction(createSchema, async ({ data, harness, global }) => {
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
  return refOf(entry);
});

export const updateEntryAction = harnessAction(updateSchema, async ({ data, harness, global }) => {
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
  return refOf(entry);
});

export const deleteEntryAction = harnessAction(refSchema, async ({ data, harness, global }) => {
  await harness.deleteEntry({
    kind: data.kind,
    id: data.id,
    expectedVersion: data.expectedVersion,
    ...scopeOf(global),
  });
  return undefined;
});

const pinSchema = refSchema.extend({ pinned: z.boolean() });

export const setPinnedAction = harnessAction(pinSchema, async ({ data, harness, global }) => {
  const entry = await harness.setPinned({
    kind: data.kind,
    id: data.id,
    expectedVersion: data.expectedVersion,
    pinned: data.pinned,
    ...scopeOf(global),
  });
  return refOf(entry);
});

const restoreSchema = z.object({ revisionId: z.string().min(1), location: locationSchema });

export const restoreRevisionAction = harnessAction(
  restoreSchema,
  async ({ data, harness, global }) => {
    const revision = await harness.restoreRevision({
      revisionId: data.revisionId,
      global: global || undefined,
      cause: "manual",
      reason: "Restored from the history page",
    });
    return revision.after ? refOf(revision.after) : undefined;
  },
);
