// Over 500 lines, knowingly: one import pipeline (read folder, parse, check limits, plan, apply as
// one batch) whose steps share the report being built; the front matter parser is already apart
// (internal/frontmatter.ts).
import { readdir, realpath, stat } from "node:fs/promises";
import { canWriteGlobal } from "../actor";
import { HarnessError, HarnessForbiddenError, HarnessValidationError } from "../errors";
import { assertValidEntry } from "../store/entry-contracts";
import { type Harness, type HarnessEdit } from "../store/create-harness";
import { jsonEqual } from "../store";
import { slugCandidate } from "../store/slug";
import { MAX_PAGE_SIZE } from "../store/store-port";
import { ENTRY_KINDS, type Entry, type EntryKind } from "../store/types";
import {
  HARNESS_STATE_FILE,
  REFINEMENTS_FILE,
  SKILLS_DIR,
  SKILL_FILE,
  SUBAGENTS_DIR,
} from "./export-harness";
import { FrontmatterError, parseMarkdownWithFrontmatter } from "./internal/frontmatter";
import {
  PRIME_STATE_SCHEMA,
  asObject,
  importedEntryFields,
  isReservedId,
  normaliseId,
  type ImportedEntryFields,
  type JsonObject,
  type MarkdownSource,
  type StateEntrySource,
} from "./internal/prime-format";
import { inspectInside, isSafeFileName, readTextWithLimit } from "./internal/safe-fs";
import {
  isRefinementEvent,
  parseRefinementLines,
  refinementRecordKey,
  type RefinementHistoryRecord,
  type RefinementHistorySink,
} from "./refinement-history";

/** Size limits of an import. Exceeding one fails the import before anything is written. */
export interface ImportLimits {
  /** `harness_state.json`, in bytes. Default 64 MiB. */
  stateFileBytes: number;
  /** `refinements.jsonl`, in bytes. Default 64 MiB. */
  refinementsFileBytes: number;
  /** One `refinements.jsonl` line, in bytes; longer lines count as malformed. Default 4 MiB. */
  refinementLineBytes: number;
  /** One `SKILL.md` or sub-agent file, in bytes. Default 256 KiB (64 KB body + frontmatter). */
  markdownFileBytes: number;
  /** Entries (state entries plus Markdown files) in one import. Default 10,000. */
  entries: number;
}

export const DEFAULT_IMPORT_LIMITS: Readonly<ImportLimits> = {
  stateFileBytes: 64 * 1024 * 1024,
  refinementsFileBytes: 64 * 1024 * 1024,
  refinementLineBytes: 4 * 1024 * 1024,
  markdownFileBytes: 256 * 1024,
  entries: 10_000,
};

/** Options of `importHarness`. */
export interface ImportHarnessOptions {
  /**
   * The harness to import into. Entries are written as global entries, so its actor must
   * be an editor or admin (`HarnessForbiddenError` otherwise, before any file is read).
   */
  harness: Harness;
  /** A directory in the export layout (see `exportHarness`), e.g. written by Prime Agent. */
  dir: string;
  /** Where refinement records go. Without one they are only returned in the report. */
  refinementHistory?: RefinementHistorySink;
  /** Recorded on every revision. Default "Imported from a harness export". */
  reason?: string;
  limits?: Partial<ImportLimits>;
  abortSignal?: AbortSignal;
}

/** Something in the directory that was not imported, and why. */
export interface ImportSkip {
  /** The file, relative to the import directory. */
  file: string;
  kind?: EntryKind;
  /** The id as written in the file. */
  id?: string;
  reason: string;
}

/** What happened to one imported entry. */
export interface ImportedEntry {
  kind: EntryKind;
  id: string;
  action: "created" | "updated" | "unchanged";
}

/** The outcome of an import. */
export interface ImportHarnessReport {
  created: number;
  updated: number;
  unchanged: number;
  skipped: ImportSkip[];
  entries: ImportedEntry[];
  refinements: {
    /** New records (stored by the sink, or unique in the files when there is no sink). */
    imported: number;
    /** Records already stored, or repeated within the files. */
    duplicates: number;
    /** `refinements.jsonl` lines that were not JSON or not a `RefinementResult`. */
    malformed: number;
    /** Every valid record read, deduplicated, in file order (`harness_state.json` events first). */
    records: RefinementHistoryRecord[];
  };
  /** The harness version after the import. */
  harnessVersion: number;
}

