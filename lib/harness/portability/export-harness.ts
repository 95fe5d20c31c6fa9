import { mkdir, readdir, realpath, writeFile } from "node:fs/promises";
import path from "node:path";
import { HarnessValidationError } from "../errors";
import { type Harness } from "../store/create-harness";
import { ENTRY_KINDS, type Entry, type EntryKind } from "../store/types";
import { formatMarkdownWithFrontmatter } from "./internal/frontmatter";
import {
  PRIME_STATE_SCHEMA,
  entryFrontmatter,
  entryToPrimeEntry,
  setOwn,
  writtenId,
  type JsonObject,
} from "./internal/prime-format";
import { joinInside } from "./internal/safe-fs";
import { formatRefinementLines, type RefinementHistoryRecord } from "./refinement-history";

/** The files an export writes, relative to the output directory. */
export const HARNESS_STATE_FILE = "harness_state.json";
export const REFINEMENTS_FILE = "refinements.jsonl";
export const SKILLS_DIR = "skills";
export const SKILL_FILE = "SKILL.md";
export const SUBAGENTS_DIR = "subagents";

/** Options of `exportHarness`. */
export interface ExportHarnessOptions {
  /**
   * The harness to export. Its global entries are exported; local entries belong to one chat
   * and are not (they are counted in `skippedLocal`). Use a harness with `chatId: null`.
   */
  harness: Harness;
  /** Created if missing; must be empty, so an export never overwrites or mixes with other files. */
  outDir: string;
  /**
   * Refinement history to write, in order: `result` records become `refinements.jsonl` lines,
   * `event` records the `refinements` array of `harness_state.json`. Default none.
   */
  refinements?: readonly RefinementHistoryRecord[];
  abortSignal?: AbortSignal;
}

/** What an export wrote. */
export interface ExportHarnessReport {
  /** The harness version the exported state is from. */
  harnessVersion: number;
  /** Exported entries per kind. */
  entries: Record<EntryKind, number>;
  /** Local (chat-scoped) entries visible to the harness that were not exported. */
  skippedLocal: number;
  refinements: { results: number; events: number };
  /** Every file written, relative to `outDir`, sorted. */
  files: string[];
}

/**
 * Writes the workspace's global harness in Prime Agent's layout:
 *
 * - `harness_state.json`: `{ schema: 1, entries: { prompt, memory, skill, subagent }, refinements }`,
 *   every entry keyed by id, as Prime Agent's `HarnessEntry` (2-space JSON, final newline).
 * - `refinements.jsonl`: one `RefinementResult` per line (empty when there is no history).
 * - `skills/<id>/SKILL.md`: Agent Skills folder; frontmatter `name`, `description`, the
 *   Python `reference`/`arguments` when present, then preserved unknown keys; body = content.
 * - `subagents/<id>.md`: frontmatter `name`, `description`, `tools`, `model`, then preserved
 *   unknown keys; body = instructions.
 *
 * The output is deterministic: exporting the same entries always yields the same bytes.
 * The state is read from one snapshot, so concurrent writes never produce a torn export.
 */
export async function exportHarness(options: ExportHarnessOptions): Promise<ExportHarnessReport> {
  const { harness, abortSignal } = options;
  const snapshot = await harness.snapshot({ abortSignal });
  const globalEntries = snapshot.entries.filter((entry) => entry.scope === "global");
  const files = renderExport({ entries: globalEntries, refinements: options.refinements ?? [] });

  const outDir = await prepareOutputDirectory(options.outDir);
  for (const [relativePath, content] of files) {
    abortSignal?.throwIfAborted();
    const target = joinInside(outDir, relativePath.split("/"));
    await mkdir(path.dirname(target), { recursive: true });
    // `wx`: never follow or replace something that appeared in the directory meanwhile.
    await writeFile(target, content, { encoding: "utf8", flag: "wx" });
  }

  const entries = Object.fromEntries(ENTRY_KINDS.map((kind) => [kind, 0])) as Record<
    EntryKind,
    number
  >;
  for (const entry of globalEntries) entries[entry.kind]++;
  const refinements = options.refinements ?? [];
  return {
    harnessVersion: snapshot.harnessVersion,
    entries,
    skippedLocal: snapshot.entries.length - globalEntries.length,
    refinements: {
      results: refinements.filter((record) => record.kind === "result").length,
      events: refinements.filter((record) => record.kind === "event").length,
    },
    files: [...files.keys()].sort(),
  };
}

/**
 * The exported files as a map of relative path → content, without touching the disk.
 * `entries` must be global entries.
 */
export function renderExport(options: {
  entries: readonly Entry[];
  refinements: readonly RefinementHistoryRecord[];
}): Map<string, string> {
  const files = new Map<string, string>();
  const byKind = Object.fromEntries(ENTRY_KINDS.map((kind) => [kind, {}])) as Record<
    EntryKind,
    JsonObject
  >;
  const sorted = [...options.entries].sort((a, b) =>
    a.kind === b.kind
      ? a.id < b.id
        ? -1
        : a.id > b.id
          ? 1
          : 0
      : ENTRY_KINDS.indexOf(a.kind) - ENTRY_KINDS.indexOf(b.kind),
  );
  for (const entry of sorted) {
    if (entry.scope !== "global") continue;
    setOwn(byKind[entry.kind], writtenId(entry), entryToPrimeEntry(entry));
    if (entry.kind === "skill" || entry.kind === "subagent") {
      const markdown = formatMarkdownWithFrontmatter({
        frontmatter: entryFrontmatter(entry as Entry & { kind: "skill" | "subagent" }),
        body: entry.content,
      });
      // File names are Cairn ids — always `[a-z0-9][a-z0-9_-]*`, never a path.
      files.set(
        entry.kind === "skill"
          ? `${SKILLS_DIR}/${entry.id}/${SKILL_FILE}`
          : `${SUBAGENTS_DIR}/${entry.id}.md`,
        markdown,
      );
    }
  }
  const state = {
    schema: PRIME_STATE_SCHEMA,
    entries: byKind,
    refinements: options.refinements
      .filter((record) => record.kind === "event")
      .map((record) => record.record),
  };
  files.set(HARNESS_STATE_FILE, `${JSON.stringify(state, null, 2)}\n`);
  files.set(REFINEMENTS_FILE, formatRefinementLines(options.refinements));
  return files;
}

async function prepareOutputDirectory(outDir: string): Promise<string> {
  await mkdir(outDir, { recursive: true });
  const real = await realpath(outDir);
  const existing = await readdir(real);
  if (existing.length > 0) {
    throw new HarnessValidationError({
      surface: "export",
      message: `The output directory ${outDir} is not empty; export into a new or empty directory`,
      details: { outDir, entries: existing.length },
    });
  }
  return real;
}
