import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { HarnessError } from "../errors";
import { InMemoryHarnessStorage } from "../store/in-memory-storage";
import { exportHarness } from "./export-harness";
import { importHarness } from "./import-harness";
import {
  entryContent,
  globalEntries,
  readTree,
  registerTemporaryDirectories,
  testHarness,
} from "./internal/testing";
import { InMemoryRefinementHistory, type RefinementHistoryRecord } from "./refinement-history";

const tmp = registerTemporaryDirectories();

const refinementRecords: RefinementHistoryRecord[] = [
  {
    key: "result:ref-1",
    kind: "result",
    record: {
      id: "ref-1",
      summary: "Capture the build fix",
      rationale: "Two failed builds",
      expectedOutcome: "No stale artifacts",
      appliedEdits: [{ action: "create", kind: "memory", id: "build", applied: true }],
      harnessStatePath: "/home/agent/.prime/harness/harness_state.json",
      scope: "global",
    },
  },
  {
    key: "event:evt-1",
    kind: "event",
    record: {
      id: "evt-1",
      trigger: "turn_interval",
      changes: ["create memory:build"],
      evidence: "turn 12",
      outcome: "",
      created_at: "2025-12-01T00:00:00.000Z",
    },
  },
];

/** A workspace with every kind, edits, pins, odd strings and unknown fields. */
async function populatedHarness() {
  const storage = new InMemoryHarnessStorage();
  const harness = testHarness({ storage });
  await harness.createEntry({
    kind: "prompt",
    global: true,
    title: "Answer in British English",
    content: "Use British spelling: colour, organise.",
    pinned: true,
  });
  const memory = await harness.createEntry({
    kind: "memory",
    global: true,
    title: "Project-X build steps",
    content: "Use `make` after installing dependencies.",
    path: "project-x/build",
    metadata: { confidence: 0.9, tags: ["build", "make"] },
  });
  await harness.updateEntry({
    kind: "memory",
    id: memory.id,
    global: true,
    expectedVersion: 1,
    content: 'Run `make clean` before `make`:\n\n- stale artifacts break "incremental" builds\n',
    reason: "Observed repeated build failures",
  });
  await harness.createSkill({
    global: true,
    name: "csv-summary",
    description: "Summarise a CSV file: columns, types and outliers # quickly",
    body: "# CSV summary\n\nCall `await summarize(path=...)`.\n",
    metadata: {
      reference: {
        type: "python",
        import: "skills.csv_summary",
        callable: "summarize",
        call_pattern: "await summarize(path=...)",
      },
      arguments: {
        path: { type: "string", required: true, description: "CSV path" },
        limit: { type: "integer", default: 10 },
      },
      extraFrontmatter: {
        license: "MIT",
        "allowed-tools": "Read, Bash(python:*)",
        metadata: { author: "data-team" },
      },
      owner: "data-team",
    },
  });
  await harness.createSubagent({
    global: true,
    name: "code-reviewer",
    description: 'Reviews diffs; use when: someone says "review"',
    tools: ["Read", "Grep", "Bash(git diff:*)"],
    model: "sonnet",
    instructions: "You are a careful reviewer.\nReport bugs first.",
    metadata: { extraFrontmatter: { color: "red" } },
  });
  await harness.createSubagent({
    global: true,
    name: "Summariser",
    description: "Summarises long threads",
    tools: [],
    instructions: "Summarise.",
  });
  const local = testHarness({ storage, chatId: "chat-1" });
  await local.createEntry({
    kind: "memory",
    title: "Current task",
    content: "Only for this chat.",
  });
  return { storage, harness, local };
}