const DEFAULT_REASON = "Imported from a harness export";

/**
 * Imports a harness directory (Prime Agent's layout, or Cairn's own export) into the
 * workspace's global scope. Liberal in what it reads, strict in what it writes:
 *
 * - Entries are matched by kind + global scope + id: new ones are created, changed ones
 *   updated, identical ones left alone — so importing twice changes nothing the second time.
 *   All writes are one `applyEdits` batch (cause and source `import`): all or nothing.
 * - Ids are normalised to `[a-z0-9][a-z0-9_-]{0,79}`; the original goes to
 *   `metadata.importedFields.id`. `base_system_prompt` and `local` entries are skipped.
 * - Fields Cairn does not model are kept in metadata and written back on export.
 * - Refinement records are read-only history handed to `refinementHistory`; malformed
 *   `refinements.jsonl` lines are skipped and counted.
 * - Symlinks leaving the directory and unsafe names are skipped and reported, never read;
 *   size limits fail the import with a clear error.
 */
export async function importHarness(options: ImportHarnessOptions): Promise<ImportHarnessReport> {
  const { harness, abortSignal } = options;
  const limits = { ...DEFAULT_IMPORT_LIMITS, ...options.limits };
  if (!canWriteGlobal(harness.actor)) {
    throw new HarnessForbiddenError({
      surface: "import",
      message: `Importing writes global entries and needs the editor or admin role; this actor is a ${harness.actor.role}`,
      details: { actorId: harness.actor.userId, role: harness.actor.role },
    });
  }
  const root = await openImportRoot(options.dir);
  const skipped: ImportSkip[] = [];

  const state = await readStateFile(root, limits, skipped);
  const markdown = [
    ...(await readSkillFiles(root, limits, skipped)),
    ...(await readSubagentFiles(root, limits, skipped)),
  ];
  if (state.entries.length + markdown.length > limits.entries) {
    throw new HarnessValidationError({
      surface: "import",
      message: `The import has ${state.entries.length + markdown.length} entries; the limit is ${limits.entries}`,
      details: { entries: state.entries.length + markdown.length, limit: limits.entries },
    });
  }
  const lines = await readRefinementsFile(root, limits, skipped);
  abortSignal?.throwIfAborted();

  const planned = planEntries({ stateEntries: state.entries, markdown, skipped });
  const existing = await listGlobalEntries(harness, abortSignal);
  const harnessVersionBefore = await harness.getHarnessVersion({ abortSignal });

  const edits: HarnessEdit[] = [];
  const entries: ImportedEntry[] = [];
  for (const item of planned) {
    const current = existing.get(`${item.kind}:${item.id}`);
    if (current && sameContent(current, item.fields)) {
      entries.push({ kind: item.kind, id: item.id, action: "unchanged" });
      continue;
    }
    edits.push(
      current
        ? {
            op: "update",
            kind: item.kind,
            id: item.id,
            global: true,
            expectedVersion: current.version,
            ...item.fields,
          }
        : { op: "create", kind: item.kind, id: item.id, global: true, ...item.fields },
    );
    entries.push({ kind: item.kind, id: item.id, action: current ? "updated" : "created" });
  }

  let harnessVersion = harnessVersionBefore;
  if (edits.length > 0) {
    const result = await harness.applyEdits({
      edits,
      cause: "import",
      source: "import",
      reason: options.reason ?? DEFAULT_REASON,
      // Everything above was decided against this version; a concurrent write fails the batch.
      expectedHarnessVersion: harnessVersionBefore,
      abortSignal,
    });
    harnessVersion = result.harnessVersion;
  }

  // History is recorded only once the entries are in, so a failed import leaves no trace.
  const records = dedupeRecords([...state.events, ...lines.records]);
  const inFileDuplicates =
    lines.duplicates + state.events.length + lines.records.length - records.length;
  const appended = options.refinementHistory
    ? await options.refinementHistory.appendImported({ records, abortSignal })
    : { imported: records.length, duplicates: 0 };

  return {
    created: entries.filter((entry) => entry.action === "created").length,
    updated: entries.filter((entry) => entry.action === "updated").length,
    unchanged: entries.filter((entry) => entry.action === "unchanged").length,
    skipped,
    entries,
    refinements: {
      imported: appended.imported,
      duplicates: appended.duplicates + inFileDuplicates,
      malformed: lines.malformed + state.malformedEvents,
      records,
    },
    harnessVersion,
  };
}

