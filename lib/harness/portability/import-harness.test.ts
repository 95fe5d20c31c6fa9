// Over 500 lines, knowingly: one case per rule of the import pipeline (hostile paths, limits,
// front matter, conflicts), sharing its fixtures.
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { HarnessError } from "../errors";
import { InMemoryHarnessStorage } from "../store/in-memory-storage";
import { exportHarness } from "./export-harness";
import { importHarness } from "./import-harness";
import { joinInside } from "./internal/safe-fs";
import {
  entryContent,
  globalEntries,
  globalEntry,
  globalHistory,
  readTree,
  registerTemporaryDirectories,
  testHarness,
} from "./internal/testing";
import { InMemoryRefinementHistory } from "./refinement-history";

const tmp = registerTemporaryDirectories();

function write(dir: string, relative: string, content: string): void {
  mkdirSync(path.dirname(path.join(dir, relative)), { recursive: true });
  writeFileSync(path.join(dir, relative), content);
}

const primeEntry = (fields: Record<string, unknown>) => ({
  path: "general",
  scope: "global",
  reference: {},
  arguments: {},
  metadata: {},
  source: "refine",
  created_at: "2025-11-02T10:00:00.000Z",
  updated_at: "2025-11-03T10:00:00.000Z",
  version: 1,
  ...fields,
});

const firstResult = {
  id: "refine-1",
  summary: "Capture the build fix",
  rationale: "Two failed builds in a row",
  expectedOutcome: "Builds start clean",
  appliedEdits: [
    {
      action: "create",
      kind: "memory",
      id: "Project-X Build",
      title: "Project-X build",
      content: "Run make clean first.",
      applied: true,
    },
  ],
  harnessStatePath: "/home/agent/.prime/harness/snapshots/1/harness_state.json",
  scope: "global",
};

/** A harness directory as Prime Agent writes it, plus hand-made Agent Skills / Claude Code files. */
function writePrimeAgentFixture(dir: string): void {
  const state = {
    schema: 1,
    entries: {
      prompt: {
        base_system_prompt: primeEntry({
          id: "base_system_prompt",
          kind: "prompt",
          title: "Base",
          content: "You are…",
        }),
        prefer_rg: primeEntry({
          id: "prefer_rg",
          kind: "prompt",
          title: "Prefer rg",
          content: "Use `rg` instead of `grep -r`.",
          path: "policy",
          metadata: { scope: "global" },
          version: 2,
        }),
      },
      memory: {
        "Project-X Build": primeEntry({
          id: "Project-X Build",
          kind: "memory",
          title: "Project-X build\nsteps",
          content: "Run `make clean` before `make`.",
          path: "project x/build",
          metadata: { confidence: "high", evidence: ["turn 12", "turn 15"] },
          review_after: "2026-06-01",
          provenance: { origin: "manual", note: "kept verbatim" },
        }),
        session_note: primeEntry({
          id: "session_note",
          kind: "memory",
          title: "Now",
          content: "WIP",
          scope: "local",
        }),
        broken: "not an object",
      },
      skill: {
        csv_summary: primeEntry({
          id: "csv_summary",
          kind: "skill",
          title: "CSV summary",
          content: "Summarise a CSV (state copy).",
          path: "data",
          reference: { type: "python", import: "skills.csv_summary", callable: "summarize" },
          arguments: { path: { type: "string", required: true } },
        }),
      },
      subagent: {
        researcher: primeEntry({
          id: "researcher",
          kind: "subagent",
          title: "Researcher",
          content: "You research a question and reply with sources.",
          metadata: { tools: ["web_search", "read_url"], model: "gpt-5-mini", temperature: 0.2 },
        }),
      },
      tool: { x: {} },
    },
    refinements: [
      {
        id: "evt-1",
        trigger: "turn_interval",
        changes: ["create memory:Project-X Build"],
        evidence: "turn 12",
        outcome: "",
        created_at: "2025-11-02T10:00:00.000Z",
      },
      "garbage",
    ],
  };
  write(dir, "harness_state.json", `${JSON.stringify(state, null, 2)}\n`);
  write(
    dir,
    "skills/csv_summary/SKILL.md",
    [
      "---",
      "name: csv_summary",
      "description: >-",
      "  Summarise a CSV file: columns, types, outliers.",
      "  Use when a CSV is mentioned.",
      "reference:",
      "  type: python",
      "  import: skills.csv_summary",
      "  callable: summarize",
      "  call_pattern: await summarize(path=..., limit=10)",
      "arguments:",
      "  path:",
      "    type: string",
      "    required: true",
      "    description: Path to the CSV",
      "  limit: {type: integer, default: 10}",
      "license: Apache-2.0",
      "---",
      "",
      "# CSV summary",
      "",
      "```python",
      "await summarize(path='data.csv')",
      "```",
      "",
    ].join("\n"),
  );
  write(dir, "skills/csv_summary/scripts/summarize.py", "def summarize(path): ...\n");
  write(
    dir,
    "skills/pdf-tools/SKILL.md",
    "---\nname: pdf-tools\ndescription: 'Extract text from PDFs; it''s fast'\nallowed-tools: [Read, Bash]\nmetadata:\n  author: docs-team\n---\nUse pdftotext.\n",
  );
  write(
    dir,
    "subagents/code-reviewer.md",
    "---\nname: code-reviewer\ndescription: Expert reviewer. Use PROACTIVELY after code changes.\ntools: Read, Grep, Glob\nmodel: sonnet\ncolor: red\n---\n\nYou are a senior reviewer.\n",
  );
  write(dir, "subagents/notes.txt", "not an agent\n");
  write(
    dir,
    "refinements.jsonl",
    [
      JSON.stringify(firstResult),
      "{not json",
      "",
      JSON.stringify({
        id: "refine-2",
        summary: "Rollback",
        appliedEdits: [],
        harnessStatePath: "/x",
        rollbackOf: "refine-1",
      }),
      JSON.stringify({ foo: 1 }),
      JSON.stringify(firstResult),
      JSON.stringify({ summary: "no id", appliedEdits: [] }),
      "",
    ].join("\n"),
  );
}

