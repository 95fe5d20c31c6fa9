import { ENTRY_ID_PATTERN, ENTRY_LIMITS, isReservedEntryId } from "../../store/entry-contracts";
import { slugifyTitle } from "../../store/slug";
import { DEFAULT_ENTRY_PATH, type Entry, type EntryKind } from "../../store/types";
import { type FrontmatterValue } from "./frontmatter";

/**
 * The mapping between Cairn entries and Prime Agent's files. See `../FORMAT.md` for the
 * layout and the reasons behind each rule.
 */

/** The only `harness_state.json` schema this module reads and writes. */
export const PRIME_STATE_SCHEMA = 1;

/** Top-level fields of a Prime Agent `HarnessEntry` that Cairn reads (everything else is kept verbatim). */
export const KNOWN_ENTRY_FIELDS = new Set([
  "id",
  "kind",
  "title",
  "content",
  "path",
  "scope",
  "reference",
  "arguments",
  "metadata",
  "source",
  "created_at",
  "updated_at",
  "version",
  "pinned",
]);

/** Prime Agent's bookkeeping fields: Cairn keeps its own, and the imported ones while unedited. */
export const BOOKKEEPING_FIELDS = ["source", "created_at", "updated_at", "version"] as const;

/**
 * Metadata keys the portability layer owns. They are recomputed on every import and never
 * written into `harness_state.json`'s `metadata` (their content goes elsewhere in the files).
 */
export const PORTABILITY_METADATA_KEYS = [
  /** A Prime Agent Python skill's `reference` (`{type, import, callable, call_pattern}`). */
  "reference",
  /** A Prime Agent Python skill's `arguments` contract. */
  "arguments",
  /** Unknown top-level fields of the entry in `harness_state.json`, written back verbatim. */
  "extraFields",
  /** Unknown frontmatter keys of `SKILL.md` / the sub-agent file, written back verbatim. */
  "extraFrontmatter",
  /** What the imported files said where Cairn had to normalise a value or keeps its own. */
  "importedFields",
] as const;

/** The frontmatter keys Cairn models, per kind; any other key goes to `extraFrontmatter`. */
export const KNOWN_FRONTMATTER_KEYS: Record<"skill" | "subagent", ReadonlySet<string>> = {
  skill: new Set(["name", "description", "reference", "arguments"]),
  subagent: new Set(["name", "description", "tools", "model"]),
};

export type JsonObject = Record<string, unknown>;

export function asObject(value: unknown): JsonObject | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as JsonObject)
    : undefined;
}

/** A scalar as text (`name: 123` is the name "123"); `undefined` for anything else. */
export function asText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return undefined;
}

/** Sets an own data property (never a prototype, even for `__proto__`). */
export function setOwn(target: JsonObject, key: string, value: unknown): void {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

// ---------------------------------------------------------------------------------------------
// Normalisation: what Cairn stores for a value the files may spell differently.
// ---------------------------------------------------------------------------------------------

/** Ids already matching `[a-z0-9][a-z0-9_-]{0,79}` are kept; others are slugged like titles. */
export function normaliseId(raw: string): string {
  if (ENTRY_ID_PATTERN.test(raw)) return raw;
  return slugifyTitle({ title: raw, fallback: "entry" });
}

export function isReservedId(raw: string): boolean {
  return isReservedEntryId(raw.toLowerCase()) || isReservedEntryId(normaliseId(raw));
}

/** One line (whitespace runs become one space), at most `max` code points (cut with `…`). */
export function normaliseOneLine(raw: string, max: number): string {
  const line = raw.replace(/\s+/gu, " ").trim();
  const points = [...line];
  return points.length <= max
    ? line
    : `${points
        .slice(0, max - 1)
        .join("")
        .trimEnd()}…`;
}

export function normaliseTitle(raw: string): string {
  return normaliseOneLine(raw, ENTRY_LIMITS.titleLength);
}

export function normaliseName(raw: string): string {
  return normaliseOneLine(raw, ENTRY_LIMITS.nameLength);
}

export function normaliseDescription(raw: string): string {
  return normaliseOneLine(raw, ENTRY_LIMITS.descriptionLength);
}

/** Segments of `[A-Za-z0-9._-]` joined by `/`; anything else becomes `-`; empty → `general`. */
export function normalisePath(raw: string): string {
  const segments = raw
    .split("/")
    .map((segment) => segment.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^-+|-+$/g, ""))
    .filter((segment) => segment !== "" && segment !== "." && segment !== "..");
  let joined = segments.join("/");
  if (joined.length > ENTRY_LIMITS.pathLength) {
    joined = joined.slice(0, ENTRY_LIMITS.pathLength).replace(/[/.-]+$/, "");
  }
  return joined === "" ? DEFAULT_ENTRY_PATH : joined;
}

/** The fields `importedFields` may record an original spelling for, with their normaliser. */
export const NORMALISED_FIELDS = {
  id: normaliseId,
  title: normaliseTitle,
  path: normalisePath,
  name: normaliseName,
  description: normaliseDescription,
} as const;
export type NormalisedField = keyof typeof NORMALISED_FIELDS;

