import { generateText, stepCountIs, tool, type LanguageModel, type Tool, type ToolSet } from "ai";
import { z } from "zod";
import { describeError, HarnessError, HarnessForbiddenError } from "../errors";
import { ENTRY_KINDS, type Entry, type Harness } from "../store";
import { createEntryOfKind, updateEntryOfKind, type EntryWriteFields } from "./entry-writes";
import { markUntrusted } from "./untrusted-data";

const kindSchema = z
  .enum(ENTRY_KINDS)
  .describe("prompt (instruction note) | memory (fact, preference, lesson) | skill | subagent");

// The tools' input schemas are built once per process, so the AI SDK's JSON Schema of each is
// too (see `cachedInputSchema` in stream-harness.ts; docs/decisions/0018).
const named = {
  name: z.string().optional().describe("skill/subagent: its name"),
  description: z.string().optional().describe("skill/subagent: one line saying when to use it"),
  tools: z.array(z.string()).optional().describe("subagent: names of the tools it may use"),
  model: z.string().optional().describe("subagent: optional model id"),
};
const createEntryInput = z.object({
  kind: kindSchema,
  title: z.string().optional().describe("prompt/memory: a short title"),
  content: z.string(),
  path: z.string().optional().describe("a grouping such as project-x/build"),
  global: z.boolean().optional(),
  reason: z.string().optional(),
  ...named,
});
const updateEntryInput = z.object({
  kind: kindSchema,
  id: z.string(),
  expectedVersion: z.number().int().positive(),
  global: z.boolean().optional(),
  title: z.string().optional(),
  content: z.string().optional(),
  path: z.string().optional(),
  reason: z.string().optional(),
  ...named,
});
const deleteEntryInput = z.object({
  kind: kindSchema,
  id: z.string(),
  expectedVersion: z.number().int().positive(),
  global: z.boolean().optional(),
  reason: z.string().optional(),
});
const loadSkillInput = z.object({ name: z.string() });
const delegateInput = z.object({
  subagent: z.string().describe("the sub-agent's name"),
  task: z.string().describe("what it should do, with the context it needs"),
});

function errorText(error: unknown): string {
  if (HarnessError.isInstance(error)) return `Error: ${error.message}`;
  throw error;
}

/**
 * A change to a global entry that the actor's role does not allow, proposed instead of made:
 * what `suggestGlobalEntry` receives. `expectedVersion` is the version the change was based on.
 */
export interface GlobalEntryProposal extends EntryWriteFields {
  action: "create" | "update" | "delete";
  id?: string;
  expectedVersion?: number;
  path?: string;
  reason?: string;
}

/**
 * Keeps a refused global write as a suggestion for review (the host's queue) and returns its
 * id. Called only when the store refused the write for the actor's role.
 */
export type SuggestGlobalEntry = (proposal: GlobalEntryProposal) => Promise<{ id: string }>;

/** Whether `error` is the store's refusal of a global write for the actor's role. */
function isRoleRefusal(error: unknown): boolean {
  if (!HarnessForbiddenError.isInstance(error) || error.code !== "forbidden:entry") return false;
  return typeof error.details.role === "string";
}

/** Tool calls are the model's writes: recorded as `source: agent`, revision cause `agent`. */
const AGENT = "agent" as const;

function describe(entry: Entry): string {
  return `[${entry.scope}:${entry.id}] ${entry.kind} "${entry.title}" v${entry.version}`;
}

async function findByName(
  harness: Harness,
  kind: "skill" | "subagent",
  name: string,
): Promise<Entry | null> {
  const wanted = name.trim().toLowerCase();
  let cursor: string | null = null;
  const matches: Entry[] = [];
  do {
    const page = await harness.listEntries({ kind, cursor, limit: 200 });
    for (const entry of page.items) {
      const metadataName =
        typeof entry.metadata.name === "string" ? entry.metadata.name.toLowerCase() : "";
      if (entry.id === wanted || metadataName === wanted) matches.push(entry);
    }
    cursor = page.nextCursor;
  } while (cursor);
  // A chat's own (local) definition is the more specific one; both stay visible in listings.
  return matches.find((entry) => entry.scope === "local") ?? matches[0] ?? null;
}