describe("exportHarness", () => {
  it("writes Prime Agent's layout", async () => {
    const { harness } = await populatedHarness();
    const outDir = tmp();
    const report = await exportHarness({ harness, outDir, refinements: refinementRecords });
    expect(report.files).toEqual([
      "harness_state.json",
      "refinements.jsonl",
      "skills/csv-summary/SKILL.md",
      "subagents/code-reviewer.md",
      "subagents/summariser.md",
    ]);
    expect(report.entries).toEqual({ prompt: 1, memory: 1, skill: 1, subagent: 2 });

    const state = JSON.parse(readFileSync(path.join(outDir, "harness_state.json"), "utf8")) as {
      schema: number;
      entries: Record<string, Record<string, Record<string, unknown>>>;
      refinements: unknown[];
    };
    expect(state.schema).toBe(1);
    expect(Object.keys(state.entries)).toEqual(["prompt", "memory", "skill", "subagent"]);
    expect(state.refinements).toEqual([refinementRecords[1]!.record]);
    expect(state.entries.skill!["csv-summary"]).toMatchObject({
      id: "csv-summary",
      kind: "skill",
      scope: "global",
      reference: { type: "python", import: "skills.csv_summary" },
      arguments: { path: { type: "string", required: true } },
      metadata: { name: "csv-summary", owner: "data-team" },
      version: 1,
      source: "user",
    });
    // Portability keys live in their own places, not in the state's metadata.
    expect(state.entries.skill!["csv-summary"]!.metadata).not.toHaveProperty("extraFrontmatter");
    expect(state.entries.memory!["project-x-build-steps"]).toMatchObject({
      version: 2,
      path: "project-x/build",
    });
    expect(state.entries.prompt!["answer-in-british-english"]).toMatchObject({
      reference: {},
      arguments: {},
      pinned: true,
    });

    expect(readFileSync(path.join(outDir, "skills/csv-summary/SKILL.md"), "utf8")).toBe(
      [
        "---",
        "name: csv-summary",
        'description: "Summarise a CSV file: columns, types and outliers # quickly"',
        "reference:",
        "  type: python",
        "  import: skills.csv_summary",
        "  callable: summarize",
        "  call_pattern: await summarize(path=...)",
        "arguments:",
        "  path:",
        "    type: string",
        "    required: true",
        "    description: CSV path",
        "  limit:",
        "    type: integer",
        "    default: 10",
        "license: MIT",
        "allowed-tools: Read, Bash(python:*)",
        "metadata:",
        "  author: data-team",
        "---",
        "",
        "# CSV summary",
        "",
        "Call `await summarize(path=...)`.",
        "",
        "",
      ].join("\n"),
    );
    expect(readFileSync(path.join(outDir, "subagents/code-reviewer.md"), "utf8")).toBe(
      [
        "---",
        "name: code-reviewer",
        'description: "Reviews diffs; use when: someone says \\"review\\""',
        "tools: Read, Grep, Bash(git diff:*)",
        "model: sonnet",
        "color: red",
        "---",
        "",
        "You are a careful reviewer.",
        "Report bugs first.",
        "",
      ].join("\n"),
    );
    expect(readFileSync(path.join(outDir, "subagents/summariser.md"), "utf8")).toContain(
      "tools: []\n",
    );
    expect(readFileSync(path.join(outDir, "refinements.jsonl"), "utf8")).toBe(
      `${JSON.stringify(refinementRecords[0]!.record)}\n`,
    );
  });

  it("exports global entries only: local entries belong to one chat", async () => {
    const { local } = await populatedHarness();
    const outDir = tmp();
    const report = await exportHarness({ harness: local, outDir });
    expect(report.skippedLocal).toBe(1);
    expect(readFileSync(path.join(outDir, "harness_state.json"), "utf8")).not.toContain(
      "Only for this chat",
    );
  });

  it("refuses a non-empty output directory", async () => {
    const { harness } = await populatedHarness();
    const outDir = tmp();
    writeFileSync(path.join(outDir, "keep.txt"), "mine");
    await expect(exportHarness({ harness, outDir })).rejects.toSatisfy(
      (error) => HarnessError.isInstance(error) && error.code === "validation:export",
    );
    expect(readTree(outDir)).toEqual({ "keep.txt": "mine" });
  });

  it("creates a missing output directory", async () => {
    const { harness } = await populatedHarness();
    const outDir = path.join(tmp(), "nested", "export");
    await exportHarness({ harness, outDir });
    expect(Object.keys(readTree(outDir))).toContain("harness_state.json");
  });
});