// ---------------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------------

async function openImportRoot(dir: string): Promise<string> {
  let root: string;
  try {
    root = await realpath(dir);
    if (!(await stat(root)).isDirectory()) throw new Error("not a directory");
  } catch (cause) {
    throw new HarnessValidationError({
      surface: "import",
      message: `${dir} is not a directory`,
      details: { dir },
      cause,
    });
  }
  const found = await Promise.all(
    [HARNESS_STATE_FILE, REFINEMENTS_FILE, SKILLS_DIR, SUBAGENTS_DIR].map(async (name) => {
      const inspection = await inspectInside(root, [name]);
      return inspection.kind !== "missing";
    }),
  );
  if (!found.some(Boolean)) {
    throw new HarnessValidationError({
      surface: "import",
      message: `${dir} holds no harness export: expected ${HARNESS_STATE_FILE}, ${REFINEMENTS_FILE}, ${SKILLS_DIR}/ or ${SUBAGENTS_DIR}/`,
      details: { dir },
    });
  }
  return root;
}

/** Reads a file below the root, or reports why it is skipped (`null`). Missing files are `null` silently. */
async function readFileInside(options: {
  root: string;
  segments: string[];
  limit: number;
  skipped: ImportSkip[];
  kind?: EntryKind;
}): Promise<string | null> {
  const file = options.segments.join("/");
  const inspection = await inspectInside(options.root, options.segments);
  switch (inspection.kind) {
    case "missing":
      return null;
    case "escapes":
      options.skipped.push({
        file,
        kind: options.kind,
        reason: "a symlink that leads outside the directory",
      });
      return null;
    case "directory":
    case "other":
      options.skipped.push({ file, kind: options.kind, reason: "not a regular file" });
      return null;
    case "file":
      return readTextWithLimit({
        realPath: inspection.realPath,
        displayPath: file,
        limit: options.limit,
        size: inspection.size,
      });
  }
}