/** A fresh directory of Prime Agent's files, and an empty harness and history to import them into. */
function primeAgentImport() {
  const dir = tmp();
  writePrimeAgentFixture(dir);
  return { dir, harness: testHarness({}), history: new InMemoryRefinementHistory() };
}

describe("importHarness: files written by Prime Agent", () => {
  it("imports entries, keeps unknown fields, skips what Cairn does not hold and reports it", async () => {
    const { dir, harness, history } = primeAgentImport();
    const report = await importHarness({ harness, dir, refinementHistory: history });

    expect(report).toMatchObject({ created: 6, updated: 0, unchanged: 0, harnessVersion: 1 });
    expect(report.entries.map((entry) => `${entry.kind}:${entry.id}`)).toEqual([
      "prompt:prefer_rg",
      "memory:project-x-build",
      "skill:csv_summary",
      "skill:pdf-tools",
      "subagent:researcher",
      "subagent:code-reviewer",
    ]);
    expect(report.skipped).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          file: "harness_state.json",
          kind: "prompt",
          id: "base_system_prompt",
        }),
        expect.objectContaining({ file: "harness_state.json", kind: "memory", id: "session_note" }),
        expect.objectContaining({ file: "harness_state.json", kind: "memory", id: "broken" }),
        expect.objectContaining({
          file: "harness_state.json",
          reason: 'unknown entry kind "tool"',
        }),
        expect.objectContaining({
          file: "skills/csv_summary/",
          reason: expect.stringContaining("1 file(s)"),
        }),
        expect.objectContaining({ file: "subagents/notes.txt" }),
      ]),
    );
    expect(report.skipped).toHaveLength(6);
    expect(report.refinements).toMatchObject({ imported: 4, duplicates: 1, malformed: 3 });
    expect(report.refinements.records.map((record) => record.key)).toEqual([
      "event:evt-1",
      "result:refine-1",
      "result:refine-2",
      expect.stringMatching(/^result:sha256:[0-9a-f]{64}$/),
    ]);
    expect(history.list()).toEqual(report.refinements.records);

    expect(await globalEntry(harness, "memory", "project-x-build")).toMatchObject({
      title: "Project-X build steps",
      path: "project-x/build",
      source: "import",
      metadata: {
        confidence: "high",
        evidence: ["turn 12", "turn 15"],
        extraFields: {
          review_after: "2026-06-01",
          provenance: { origin: "manual", note: "kept verbatim" },
        },
        importedFields: {
          id: "Project-X Build",
          title: "Project-X build\nsteps",
          path: "project x/build",
          source: "refine",
          version: 1,
        },
      },
    });
    const history0 = await globalHistory(harness, "memory", "project-x-build");
    expect(history0).toMatchObject([{ action: "create", cause: "import" }]);

    expect(await globalEntry(harness, "skill", "csv_summary")).toMatchObject({
      title: "CSV summary",
      path: "data",
      // The SKILL.md body wins over the state's copy: it is the form people edit.
      content: "# CSV summary\n\n```python\nawait summarize(path='data.csv')\n```",
      metadata: {
        name: "csv_summary",
        description: "Summarise a CSV file: columns, types, outliers. Use when a CSV is mentioned.",
        reference: { type: "python", call_pattern: "await summarize(path=..., limit=10)" },
        arguments: { path: { required: true }, limit: { type: "integer", default: 10 } },
        extraFrontmatter: { license: "Apache-2.0" },
      },
    });
    const pdf = await globalEntry(harness, "skill", "pdf-tools");
    expect(pdf.metadata).toMatchObject({
      description: "Extract text from PDFs; it's fast",
      extraFrontmatter: { "allowed-tools": ["Read", "Bash"], metadata: { author: "docs-team" } },
    });
    const researcher = await globalEntry(harness, "subagent", "researcher");
    expect(researcher.metadata).toMatchObject({
      name: "Researcher",
      description: "Researcher",
      tools: ["web_search", "read_url"],
      model: "gpt-5-mini",
      temperature: 0.2,
    });
    const reviewer = await globalEntry(harness, "subagent", "code-reviewer");
    expect(reviewer).toMatchObject({
      content: "You are a senior reviewer.",
      metadata: {
        tools: ["Read", "Grep", "Glob"],
        model: "sonnet",
        extraFrontmatter: { color: "red" },
      },
    });
  });

  it("writes Prime Agent's fields back on export, and re-imports to the same entries", async () => {
    const { dir, harness, history } = primeAgentImport();
    await importHarness({ harness, dir, refinementHistory: history });

    const outDir = tmp();
    await exportHarness({ harness, outDir, refinements: history.list() });
    const state = JSON.parse(readFileSync(path.join(outDir, "harness_state.json"), "utf8")) as {
      entries: Record<string, Record<string, Record<string, unknown>>>;
      refinements: unknown[];
    };
    // Prime Agent gets its own id, spelling and bookkeeping back for an entry nobody edited.
    expect(state.entries.memory!["Project-X Build"]).toEqual({
      id: "Project-X Build",
      kind: "memory",
      title: "Project-X build\nsteps",
      content: "Run `make clean` before `make`.",
      path: "project x/build",
      scope: "global",
      reference: {},
      arguments: {},
      metadata: { confidence: "high", evidence: ["turn 12", "turn 15"] },
      source: "refine",
      created_at: "2025-11-02T10:00:00.000Z",
      updated_at: "2025-11-03T10:00:00.000Z",
      version: 1,
      pinned: false,
      review_after: "2026-06-01",
      provenance: { origin: "manual", note: "kept verbatim" },
    });
    expect(state.entries.skill!.csv_summary).toMatchObject({
      reference: {
        type: "python",
        import: "skills.csv_summary",
        callable: "summarize",
        call_pattern: "await summarize(path=..., limit=10)",
      },
      arguments: { path: { type: "string", required: true, description: "Path to the CSV" } },
    });
    expect(state.refinements).toEqual([expect.objectContaining({ id: "evt-1" })]);
    const skillFile = readFileSync(path.join(outDir, "skills/csv_summary/SKILL.md"), "utf8");
    expect(skillFile).toContain("reference:\n  type: python\n");
    expect(skillFile).toContain("arguments:\n  path:\n");
    expect(skillFile).toContain("license: Apache-2.0\n");
    expect(readFileSync(path.join(outDir, "subagents/code-reviewer.md"), "utf8")).toContain(
      "tools: Read, Grep, Glob\nmodel: sonnet\ncolor: red\n",
    );
    expect(
      readFileSync(path.join(outDir, "refinements.jsonl"), "utf8").trimEnd().split("\n"),
    ).toHaveLength(3);

    const again = testHarness({ storage: new InMemoryHarnessStorage(), workspaceId: "ws-2" });
    await importHarness({ harness: again, dir: outDir });
    const before = await globalEntries(harness);
    const after = await globalEntries(again);
    expect(after.map(entryContent)).toEqual(before.map(entryContent));
    // Entries that came from harness_state.json keep Prime Agent's provenance through the trip.
    // (Markdown-only entries had none; the export gave them Cairn's, which the re-import records.)
    const provenance = (entries: typeof before) =>
      entries
        .filter((entry) => !["pdf-tools", "code-reviewer"].includes(entry.id))
        .map((entry) => entry.metadata.importedFields);
    expect(provenance(after)).toEqual(provenance(before));

    const secondOut = tmp();
    await exportHarness({ harness: again, outDir: secondOut, refinements: history.list() });
    expect(readTree(secondOut)).toEqual(readTree(outDir));
  });
});

