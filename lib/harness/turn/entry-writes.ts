import type { CreateEntryInput, Entry, EntryKind, Harness, UpdateEntryInput } from "../store";

/**
 * A tool's create/update input in one flat shape for every kind: `content` is a skill's body
 * or a sub-agent's instructions; `name`, `description`, `tools` and `model` serve skills and
 * sub-agents; `title` serves prompts and memories (pass it in `common` to set it for all kinds).
 */
export interface EntryWriteFields {
  kind: EntryKind;
  title?: string;
  content?: string;
  name?: string;
  description?: string;
  tools?: string[];
  model?: string;
}

/** What a create call shares across kinds: scope, id, path, pin, reason, source… */
export type CreateEntryCommon = Omit<
  CreateEntryInput,
  "kind" | "title" | "content" | "metadata"
> & {
  title?: string;
};

/** What an update call shares across kinds: id, expected version, scope, path, reason… */
export type UpdateEntryCommon = Omit<
  UpdateEntryInput,
  "kind" | "content" | "metadata" | "metadataPatch"
>;

/**
 * Creates an entry of `fields.kind` through the kind's own call (`createSkill`,
 * `createSubagent`, `createEntry`); the agent's tools and the MCP server share it.
 */
export function createEntryOfKind(
  harness: Harness,
  common: CreateEntryCommon,
  fields: EntryWriteFields,
): Promise<Entry> {
  const content = fields.content ?? "";
  if (fields.kind === "skill" || fields.kind === "subagent") {
    const named = { ...common, name: fields.name ?? "", description: fields.description ?? "" };
    return fields.kind === "skill"
      ? harness.createSkill({ ...named, body: content })
      : harness.createSubagent({
          ...named,
          instructions: content,
          tools: fields.tools ?? [],
          model: fields.model,
        });
  }
  return harness.createEntry({ ...common, kind: fields.kind, title: fields.title ?? "", content });
}

/**
 * Updates an entry of `fields.kind` through the kind's own call (`updateSkill`,
 * `updateSubagent`, `updateEntry`); omitted fields keep their value.
 */
export function updateEntryOfKind(
  harness: Harness,
  common: UpdateEntryCommon,
  fields: EntryWriteFields,
): Promise<Entry> {
  if (fields.kind === "skill" || fields.kind === "subagent") {
    const named = { ...common, name: fields.name, description: fields.description };
    return fields.kind === "skill"
      ? harness.updateSkill({ ...named, body: fields.content })
      : harness.updateSubagent({
          ...named,
          instructions: fields.content,
          tools: fields.tools,
          model: fields.model,
        });
  }
  return harness.updateEntry({
    ...common,
    kind: fields.kind,
    title: fields.title,
    content: fields.content,
  });
}
