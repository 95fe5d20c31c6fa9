import { z } from "zod";
import { HarnessValidationError } from "../errors";
import {
  ENTRY_KINDS,
  ENTRY_SCOPES,
  ENTRY_SOURCES,
  RESERVED_ENTRY_ID,
  type Entry,
  type EntryKind,
} from "./types";

/** Hard limits on one entry. Sizes are UTF-8 bytes, lengths are Unicode code points. */
export const ENTRY_LIMITS = {
  idLength: 80,
  titleLength: 200,
  pathLength: 200,
  contentBytes: 64 * 1024,
  metadataBytes: 16 * 1024,
  nameLength: 100,
  descriptionLength: 1024,
  tools: 100,
} as const;

const utf8 = new TextEncoder();

/** UTF-8 size of a string in bytes. */
export function utf8ByteLength(value: string): number {
  return utf8.encode(value).byteLength;
}

const loneSurrogate = /\p{Cs}/u;
// Postgres `text` refuses NUL, and lone surrogates are not encodable as UTF-8; refusing both
// here keeps every adapter able to store what the core accepts.
function isStorableText(value: string): boolean {
  return !value.includes("\u0000") && !loneSurrogate.test(value);
}

const storableText = z
  .string()
  .refine(isStorableText, "must be valid Unicode text without NUL characters");
const oneLine = (max: number) =>
  storableText
    .refine((value) => value.trim().length > 0, "must not be empty")
    .refine((value) => !/[\r\n\u2028\u2029]/.test(value), "must be a single line")
    .refine((value) => [...value].length <= max, `must be at most ${max} characters`);

/** Entry ids: lowercase slug, 1–80 characters of `[a-z0-9_-]`, starting with a letter or digit. */
export const ENTRY_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,79}$/;

/** Whether `id` names the base system prompt (in either `_` or `-` spelling). */
export function isReservedEntryId(id: string): boolean {
  return id.replaceAll("-", "_") === RESERVED_ENTRY_ID;
}

export const entryIdSchema = z
  .string()
  .regex(
    ENTRY_ID_PATTERN,
    "must be 1–80 characters of a-z, 0-9, '_' and '-', starting with a letter or digit",
  )
  .refine(
    (id) => !isReservedEntryId(id),
    "base_system_prompt is the base system prompt; it cannot be a harness entry",
  );

export const entryKindSchema = z.enum(ENTRY_KINDS);
export const entryScopeSchema = z.enum(ENTRY_SCOPES);
export const entrySourceSchema = z.enum(ENTRY_SOURCES);

/** Paths: `/`-separated segments of letters, digits, `.`, `_`, `-` (no `.`/`..` segments), ≤ 200 chars. */
export const entryPathSchema = z
  .string()
  .max(ENTRY_LIMITS.pathLength, `must be at most ${ENTRY_LIMITS.pathLength} characters`)
  .regex(
    /^[A-Za-z0-9._-]+(?:\/[A-Za-z0-9._-]+)*$/,
    "must be segments of letters, digits, '.', '_' or '-' separated by '/'",
  )
  .refine(
    (path) => path.split("/").every((segment) => segment !== "." && segment !== ".."),
    "must not contain '.' or '..' segments",
  );

export const entryTitleSchema = oneLine(ENTRY_LIMITS.titleLength);

export const entryContentSchema = storableText
  .refine((value) => value.trim().length > 0, "must not be empty")
  .refine(
    (value) => utf8ByteLength(value) <= ENTRY_LIMITS.contentBytes,
    `must be at most ${ENTRY_LIMITS.contentBytes} bytes (64 KB)`,
  );

export const entryMetadataSchema = z
  .record(z.string(), z.json())
  .refine(
    (value) => isStorableText(JSON.stringify(value)),
    "must be valid Unicode text without NUL characters",
  )
  .refine(
    (value) => utf8ByteLength(JSON.stringify(value)) <= ENTRY_LIMITS.metadataBytes,
    `must be at most ${ENTRY_LIMITS.metadataBytes} bytes (16 KB) as JSON`,
  );