/**
 * The value to write for a normalised field: the imported original while it still
 * normalises to what Cairn holds (so Prime Agent gets its own spelling back), else Cairn's.
 */
export function writtenValue(
  field: NormalisedField,
  current: string,
  imported: JsonObject,
): string {
  const original = imported[field];
  return typeof original === "string" && NORMALISED_FIELDS[field](original) === current
    ? original
    : current;
}

// ---------------------------------------------------------------------------------------------
// Export: Cairn entry → files
// ---------------------------------------------------------------------------------------------

function importedFieldsOf(entry: Entry): JsonObject {
  return asObject(entry.metadata.importedFields) ?? {};
}

/** The entry's metadata as `harness_state.json` carries it: without the portability keys. */
function stateMetadata(entry: Entry): JsonObject {
  const imported = importedFieldsOf(entry);
  const metadata: JsonObject = {};
  for (const [key, value] of Object.entries(entry.metadata)) {
    if ((PORTABILITY_METADATA_KEYS as readonly string[]).includes(key)) continue;
    if ((key === "name" || key === "description") && typeof value === "string") {
      setOwn(metadata, key, writtenValue(key, value, imported));
    } else setOwn(metadata, key, value);
  }
  return metadata;
}

/** The id written for an entry (its JSON key in `entries.<kind>`). */
export function writtenId(entry: Entry): string {
  return writtenValue("id", entry.id, importedFieldsOf(entry));
}

/**
 * The entry as a Prime Agent `HarnessEntry` object. Bookkeeping (`source`, `created_at`,
 * `updated_at`, `version`) is Cairn's own, except for an entry nobody has changed since it
 * was imported (`source === "import"`), which gets the imported values back.
 */
export function entryToPrimeEntry(entry: Entry): JsonObject {
  const imported = importedFieldsOf(entry);
  const unedited = entry.source === "import";
  const bookkeeping = (field: (typeof BOOKKEEPING_FIELDS)[number], own: unknown) =>
    unedited && Object.hasOwn(imported, field) ? imported[field] : own;
  const result: JsonObject = {
    id: writtenId(entry),
    kind: entry.kind,
    title: writtenValue("title", entry.title, imported),
    content: entry.content,
    path: writtenValue("path", entry.path, imported),
    scope: "global",
    reference: entry.metadata.reference ?? {},
    arguments: entry.metadata.arguments ?? {},
    metadata: stateMetadata(entry),
    source: bookkeeping("source", entry.source),
    created_at: bookkeeping("created_at", entry.createdAt),
    updated_at: bookkeeping("updated_at", entry.updatedAt),
    version: bookkeeping("version", entry.version),
    pinned: entry.pinned,
  };
  for (const [key, value] of Object.entries(asObject(entry.metadata.extraFields) ?? {})) {
    if (!KNOWN_ENTRY_FIELDS.has(key)) setOwn(result, key, value);
  }
  return result;
}

/** The frontmatter of a skill's `SKILL.md` or a sub-agent's Markdown file. */
export function entryFrontmatter(
  entry: Entry & { kind: "skill" | "subagent" },
): Record<string, FrontmatterValue> {
  const imported = importedFieldsOf(entry);
  const metadata = entry.metadata;
  const frontmatter: Record<string, FrontmatterValue> = {};
  frontmatter.name = writtenValue("name", String(metadata.name), imported);
  frontmatter.description = writtenValue("description", String(metadata.description), imported);
  if (entry.kind === "skill") {
    if (metadata.reference !== undefined)
      frontmatter.reference = metadata.reference as FrontmatterValue;
    if (metadata.arguments !== undefined)
      frontmatter.arguments = metadata.arguments as FrontmatterValue;
  } else {
    const tools = Array.isArray(metadata.tools) ? metadata.tools.map(String) : [];
    // Claude Code's sub-agent format: `tools: Read, Grep, Glob`. A list when a comma-joined
    // string would not split back into the same names.
    const listNeeded = tools.some(
      (tool) => tool.includes(",") || tool !== tool.trim() || tool === "",
    );
    frontmatter.tools = tools.length === 0 || listNeeded ? tools : tools.join(", ");
    if (typeof metadata.model === "string") frontmatter.model = metadata.model;
  }
  const known = KNOWN_FRONTMATTER_KEYS[entry.kind];
  for (const [key, value] of Object.entries(asObject(metadata.extraFrontmatter) ?? {})) {
    if (!known.has(key)) setOwn(frontmatter, key, value);
  }
  return frontmatter;
}

// ---------------------------------------------------------------------------------------------
// Import: files → the fields of a Cairn entry
// ---------------------------------------------------------------------------------------------

/** An entry as read from `harness_state.json` (before ids are assigned). */
export interface StateEntrySource {
  kind: EntryKind;
  /** The id as written in the file (`entry.id`, else its key). */
  rawId: string;
  record: JsonObject;
}

