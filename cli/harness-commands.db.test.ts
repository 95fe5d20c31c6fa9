import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "@/lib/config";
import { registerTestDatabase, testDatabaseProvider } from "@/lib/db/testing";
import { createHarness } from "@/lib/harness";
import { entryContent, readTree } from "@/lib/harness/testing";
import { harnessStorageFor } from "@/lib/sql-storage";
import { exportCommand, importCommand } from "./harness-commands";
import { capture } from "./testing";

describe(`cairn export / import (${testDatabaseProvider()})`, () => {
  const database = registerTestDatabase();
  let scratch: string;
  // The commands get the configuration `main` parses; here, one naming the test's database.
  const cliConfig = () => loadConfig({ DATABASE_URL: database.target.url });

  const harnessOf = (workspaceId: string) =>
    createHarness({
      storage: harnessStorageFor({ target: database.target }),
      actor: { userId: "test", workspaceId, role: "admin" },
      chatId: null,
    });

  beforeAll(async () => {
    scratch = mkdtempSync(path.join(tmpdir(), "cairn-cli-harness-"));
    // Harness rows reference a workspace row: create the workspaces first.
    const source = await database.db.workspace.create({ data: { name: "Source" } });
    await database.db.workspace.create({ data: { name: "Target" } });
    const harness = harnessOf(source.id);
    await harness.createEntry({
      kind: "memory",
      global: true,
      title: "Build steps",
      content: "Run `make clean` first.",
      path: "project-x/build",
      metadata: { confidence: "high" },
    });
    await harness.createSkill({
      global: true,
      name: "csv-summary",
      description: "Summarise a CSV: columns and types",
      body: "# CSV\n\nCall summarize().\n",
      metadata: {
        reference: { type: "python", import: "skills.csv", callable: "summarize" },
        arguments: { path: { type: "string", required: true } },
        extraFrontmatter: { license: "MIT" },
      },
    });
    await harness.createSubagent({
      global: true,
      name: "reviewer",
      description: "Reviews diffs",
      tools: ["Read", "Grep"],
      model: "sonnet",
      instructions: "Review carefully.",
    });
  });
  afterAll(async () => {
    rmSync(scratch, { recursive: true, force: true });
  });

  it("exports a workspace and imports it into another, twice without duplicates", async () => {
    const firstDir = path.join(scratch, "first");
    const exported = capture();
    expect(
      await exportCommand(["--workspace", "Source", "--out", firstDir], exported.io, cliConfig()),
    ).toBe(0);
    expect(exported.out.join("\n")).toContain(
      'exported 0 prompt, 1 memory, 1 skill, 1 subagent from workspace "Source"',
    );
    expect(Object.keys(readTree(firstDir))).toEqual([
      "harness_state.json",
      "refinements.jsonl",
      "skills/csv-summary/SKILL.md",
      "subagents/reviewer.md",
    ]);

    const imported = capture();
    expect(await importCommand(["--workspace", "Target", firstDir], imported.io, cliConfig())).toBe(
      0,
    );
    expect(imported.out[0]).toContain("3 created, 0 updated, 0 unchanged, 0 skipped");

    const again = capture();
    expect(await importCommand(["--workspace", "Target", firstDir], again.io, cliConfig())).toBe(0);
    expect(again.out[0]).toContain("0 created, 0 updated, 3 unchanged");

    const source = await database.db.workspace.findUniqueOrThrow({ where: { name: "Source" } });
    const target = await database.db.workspace.findUniqueOrThrow({ where: { name: "Target" } });
    const sourceEntries = (await harnessOf(source.id).snapshot()).entries;
    const targetEntries = (await harnessOf(target.id).snapshot()).entries;
    expect(targetEntries.map(entryContent)).toEqual(sourceEntries.map(entryContent));
    expect(await database.db.harnessEntry.count({ where: { workspaceId: target.id } })).toBe(3);
    const revisions = await database.db.harnessRevision.findMany({
      where: { workspaceId: target.id },
    });
    expect(revisions.map((revision) => revision.cause)).toEqual(["import", "import", "import"]);

    const secondDir = path.join(scratch, "second");
    expect(
      await exportCommand(["--workspace", "Target", "--out", secondDir], capture().io, cliConfig()),
    ).toBe(0);
    expect(readTree(secondDir)).toEqual(readTree(firstDir));
  });

  it("stores imported refinement history once and writes it back on export", async () => {
    const dir = path.join(scratch, "with-history");
    expect(
      await exportCommand(["--workspace", "Source", "--out", dir], capture().io, cliConfig()),
    ).toBe(0);
    const lines = [
      JSON.stringify({
        id: "ref-1",
        summary: "Learned the build order",
        appliedEdits: [],
        rationale: "seen twice",
      }),
      "{ this is not json",
      JSON.stringify({ id: "ref-2", summary: "Tightened the reviewer", appliedEdits: [] }),
    ];
    writeFileSync(path.join(dir, "refinements.jsonl"), `${lines.join("\n")}\n`);
    await database.db.workspace.create({ data: { name: "History" } });

    const first = capture();
    expect(await importCommand(["--workspace", "History", dir], first.io, cliConfig())).toBe(0);
    expect(first.out[1]).toContain("2 read, 0 duplicate(s), 1 malformed line(s) skipped");
    const second = capture();
    expect(await importCommand(["--workspace", "History", dir], second.io, cliConfig())).toBe(0);
    expect(second.out[1]).toContain("2 duplicate(s)");

    const workspace = await database.db.workspace.findUniqueOrThrow({ where: { name: "History" } });
    const rows = await database.db.refinement.findMany({ where: { workspaceId: workspace.id } });
    expect(rows.map((row) => [row.status, row.summary]).sort()).toEqual([
      ["imported", "Learned the build order"],
      ["imported", "Tightened the reviewer"],
    ]);

    const out = path.join(scratch, "history-out");
    expect(
      await exportCommand(["--workspace", "History", "--out", out], capture().io, cliConfig()),
    ).toBe(0);
    const written = readFileSync(path.join(out, "refinements.jsonl"), "utf8").trim().split("\n");
    expect(written.map((line) => (JSON.parse(line) as { id: string }).id)).toEqual([
      "ref-1",
      "ref-2",
    ]);
  });

  it("exits 1 with a clear message for an unknown workspace", async () => {
    const { io, err } = capture();
    expect(
      await exportCommand(
        ["--workspace", "Nope", "--out", path.join(scratch, "x")],
        io,
        cliConfig(),
      ),
    ).toBe(1);
    expect(err.join("\n")).toContain('no workspace named "Nope"');
    const second = capture();
    expect(await importCommand(["--workspace", "Nope", scratch], second.io, cliConfig())).toBe(1);
    expect(second.err.join("\n")).toContain('no workspace named "Nope"');
  });

  it("exits 1 when the core refuses: a non-empty output directory, a directory without an export", async () => {
    const first = capture();
    expect(
      await exportCommand(
        ["--workspace", "Source", "--out", path.join(scratch, "first")],
        first.io,
        cliConfig(),
      ),
    ).toBe(1);
    expect(first.err.join("\n")).toContain("is not empty");
    const empty = mkdtempSync(path.join(scratch, "empty-"));
    const second = capture();
    expect(await importCommand(["--workspace", "Target", empty], second.io, cliConfig())).toBe(1);
    expect(second.err.join("\n")).toContain("holds no harness export");
  });

  // Issue 14 finding 14: a malformed `entries` structure exited 0 reporting "0 created".
  it("exits 1 naming the problem when harness_state.json's entries are malformed", async () => {
    const dir = mkdtempSync(path.join(scratch, "malformed-"));
    writeFileSync(
      path.join(dir, "harness_state.json"),
      JSON.stringify({ schema: 1, entries: [{ kind: "memory", title: "A", content: "x" }] }),
    );
    const run = capture();
    expect(await importCommand(["--workspace", "Target", dir], run.io, cliConfig())).toBe(1);
    expect(run.err.join("\n")).toMatch(/"entries" must be an object keyed by kind.*an array/);
    expect(run.out.join("\n")).not.toContain("created");
  });

  it.each([
    [exportCommand, ["--out", "x"], "--workspace is required"],
    [exportCommand, ["--workspace", "Source"], "--out is required"],
    [exportCommand, ["--workspace", "Source", "--out", "x", "--bogus"], "Unknown option"],
    [importCommand, ["--workspace", "Target"], "exactly one directory"],
    [importCommand, ["--workspace", "Target", "a", "b"], "exactly one directory"],
    [importCommand, ["dir"], "--workspace is required"],
  ])("exits 2 on bad arguments (%#)", async (command, argv, message) => {
    const { io, err } = capture();
    expect(await command(argv, io, cliConfig())).toBe(2);
    expect(err.join("\n")).toContain(message);
    expect(err.join("\n")).toContain("Usage: cairn");
  });
});