async function readStateFile(
  root: string,
  limits: ImportLimits,
  skipped: ImportSkip[],
): Promise<{
  entries: StateEntrySource[];
  events: RefinementHistoryRecord[];
  malformedEvents: number;
}> {
  const text = await readFileInside({
    root,
    segments: [HARNESS_STATE_FILE],
    limit: limits.stateFileBytes,
    skipped,
  });
  if (text === null) return { entries: [], events: [], malformedEvents: 0 };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.startsWith("\uFEFF") ? text.slice(1) : text);
  } catch (cause) {
    throw new HarnessValidationError({
      surface: "import",
      message: `${HARNESS_STATE_FILE} is not valid JSON: ${(cause as Error).message}`,
      details: { file: HARNESS_STATE_FILE },
      cause,
    });
  }
  const document = asObject(parsed);
  if (!document) {
    throw new HarnessValidationError({
      surface: "import",
      message: `${HARNESS_STATE_FILE} must hold a JSON object`,
      details: { file: HARNESS_STATE_FILE },
    });
  }
  if (document.schema !== undefined && document.schema !== PRIME_STATE_SCHEMA) {
    throw new HarnessValidationError({
      surface: "import",
      message: `${HARNESS_STATE_FILE} has schema ${JSON.stringify(document.schema)}; only schema ${PRIME_STATE_SCHEMA} is supported`,
      details: { file: HARNESS_STATE_FILE, schema: document.schema },
    });
  }

  // A malformed structure is refused rather than read as "no entries": an import that reports
  // "0 created" for a file full of entries in the wrong shape loses them without a word.
  const sections = asObject(document.entries);
  if (!sections) {
    throw new HarnessValidationError({
      surface: "import",
      message: `${HARNESS_STATE_FILE}: "entries" must be an object keyed by kind (${ENTRY_KINDS.join(", ")}); it is ${describeJson(document.entries)}`,
      details: { file: HARNESS_STATE_FILE, field: "entries" },
    });
  }
  const entries: StateEntrySource[] = [];
  for (const [kindName, section] of Object.entries(sections)) {
    if (!(ENTRY_KINDS as readonly string[]).includes(kindName)) {
      skipped.push({
        file: HARNESS_STATE_FILE,
        reason: `unknown entry kind ${JSON.stringify(kindName)}`,
      });
      continue;
    }
    const kind = kindName as EntryKind;
    const byId = asObject(section);
    if (!byId) {
      throw new HarnessValidationError({
        surface: "import",
        message: `${HARNESS_STATE_FILE}: "entries.${kind}" must be an object keyed by entry id; it is ${describeJson(section)}`,
        details: { file: HARNESS_STATE_FILE, field: `entries.${kind}` },
      });
    }
    for (const [key, value] of Object.entries(byId)) {
      const record = asObject(value);
      if (!record) {
        skipped.push({
          file: HARNESS_STATE_FILE,
          kind,
          id: key,
          reason: "the entry is not a JSON object",
        });
        continue;
      }
      const rawId = typeof record.id === "string" && record.id.trim() !== "" ? record.id : key;
      entries.push({ kind, rawId, record });
    }
  }

  const events: RefinementHistoryRecord[] = [];
  let malformedEvents = 0;
  for (const event of Array.isArray(document.refinements) ? document.refinements : []) {
    if (!isRefinementEvent(event)) {
      malformedEvents++;
      continue;
    }
    events.push({ key: refinementRecordKey("event", event), kind: "event", record: event });
  }
  return { entries, events, malformedEvents };
}