/**
 * Skill metadata: `name` and a one-line `description` of when to use the skill (this is
 * what the prompt view shows). Unknown fields (e.g. an imported Python `reference` or
 * `arguments`) are kept.
 */
export const skillMetadataSchema = z.looseObject({
  name: oneLine(ENTRY_LIMITS.nameLength),
  description: oneLine(ENTRY_LIMITS.descriptionLength),
});
export type SkillMetadata = z.infer<typeof skillMetadataSchema>;

/**
 * Sub-agent metadata: `name`, a one-line `description` of when to delegate to it, the
 * `tools` it may use and an optional `model`. Unknown fields are kept.
 */
export const subagentMetadataSchema = z.looseObject({
  name: oneLine(ENTRY_LIMITS.nameLength),
  description: oneLine(ENTRY_LIMITS.descriptionLength),
  tools: z.array(oneLine(ENTRY_LIMITS.nameLength)).max(ENTRY_LIMITS.tools),
  model: oneLine(ENTRY_LIMITS.nameLength).optional(),
});
export type SubagentMetadata = z.infer<typeof subagentMetadataSchema>;

/** The kind-specific metadata contract of each kind (`prompt` and `memory` take any JSON object). */
export const KIND_METADATA_SCHEMAS: Record<EntryKind, z.ZodType<Record<string, unknown>>> = {
  prompt: entryMetadataSchema,
  memory: entryMetadataSchema,
  skill: skillMetadataSchema,
  subagent: subagentMetadataSchema,
};

/** The fields of an entry a writer decides; the rest (version, times, actors) the core sets. */
export const entryFieldsSchema = z.object({
  kind: entryKindSchema,
  id: entryIdSchema,
  title: entryTitleSchema,
  content: entryContentSchema,
  scope: entryScopeSchema,
  path: entryPathSchema,
  metadata: entryMetadataSchema,
  pinned: z.boolean(),
  source: entrySourceSchema,
});

function formatIssues(error: z.ZodError, prefix: string): string {
  return error.issues
    .map((issue) => {
      const where = [prefix, ...issue.path.map(String)].filter(Boolean).join(".");
      return where ? `${where}: ${issue.message}` : issue.message;
    })
    .join("; ");
}

/**
 * Validates a complete entry state against the generic rules and its kind's contract.
 * Throws `HarnessValidationError` (`validation:entry`) with every problem in one message
 * and the issues in `details.issues`. Does not change the entry.
 */
export function assertValidEntry(entry: Entry): void {
  const error = entryProblem(entry);
  if (error) throw error;
}

/** The validate-only form of `assertValidEntry`: the error it would throw, or `null`. */
export function entryProblem(entry: Entry): HarnessValidationError | null {
  const problems: string[] = [];
  const issues: unknown[] = [];
  const generic = entryFieldsSchema.safeParse(entry);
  if (!generic.success) {
    problems.push(formatIssues(generic.error, ""));
    issues.push(...generic.error.issues);
  }
  if (entry.scope === "local" && (typeof entry.chatId !== "string" || entry.chatId.length === 0)) {
    problems.push("chatId: a local entry needs the chat it belongs to");
  }
  if (entry.scope === "global" && entry.chatId !== null) {
    problems.push("chatId: a global entry belongs to no chat");
  }
  const kindSchema = KIND_METADATA_SCHEMAS[entry.kind] as
    z.ZodType<Record<string, unknown>> | undefined;
  if (kindSchema && kindSchema !== entryMetadataSchema) {
    const kindResult = kindSchema.safeParse(entry.metadata);
    if (!kindResult.success) {
      problems.push(formatIssues(kindResult.error, "metadata"));
      issues.push(...kindResult.error.issues);
    }
  }
  if (problems.length === 0) return null;
  return new HarnessValidationError({
    surface: "entry",
    message: `Invalid ${entry.kind} entry "${entry.id}": ${problems.join("; ")}`,
    details: { kind: entry.kind, id: entry.id, issues },
  });
}