describe("export → import round trip", () => {
  it("reproduces the entries, unknown fields included, and exports byte-identical files", async () => {
    const { harness } = await populatedHarness();
    const firstDir = tmp();
    await exportHarness({ harness, outDir: firstDir, refinements: refinementRecords });

    const fresh = testHarness({ storage: new InMemoryHarnessStorage(), workspaceId: "ws-2" });
    const history = new InMemoryRefinementHistory();
    const report = await importHarness({
      harness: fresh,
      dir: firstDir,
      refinementHistory: history,
    });
    expect(report).toMatchObject({ created: 5, updated: 0, unchanged: 0, skipped: [] });
    expect(report.refinements).toMatchObject({ imported: 2, duplicates: 0, malformed: 0 });

    const before = (await globalEntries(harness)).map(entryContent);
    const after = await globalEntries(fresh);
    expect(after.map(entryContent)).toEqual(before);
    expect(after.every((entry) => entry.source === "import")).toBe(true);
    const skill = after.find((entry) => entry.kind === "skill")!;
    expect(skill.metadata).toMatchObject({
      reference: { type: "python", callable: "summarize" },
      arguments: { limit: { default: 10 } },
      extraFrontmatter: { license: "MIT", metadata: { author: "data-team" } },
      owner: "data-team",
    });

    const secondDir = tmp();
    await exportHarness({ harness: fresh, outDir: secondDir, refinements: history.list() });
    expect(readTree(secondDir)).toEqual(readTree(firstDir));
  });

  it("writes Cairn's own bookkeeping again once an imported entry is edited", async () => {
    const { harness } = await populatedHarness();
    const firstDir = tmp();
    await exportHarness({ harness, outDir: firstDir });
    const fresh = testHarness({ storage: new InMemoryHarnessStorage(), workspaceId: "ws-2" });
    await importHarness({ harness: fresh, dir: firstDir });
    const prompt = (await globalEntries(fresh)).find((entry) => entry.kind === "prompt")!;
    await fresh.updateEntry({
      kind: "prompt",
      id: prompt.id,
      global: true,
      expectedVersion: prompt.version,
      content: "Edited.",
    });

    const secondDir = tmp();
    await exportHarness({ harness: fresh, outDir: secondDir });
    const state = JSON.parse(readFileSync(path.join(secondDir, "harness_state.json"), "utf8")) as {
      entries: { prompt: Record<string, { version: number; source: string; content: string }> };
    };
    expect(state.entries.prompt[prompt.id]).toMatchObject({
      version: 2,
      source: "user",
      content: "Edited.",
    });
  });

  it("round-trips entries whose files were hand-edited into a nested layout", async () => {
    const { harness } = await populatedHarness();
    const dir = tmp();
    await exportHarness({ harness, outDir: dir });
    mkdirSync(path.join(dir, "skills", "extra"), { recursive: true });
    writeFileSync(
      path.join(dir, "skills", "extra", "SKILL.md"),
      "---\nname: extra\ndescription: >\n  Added by hand,\n  folded.\n---\nBody.\n",
    );
    const fresh = testHarness({ storage: new InMemoryHarnessStorage(), workspaceId: "ws-2" });
    const report = await importHarness({ harness: fresh, dir });
    expect(report.created).toBe(6);
    const extra = await fresh.getEntryOrThrow({ kind: "skill", id: "extra", scope: "global" });
    expect(extra).toMatchObject({
      title: "extra",
      content: "Body.",
      metadata: { name: "extra", description: "Added by hand, folded." },
    });
  });
});