describe("importHarness: idempotence", () => {
  it("changes nothing when the same files are imported twice", async () => {
    const { dir, harness, history } = primeAgentImport();
    const first = await importHarness({ harness, dir, refinementHistory: history });
    const second = await importHarness({ harness, dir, refinementHistory: history });
    expect(second).toMatchObject({
      created: 0,
      updated: 0,
      unchanged: 6,
      harnessVersion: first.harnessVersion,
    });
    expect(second.refinements).toMatchObject({ imported: 0, duplicates: 5, malformed: 3 });
    expect(history.list()).toHaveLength(4);
    expect((await globalEntries(harness)).every((entry) => entry.version === 1)).toBe(true);
  });

  it("updates only the entries whose files changed, with cause import", async () => {
    const { dir, harness } = primeAgentImport();
    await importHarness({ harness, dir });
    write(
      dir,
      "subagents/code-reviewer.md",
      "---\nname: code-reviewer\ndescription: Reviews.\ntools: Read\n---\nBe brief.\n",
    );
    const report = await importHarness({ harness, dir, reason: "Sync from Prime Agent" });
    expect(report).toMatchObject({ created: 0, updated: 1, unchanged: 5 });
    const revisions = await globalHistory(harness, "subagent", "code-reviewer");
    expect(revisions.at(-1)).toMatchObject({
      action: "update",
      cause: "import",
      reason: "Sync from Prime Agent",
    });
    expect(revisions.at(-1)!.after).toMatchObject({
      version: 2,
      content: "Be brief.",
      metadata: { tools: ["Read"] },
    });
  });

  it("leaves a workspace unchanged when it re-imports its own export", async () => {
    const harness = testHarness({});
    await harness.createEntry({
      kind: "memory",
      global: true,
      title: "Fact",
      content: "The sky is blue.",
    });
    await harness.createSkill({
      global: true,
      name: "s",
      description: "d",
      body: "b",
    });
    const outDir = tmp();
    await exportHarness({ harness, outDir });
    const report = await importHarness({ harness, dir: outDir });
    expect(report).toMatchObject({ created: 0, updated: 0, unchanged: 2, harnessVersion: 2 });
  });
});