/** A `SKILL.md` or sub-agent file as read. */
export interface MarkdownSource {
  kind: "skill" | "subagent";
  /** The folder name (skills) or file name without `.md` (sub-agents). */
  rawId: string;
  file: string;
  frontmatter: Record<string, FrontmatterValue>;
  body: string;
}

/** The fields of the entry to write. */
export interface ImportedEntryFields {
  title: string;
  content: string;
  path: string;
  metadata: JsonObject;
  pinned: boolean;
}

function toolsFrom(value: unknown): string[] | undefined {
  if (typeof value === "string") {
    return value
      .split(",")
      .map((tool) => tool.trim())
      .filter((tool) => tool !== "");
  }
  if (Array.isArray(value)) {
    return value
      .map(asText)
      .filter((tool): tool is string => tool !== undefined && tool.trim() !== "");
  }
  return undefined;
}

function isEmptyObject(value: unknown): boolean {
  const object = asObject(value);
  return object !== undefined && Object.keys(object).length === 0;
}

/**
 * Merges what the state file and the Markdown file say about one entry into Cairn fields.
 * The Markdown file is the human-editable form and wins for what it carries (name,
 * description, body, tools, model, reference, arguments); the state file supplies the rest.
 */
export function importedEntryFields(options: {
  kind: EntryKind;
  id: string;
  rawId: string;
  state?: JsonObject;
  markdown?: MarkdownSource;
}): ImportedEntryFields {
  const { kind, id, rawId, state, markdown } = options;
  const stateMetadata = asObject(state?.metadata) ?? {};
  const frontmatter = markdown?.frontmatter ?? {};
  const importedFields: JsonObject = {};
  const normalise = (field: NormalisedField, raw: string): string => {
    const value = NORMALISED_FIELDS[field](raw);
    if (value !== raw) importedFields[field] = raw;
    return value;
  };
  if (id !== rawId) importedFields.id = rawId;

  const metadata: JsonObject = {};
  for (const [key, value] of Object.entries(stateMetadata)) {
    if ((PORTABILITY_METADATA_KEYS as readonly string[]).includes(key)) continue;
    setOwn(metadata, key, value);
  }

  const rawTitle = asText(state?.title);
  const rawName = asText(frontmatter.name) ?? asText(stateMetadata.name) ?? rawTitle ?? rawId;
  let title = rawTitle === undefined ? undefined : normalise("title", rawTitle);
  if (kind === "skill" || kind === "subagent") {
    const name = normalise("name", rawName);
    const rawDescription =
      asText(frontmatter.description) ?? asText(stateMetadata.description) ?? rawTitle ?? rawName;
    metadata.name = name;
    metadata.description = normalise("description", rawDescription);
    title ??= name;
  }
  if (kind === "subagent") {
    metadata.tools = toolsFrom(frontmatter.tools) ?? toolsFrom(stateMetadata.tools) ?? [];
    const model = asText(frontmatter.model) ?? asText(stateMetadata.model);
    if (model === undefined) delete metadata.model;
    else metadata.model = model;
  }

  // Prime Agent writes `reference: {}` / `arguments: {}` on every entry; only real ones are kept.
  for (const field of ["reference", "arguments"] as const) {
    const fromMarkdown = kind === "skill" ? frontmatter[field] : undefined;
    const fromState = state?.[field];
    const value =
      fromMarkdown !== undefined && fromMarkdown !== null
        ? fromMarkdown
        : fromState !== undefined && !isEmptyObject(fromState)
          ? fromState
          : stateMetadata[field];
    if (value !== undefined && value !== null && !isEmptyObject(value)) metadata[field] = value;
  }

  const extraFields: JsonObject = {};
  for (const [key, value] of Object.entries(state ?? {})) {
    if (!KNOWN_ENTRY_FIELDS.has(key)) setOwn(extraFields, key, value);
  }
  if (Object.keys(extraFields).length > 0) metadata.extraFields = extraFields;

  if (markdown) {
    const extraFrontmatter: JsonObject = {};
    const known = KNOWN_FRONTMATTER_KEYS[markdown.kind];
    for (const [key, value] of Object.entries(frontmatter)) {
      if (!known.has(key)) setOwn(extraFrontmatter, key, value);
    }
    if (Object.keys(extraFrontmatter).length > 0) metadata.extraFrontmatter = extraFrontmatter;
  }

  for (const field of BOOKKEEPING_FIELDS) {
    if (state && Object.hasOwn(state, field)) importedFields[field] = state[field];
  }
  const rawPath = asText(state?.path);
  const path = rawPath === undefined ? DEFAULT_ENTRY_PATH : normalise("path", rawPath);
  if (Object.keys(importedFields).length > 0) metadata.importedFields = importedFields;

  return {
    title: title ?? normalise("title", rawId),
    content: markdown ? markdown.body : (asText(state?.content) ?? ""),
    path,
    metadata,
    pinned: state?.pinned === true,
  };
}