/** "an array", "a string", "missing", … for messages about a JSON value of the wrong type. */
function describeJson(value: unknown): string {
  if (value === undefined) return "missing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

async function listDirectory(
  root: string,
  name: string,
  limits: ImportLimits,
  skipped: ImportSkip[],
): Promise<string[]> {
  const inspection = await inspectInside(root, [name]);
  if (inspection.kind === "missing") return [];
  if (inspection.kind !== "directory") {
    skipped.push({
      file: `${name}/`,
      reason:
        inspection.kind === "escapes"
          ? "a symlink that leads outside the directory"
          : "not a directory",
    });
    return [];
  }
  const names = (await readdir(inspection.realPath)).sort();
  // Checked before reading any file, so a huge directory costs one listing, not a full read.
  if (names.length > limits.entries) {
    throw new HarnessValidationError({
      surface: "import",
      message: `${name}/ holds ${names.length} entries; the limit is ${limits.entries}`,
      details: { file: `${name}/`, entries: names.length, limit: limits.entries },
    });
  }
  const safe: string[] = [];
  for (const child of names) {
    if (isSafeFileName(child)) safe.push(child);
    else
      skipped.push({
        file: `${name}/${child}`,
        reason: "unsafe file name (allowed: letters, digits, '.', '_', '-'; no '..')",
      });
  }
  return safe;
}

async function parseMarkdownFile(options: {
  root: string;
  segments: string[];
  kind: "skill" | "subagent";
  rawId: string;
  limits: ImportLimits;
  skipped: ImportSkip[];
}): Promise<MarkdownSource | null> {
  const file = options.segments.join("/");
  const text = await readFileInside({
    root: options.root,
    segments: options.segments,
    limit: options.limits.markdownFileBytes,
    skipped: options.skipped,
    kind: options.kind,
  });
  if (text === null) return null;
  try {
    const { frontmatter, body } = parseMarkdownWithFrontmatter(text);
    return { kind: options.kind, rawId: options.rawId, file, frontmatter, body };
  } catch (error) {
    if (!FrontmatterError.isInstance(error)) throw error;
    options.skipped.push({
      file,
      kind: options.kind,
      id: options.rawId,
      reason: `unreadable frontmatter: ${error.message}`,
    });
    return null;
  }
}

async function readSkillFiles(
  root: string,
  limits: ImportLimits,
  skipped: ImportSkip[],
): Promise<MarkdownSource[]> {
  const sources: MarkdownSource[] = [];
  for (const name of await listDirectory(root, SKILLS_DIR, limits, skipped)) {
    const folder = await inspectInside(root, [SKILLS_DIR, name]);
    if (folder.kind !== "directory") {
      skipped.push({
        file: `${SKILLS_DIR}/${name}`,
        kind: "skill",
        reason:
          folder.kind === "escapes"
            ? "a symlink that leads outside the directory"
            : `not a skill folder (expected ${SKILLS_DIR}/<name>/${SKILL_FILE})`,
      });
      continue;
    }
    const others = (await readdir(folder.realPath)).filter((child) => child !== SKILL_FILE);
    if (others.length > 0) {
      skipped.push({
        file: `${SKILLS_DIR}/${name}/`,
        kind: "skill",
        id: name,
        reason: `${others.length} file(s) besides ${SKILL_FILE} not imported (only ${SKILL_FILE} is)`,
      });
    }
    const source = await parseMarkdownFile({
      root,
      segments: [SKILLS_DIR, name, SKILL_FILE],
      kind: "skill",
      rawId: name,
      limits,
      skipped,
    });
    if (source) sources.push(source);
    else if ((await inspectInside(root, [SKILLS_DIR, name, SKILL_FILE])).kind === "missing") {
      skipped.push({
        file: `${SKILLS_DIR}/${name}/`,
        kind: "skill",
        id: name,
        reason: `no ${SKILL_FILE}`,
      });
    }
  }
  return sources;
}

async function readSubagentFiles(
  root: string,
  limits: ImportLimits,
  skipped: ImportSkip[],
): Promise<MarkdownSource[]> {
  const sources: MarkdownSource[] = [];
  for (const name of await listDirectory(root, SUBAGENTS_DIR, limits, skipped)) {
    if (!name.endsWith(".md") || name === ".md") {
      skipped.push({
        file: `${SUBAGENTS_DIR}/${name}`,
        kind: "subagent",
        reason: "not a Markdown (.md) file",
      });
      continue;
    }
    const source = await parseMarkdownFile({
      root,
      segments: [SUBAGENTS_DIR, name],
      kind: "subagent",
      rawId: name.slice(0, -".md".length),
      limits,
      skipped,
    });
    if (source) sources.push(source);
  }
  return sources;
}

async function readRefinementsFile(root: string, limits: ImportLimits, skipped: ImportSkip[]) {
  const text = await readFileInside({
    root,
    segments: [REFINEMENTS_FILE],
    limit: limits.refinementsFileBytes,
    skipped,
  });
  return parseRefinementLines({ text: text ?? "", maxLineBytes: limits.refinementLineBytes });
}

// ---------------------------------------------------------------------------------------------
// Planning
// ---------------------------------------------------------------------------------------------

interface PlannedEntry {
  kind: EntryKind;
  id: string;
  fields: ImportedEntryFields;
}

/**
 * Assigns ids and merges state entries with their Markdown files. Deterministic regardless
 * of file order: ids already valid claim first, then normalised ones in order of their
 * original spelling (`-2`, `-3`… on collision).
 */
function planEntries(options: {
  stateEntries: StateEntrySource[];
  markdown: MarkdownSource[];
  skipped: ImportSkip[];
}): PlannedEntry[] {
  const { skipped } = options;
  const planned: PlannedEntry[] = [];
  for (const kind of ENTRY_KINDS) {
    const claimed = new Set<string>();
    const assign = (rawId: string): string => {
      const base = normaliseId(rawId);
      for (let n = 1; ; n++) {
        const candidate = slugCandidate(base, n);
        if (!claimed.has(candidate)) {
          claimed.add(candidate);
          return candidate;
        }
      }
    };
    const byOriginal = (a: { rawId: string }, b: { rawId: string }) => {
      const validA = normaliseId(a.rawId) === a.rawId;
      const validB = normaliseId(b.rawId) === b.rawId;
      if (validA !== validB) return validA ? -1 : 1;
      return a.rawId < b.rawId ? -1 : a.rawId > b.rawId ? 1 : 0;
    };

    const drafts: {
      rawId: string;
      id: string;
      state?: StateEntrySource;
      markdown?: MarkdownSource;
      file: string;
    }[] = [];
    for (const source of options.stateEntries
      .filter((entry) => entry.kind === kind)
      .sort(byOriginal)) {
      if (isReservedId(source.rawId)) {
        skipped.push({
          file: HARNESS_STATE_FILE,
          kind,
          id: source.rawId,
          reason: "base_system_prompt is the base system prompt, not a harness entry",
        });
        continue;
      }
      if (source.record.scope === "local") {
        skipped.push({
          file: HARNESS_STATE_FILE,
          kind,
          id: source.rawId,
          reason: "a local (session) entry; imports write global entries only",
        });
        continue;
      }
      drafts.push({
        rawId: source.rawId,
        id: assign(source.rawId),
        state: source,
        file: HARNESS_STATE_FILE,
      });
    }
    const byId = new Map(drafts.map((draft) => [draft.id, draft]));
    for (const source of options.markdown.filter((file) => file.kind === kind).sort(byOriginal)) {
      if (isReservedId(source.rawId)) {
        skipped.push({
          file: source.file,
          kind,
          id: source.rawId,
          reason: "base_system_prompt is not a harness entry",
        });
        continue;
      }
      const linked = byId.get(normaliseId(source.rawId));
      if (linked && !linked.markdown) {
        linked.markdown = source;
        linked.file = source.file;
        continue;
      }
      const draft = {
        rawId: source.rawId,
        id: assign(source.rawId),
        markdown: source,
        file: source.file,
      };
      drafts.push(draft);
      byId.set(draft.id, draft);
    }

    for (const draft of drafts) {
      const fields = importedEntryFields({
        kind,
        id: draft.id,
        rawId: draft.rawId,
        state: draft.state?.record,
        markdown: draft.markdown,
      });
      const problem = validationProblem(kind, draft.id, fields);
      if (problem) {
        skipped.push({ file: draft.file, kind, id: draft.rawId, reason: problem });
        continue;
      }
      planned.push({ kind, id: draft.id, fields });
    }
  }
  return planned;
}

/** Checks the entry against the store's contracts up front, so one bad entry cannot sink the batch. */
function validationProblem(
  kind: EntryKind,
  id: string,
  fields: ImportedEntryFields,
): string | null {
  const now = new Date(0).toISOString();
  const candidate: Entry = {
    kind,
    id,
    scope: "global",
    chatId: null,
    ...fields,
    source: "import",
    version: 1,
    createdAt: now,
    updatedAt: now,
    createdBy: "import",
    updatedBy: "import",
  };
  try {
    assertValidEntry(candidate);
    return null;
  } catch (error) {
    if (HarnessError.isInstance(error)) return error.message;
    throw error;
  }
}

async function listGlobalEntries(
  harness: Harness,
  abortSignal?: AbortSignal,
): Promise<Map<string, Entry>> {
  const entries = new Map<string, Entry>();
  let cursor: string | null = null;
  do {
    const page = await harness.listEntries({
      scope: "global",
      cursor,
      limit: MAX_PAGE_SIZE,
      abortSignal,
    });
    for (const entry of page.items) entries.set(`${entry.kind}:${entry.id}`, entry);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return entries;
}

/**
 * Whether an existing entry already holds what the files say. `importedFields` is ignored:
 * it only records how the files spelled things, not what the entry is.
 */
function sameContent(current: Entry, fields: ImportedEntryFields): boolean {
  const { importedFields: _currentImported, ...currentMetadata } = current.metadata;
  const { importedFields: _nextImported, ...nextMetadata } = fields.metadata as JsonObject;
  return (
    current.title === fields.title &&
    current.content === fields.content &&
    current.path === fields.path &&
    current.pinned === fields.pinned &&
    jsonEqual(currentMetadata, nextMetadata)
  );
}

function dedupeRecords(records: RefinementHistoryRecord[]): RefinementHistoryRecord[] {
  const seen = new Set<string>();
  return records.filter((record) => {
    if (seen.has(record.key)) return false;
    seen.add(record.key);
    return true;
  });
}