describe("sub-agent tools", () => {
  it("round-trip names that a comma-separated list would break", async () => {
    const harness = testHarness({});
    await harness.createSubagent({
      global: true,
      name: "odd",
      description: "d",
      tools: ["Bash(a,b)", "Read"],
      instructions: "i",
    });
    const outDir = tmp();
    await exportHarness({ harness, outDir });
    expect(readFileSync(path.join(outDir, "subagents/odd.md"), "utf8")).toContain(
      "tools:\n  - Bash(a,b)\n  - Read\n",
    );
    const again = testHarness({ storage: new InMemoryHarnessStorage(), workspaceId: "ws-2" });
    await importHarness({ harness: again, dir: outDir });
    const odd = await globalEntry(again, "subagent", "odd");
    expect(odd.metadata.tools).toEqual(["Bash(a,b)", "Read"]);
  });
});

describe("importHarness: path safety and limits", () => {
  it("skips hostile names and symlinks that leave the directory, and follows links that stay inside", async () => {
    const outside = tmp();
    write(
      outside,
      "secret/SKILL.md",
      "---\nname: secret\ndescription: stolen\n---\nSECRET SKILL\n",
    );
    write(
      outside,
      "agent.md",
      "---\nname: leak\ndescription: stolen\ntools: []\n---\nSECRET AGENT\n",
    );
    write(
      outside,
      "harness_state.json",
      JSON.stringify({
        schema: 1,
        entries: { memory: { x: { title: "x", content: "SECRET STATE" } } },
      }),
    );

    const dir = tmp();
    symlinkSync(path.join(outside, "harness_state.json"), path.join(dir, "harness_state.json"));
    const good = "---\nname: ok\ndescription: fine\n---\nFine.\n";
    write(dir, "skills/..evil/SKILL.md", good);
    write(dir, "skills/.hidden/SKILL.md", good);
    write(dir, "skills/bad name/SKILL.md", good);
    write(dir, "skills/ok/SKILL.md", good);
    mkdirSync(path.join(dir, "skills", "nofile"));
    symlinkSync(path.join(outside, "secret"), path.join(dir, "skills", "escape"));
    write(dir, "skills/linked-file/placeholder.txt", "");
    symlinkSync(
      path.join(outside, "secret", "SKILL.md"),
      path.join(dir, "skills", "linked-file", "SKILL.md"),
    );
    mkdirSync(path.join(dir, "subagents"));
    symlinkSync(path.join(outside, "agent.md"), path.join(dir, "subagents", "leak.md"));
    symlinkSync("../../etc/passwd", path.join(dir, "subagents", "relative.md"));
    write(
      dir,
      "shared/agent.md",
      "---\nname: alias\ndescription: inside\ntools: Read\n---\nInside.\n",
    );
    symlinkSync("../shared/agent.md", path.join(dir, "subagents", "alias.md"));

    const harness = testHarness({});
    const report = await importHarness({ harness, dir });
    expect(report.entries.map((entry) => `${entry.kind}:${entry.id}`)).toEqual([
      "skill:ok",
      "subagent:alias",
    ]);
    const reasons = Object.fromEntries(report.skipped.map((skip) => [skip.file, skip.reason]));
    expect(reasons).toMatchObject({
      "harness_state.json": expect.stringContaining("outside"),
      "skills/..evil": expect.stringContaining("unsafe file name"),
      "skills/.hidden": expect.stringContaining("unsafe file name"),
      "skills/bad name": expect.stringContaining("unsafe file name"),
      "skills/escape": expect.stringContaining("outside"),
      "skills/nofile/": "no SKILL.md",
      "skills/linked-file/SKILL.md": expect.stringContaining("outside"),
      "subagents/leak.md": expect.stringContaining("outside"),
      "subagents/relative.md": expect.stringContaining("outside"),
    });
    const text = JSON.stringify(await globalEntries(harness));
    expect(text).not.toContain("SECRET");
  });

  it("never joins a hostile name below a directory", () => {
    for (const name of ["..", "../x", "/etc/passwd", "a/b", "a\\b", "", ".git", "x\u0000"]) {
      expect(() => joinInside("/tmp/root", [name])).toThrow(/Unsafe file name/);
    }
    expect(joinInside("/tmp/root", ["skills", "a.b-c_d", "SKILL.md"])).toBe(
      "/tmp/root/skills/a.b-c_d/SKILL.md",
    );
  });

  it("fails with a clear error, writing nothing, when a file exceeds its size limit", async () => {
    const dir = tmp();
    write(dir, "skills/small/SKILL.md", "---\nname: small\ndescription: d\n---\nok\n");
    write(
      dir,
      "skills/huge/SKILL.md",
      `---\nname: huge\ndescription: d\n---\n${"x".repeat(2000)}\n`,
    );
    const harness = testHarness({});
    const error: unknown = await importHarness({
      harness,
      dir,
      limits: { markdownFileBytes: 1024 },
    }).catch((caught: unknown) => caught);
    expect(HarnessError.isInstance(error) && error.code).toBe("validation:import");
    expect((error as Error).message).toBe(
      "skills/huge/SKILL.md is 2035 bytes; the limit is 1024 bytes",
    );
    expect(await harness.getHarnessVersion()).toBe(0);
  });

  it("fails before reading files when a directory holds more entries than allowed", async () => {
    const dir = tmp();
    write(dir, "skills/a/SKILL.md", "---\nname: a\ndescription: d\n---\nA\n");
    write(dir, "skills/b/SKILL.md", "---\nname: b\ndescription: d\n---\nB\n");
    await expect(
      importHarness({ harness: testHarness({}), dir, limits: { entries: 1 } }),
    ).rejects.toThrow("skills/ holds 2 entries; the limit is 1");
  });

  it("counts over-long refinement lines as malformed", async () => {
    const dir = tmp();
    write(
      dir,
      "refinements.jsonl",
      `${JSON.stringify({ ...firstResult, summary: "y".repeat(500) })}\n${JSON.stringify({ id: "r2", appliedEdits: [] })}\n`,
    );
    const report = await importHarness({
      harness: testHarness({}),
      dir,
      limits: { refinementLineBytes: 200 },
    });
    expect(report.refinements).toMatchObject({ imported: 1, malformed: 1 });
  });

  it("skips entries that break the store's contracts instead of failing the batch", async () => {
    const dir = tmp();
    write(dir, "skills/empty/SKILL.md", "---\nname: empty\ndescription: no body\n---\n");
    write(dir, "skills/broken/SKILL.md", "---\nname: [unclosed\n---\nbody\n");
    write(dir, "skills/fine/SKILL.md", "---\nname: fine\ndescription: d\n---\nbody\n");
    const report = await importHarness({ harness: testHarness({}), dir });
    expect(report.created).toBe(1);
    expect(report.skipped).toEqual([
      expect.objectContaining({
        file: "skills/broken/SKILL.md",
        reason: expect.stringContaining("unreadable frontmatter"),
      }),
      expect.objectContaining({
        file: "skills/empty/SKILL.md",
        reason: expect.stringContaining("content"),
      }),
    ]);
  });

  it("refuses actors who may not write global entries, and directories that hold no export", async () => {
    const dir = tmp();
    writePrimeAgentFixture(dir);
    await expect(
      importHarness({ harness: testHarness({ role: "member" }), dir }),
    ).rejects.toSatisfy(
      (error) => HarnessError.isInstance(error) && error.code === "forbidden:import",
    );
    await expect(importHarness({ harness: testHarness({}), dir: tmp() })).rejects.toThrow(
      /holds no harness export/,
    );
    await expect(
      importHarness({ harness: testHarness({}), dir: path.join(dir, "missing") }),
    ).rejects.toThrow(/is not a directory/);
    write(dir, "harness_state.json", "{ nope");
    await expect(importHarness({ harness: testHarness({}), dir })).rejects.toThrow(
      /not valid JSON/,
    );
    write(dir, "harness_state.json", JSON.stringify({ schema: 2, entries: {} }));
    await expect(importHarness({ harness: testHarness({}), dir })).rejects.toThrow(/only schema 1/);
  });

  // Issue 14 finding 14: a malformed `entries` structure was read as "no entries" and the
  // import reported "0 created".
  it.each([
    [{ schema: 1, entries: [] }, /"entries" must be an object keyed by kind .* it is an array/],
    [{ schema: 1 }, /"entries" must be an object .* it is missing/],
    [{ schema: 1, entries: "memory" }, /"entries" must be an object .* it is a string/],
    [
      { schema: 1, entries: { memory: [{ id: "a", title: "A", content: "x" }] } },
      /"entries\.memory" must be an object keyed by entry id; it is an array/,
    ],
  ])("refuses a malformed entries structure: %j", async (state, message) => {
    const dir = tmp();
    write(dir, "harness_state.json", JSON.stringify(state));
    const harness = testHarness({});
    await expect(importHarness({ harness, dir })).rejects.toSatisfy(
      (error) =>
        HarnessError.isInstance(error) &&
        error.code === "validation:import" &&
        message.test(error.message),
    );
    expect((await harness.snapshot()).entries).toEqual([]);
  });
});