/**
 * Decides whether a global entry's text may be written: the refusal the model reads, or `null`.
 * `previous` is what the entry held before (an update), which is never news.
 */
export type GlobalWriteCheck = (options: {
  text: string;
  previous: string;
}) => string | null | Promise<string | null>;

/** The entry's text as one string, for the private-text check. */
function entryText(fields: {
  title?: string;
  content?: string;
  name?: string;
  description?: string;
}): string {
  return [fields.title, fields.name, fields.description, fields.content]
    .filter((part): part is string => typeof part === "string" && part !== "")
    .join("\n");
}

/**
 * Tools over the harness store: create/update/delete entries of each kind (local by default;
 * `global: true` succeeds only for actors who may write global entries — the store decides) and
 * `load_skill`. Every refusal comes back as an `Error: …` result the model can act on. With
 * `checkGlobalWrite`, a global create or update is first shown to it (the turn uses it to keep
 * the person's private memory out of global entries) and not written when it refuses.
 */
export function createHarnessTools(options: {
  harness: Harness;
  checkGlobalWrite?: GlobalWriteCheck;
  /**
   * With it, a global write the actor's role does not allow becomes a suggestion for review
   * (the tool says "suggested for review") instead of an error. Absent: the refusal as before.
   */
  suggestGlobalEntry?: SuggestGlobalEntry;
}): ToolSet {
  const { harness, checkGlobalWrite, suggestGlobalEntry } = options;
  const suggestOrError = async (error: unknown, proposal: GlobalEntryProposal): Promise<string> => {
    if (!suggestGlobalEntry || !isRoleRefusal(error)) return errorText(error);
    try {
      const { id } = await suggestGlobalEntry(proposal);
      const what = `${proposal.action} of global ${proposal.kind}${proposal.id ? ` ${proposal.id}` : ""}`;
      return `Suggested for review (suggestion ${id}): your role may not change global entries, so the ${what} was sent to an editor or admin for approval; it is not applied until then. Tell the person it was suggested for review.`;
    } catch (suggestError) {
      return `Error: the change could not be suggested for review (${describeError(suggestError).message}); nothing was changed.`;
    }
  };
  const refusedGlobal = async (
    input: { kind: Entry["kind"]; global?: boolean } & Parameters<typeof entryText>[0],
    id?: string,
  ): Promise<string | null> => {
    if (!input.global || !checkGlobalWrite) return null;
    const before =
      id === undefined ? null : await harness.getEntry({ kind: input.kind, id, scope: "global" });
    const previous = before
      ? entryText({
          title: before.title,
          content: before.content,
          name: typeof before.metadata.name === "string" ? before.metadata.name : undefined,
          description:
            typeof before.metadata.description === "string"
              ? before.metadata.description
              : undefined,
        })
      : "";
    return checkGlobalWrite({ text: entryText(input), previous });
  };
  return {
    create_entry: tool({
      description:
        "Create a harness entry: a prompt note, memory, skill (content = body) or sub-agent (content = its instructions). Local to this chat by default; set global: true only for stable lessons that help every chat.",
      inputSchema: createEntryInput,
      execute: async (input) => {
        try {
          const refusal = await refusedGlobal(input);
          if (refusal) return `Error: ${refusal}`;
          const common = {
            path: input.path,
            reason: input.reason,
            source: AGENT,
            ...(input.global ? { global: true } : { scope: "local" as const }),
          };
          const entry = await createEntryOfKind(harness, common, input);
          return `Created ${describe(entry)}.`;
        } catch (error) {
          const { global: _global, ...fields } = input;
          void _global;
          return input.global
            ? suggestOrError(error, { action: "create", ...fields })
            : errorText(error);
        }
      },
    }),
    update_entry: tool({
      description:
        "Update a harness entry. Name the version you saw (expectedVersion); a stale version is refused. Global entries need global: true.",
      inputSchema: updateEntryInput,
      execute: async (input) => {
        try {
          const refusal = await refusedGlobal(input, input.id);
          if (refusal) return `Error: ${refusal}`;
          const common = {
            id: input.id,
            expectedVersion: input.expectedVersion,
            reason: input.reason,
            path: input.path,
            source: AGENT,
            ...(input.global ? { global: true } : { scope: "local" as const }),
          };
          const entry = await updateEntryOfKind(harness, common, input);
          return `Updated ${describe(entry)}.`;
        } catch (error) {
          const { global: _global, ...fields } = input;
          void _global;
          return input.global
            ? suggestOrError(error, { action: "update", ...fields })
            : errorText(error);
        }
      },
    }),
    delete_entry: tool({
      description:
        "Delete a harness entry (its history is kept). Name the version you saw. Global entries need global: true.",
      inputSchema: deleteEntryInput,
      execute: async (input) => {
        try {
          await harness.deleteEntry({
            kind: input.kind,
            id: input.id,
            expectedVersion: input.expectedVersion,
            reason: input.reason,
            source: AGENT,
            ...(input.global ? { global: true } : { scope: "local" as const }),
          });
          return `Deleted ${input.kind} ${input.id}.`;
        } catch (error) {
          const { global: _global, ...fields } = input;
          void _global;
          return input.global
            ? suggestOrError(error, { action: "delete", ...fields })
            : errorText(error);
        }
      },
    }),
    load_skill: tool({
      description:
        "Load the full instructions (body) of a skill listed in the harness state, by its name.",
      inputSchema: loadSkillInput,
      execute: async ({ name }) => {
        try {
          const skill = await findByName(harness, "skill", name);
          if (!skill) return `Error: no skill named "${name}".`;
          const skillName = String(skill.metadata.name ?? skill.id);
          // A skill is written by whoever may write entries: its steps guide, they do not command.
          return `# Skill: ${skillName}\n\n${markUntrusted({ source: `skill ${skillName}`, text: skill.content })}`;
        } catch (error) {
          return errorText(error);
        }
      },
    }),
  };
}

/**
 * `delegate`: runs a sub-agent spec as a nested model call with its own instructions and only
 * the tools it lists (never `delegate` itself), and returns its answer.
 */
export function createDelegateTool(options: {
  harness: Harness;
  tools: () => ToolSet;
  model: (options: { model?: string }) => LanguageModel;
  maxSteps?: number;
  onDelegate?: (event: { subagent: string; tools: string[]; answer: string }) => void;
}): Tool {
  return tool({
    description:
      "Delegate a task to a sub-agent listed in the harness state. It works with its own instructions and tools and returns its answer.",
    inputSchema: delegateInput,
    execute: async ({ subagent, task }, { abortSignal }) => {
      try {
        const spec = await findByName(options.harness, "subagent", subagent);
        if (!spec) return `Error: no sub-agent named "${subagent}".`;
        const allowed = Array.isArray(spec.metadata.tools)
          ? spec.metadata.tools.filter((name): name is string => typeof name === "string")
          : [];
        const available = options.tools();
        const tools = Object.fromEntries(
          allowed
            .filter((name) => name !== "delegate" && name in available)
            .map((name) => [name, available[name]!]),
        );
        const model = options.model({
          model: typeof spec.metadata.model === "string" ? spec.metadata.model : undefined,
        });
        const result = await generateText({
          model,
          instructions: spec.content,
          prompt: task,
          tools,
          stopWhen: stepCountIs(options.maxSteps ?? 6),
          abortSignal,
        });
        options.onDelegate?.({
          subagent: String(spec.metadata.name ?? spec.id),
          tools: Object.keys(tools),
          answer: result.text,
        });
        // The sub-agent read files and tool results too: its answer is data like theirs.
        return result.text
          ? markUntrusted({
              source: `sub-agent ${String(spec.metadata.name ?? spec.id)}`,
              text: result.text,
            })
          : "(the sub-agent gave no answer)";
      } catch (error) {
        return errorText(error);
      }
    },
  });
}
