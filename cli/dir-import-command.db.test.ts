import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { registerTestDatabase, testDatabaseProvider } from "@/lib/db/testing";
import { makeDocx, makeExecutable, makeReportPdf } from "@/lib/documents/testing";
import { listDirCommits, listDirFiles, readDirFile, sqlFor } from "@/lib/sql-storage";
import { DEFAULT_WORKSPACE_SETTINGS, saveWorkspaceSettings } from "@/lib/workspace-settings";
import { IMPORT_PART_FILES } from "./dir-import-command";
import { main } from "./main";
import { capture } from "./testing";

describe(`cairn dir import (${testDatabaseProvider()})`, () => {
  const database = registerTestDatabase();
  const previousUrl = process.env.DATABASE_URL;
  const folder = mkdtempSync(path.join(tmpdir(), "cairn-dir-import-"));

  beforeAll(async () => {
    process.env.DATABASE_URL = database.target.url;
    // A 1 MiB per-file limit, so a 2 MiB file is over it.
    process.env.CAIRN_DIR_MAX_FILE_BYTES = "1048576";
    await database.db.workspace.create({ data: { id: "w-imp", name: "Importers" } });
    await database.db.user.create({
      data: { id: "u-imp", email: "ivy@example.com", name: "Ivy" },
    });
    await database.db.membership.create({
      data: { userId: "u-imp", workspaceId: "w-imp", role: "editor" },
    });
    mkdirSync(path.join(folder, "policies"), { recursive: true });
    writeFileSync(path.join(folder, "README.md"), "# Handbook\n");
    writeFileSync(path.join(folder, "policies", "travel.md"), "Book trains.\n");
    writeFileSync(path.join(folder, "logo.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1]));
    writeFileSync(path.join(folder, "huge.md"), "x".repeat(2 * 1024 * 1024));
  });
  afterAll(() => {
    process.env.DATABASE_URL = previousUrl;
    delete process.env.CAIRN_DIR_MAX_FILE_BYTES;
    rmSync(folder, { recursive: true, force: true });
  });

  it("imports the text files as one commit, lists what it skipped, and skips them all again on a second run", async () => {
    const io = capture();
    const args = ["dir", "import", folder, "--workspace", "Importers", "--dir", "company"];
    expect(await main([...args, "--prefix", "handbook"], io.io)).toBe(0);
    const out = io.out.join("\n");
    expect(out).toMatch(/2 new, 0 changed, 0 already there, 2 skipped \(version 1\)/);
    expect(out).toMatch(/skipped handbook\/logo\.png: binary/);
    expect(out).toMatch(/skipped handbook\/huge\.md: 2097152 bytes, over the per-file limit/);
    const sql = sqlFor(database.target);
    const dirKey = "company:w-imp";
    expect((await listDirFiles({ sql, dirKey })).files.map((file) => file.path)).toEqual([
      "handbook/README.md",
      "handbook/policies/travel.md",
    ]);
    expect((await readDirFile({ sql, dirKey, path: "handbook/policies/travel.md" }))?.content).toBe(
      "Book trains.\n",
    );
    const [commit] = (await listDirCommits({ sql, dirKey })).commits;
    expect(commit).toMatchObject({ source: "import", version: 1 });
    // Indexed for search in the import's own commit.
    const passages = await sql.all<{ path: string }>(
      `SELECT "path" FROM "SearchPassage" WHERE "path" = ?`,
      ["handbook/policies/travel.md"],
    );
    expect(passages.length).toBeGreaterThan(0);

    const again = capture();
    expect(await main([...args, "--prefix", "handbook"], again.io)).toBe(0);
    expect(again.out.join("\n")).toMatch(
      /0 new, 0 changed, 2 already there, 2 skipped \(version 1\)/,
    );
  });

  it("holds an import to the workspace's own dir limits, within the server's", async () => {
    const sql = sqlFor(database.target);
    await database.db.workspace.create({ data: { id: "w-small", name: "Small" } });
    const args = ["dir", "import", folder, "--workspace", "Small", "--dir", "company"];
    await saveWorkspaceSettings(sql, "w-small", {
      ...DEFAULT_WORKSPACE_SETTINGS,
      companyMaxFiles: 1,
    });
    const refused = capture();
    expect(await main(args, refused.io)).toBe(1);
    expect(refused.err.join("\n")).toMatch(
      /nothing imported: \/persistent\/company would hold 3 files and 30 bytes; its limits are 1 file and \d+ bytes \(the workspace's/,
    );
    expect((await listDirFiles({ sql, dirKey: "company:w-small" })).files).toEqual([]);

    // README.md is 11 bytes, policies/travel.md 13: the workspace's 12 bytes per file.
    await saveWorkspaceSettings(sql, "w-small", {
      ...DEFAULT_WORKSPACE_SETTINGS,
      companyMaxFileBytes: 12,
    });
    const io = capture();
    expect(await main(args, io.io)).toBe(0);
    expect(io.out.join("\n")).toMatch(
      /skipped policies\/travel\.md: 13 bytes, over the per-file limit of 12/,
    );
    expect(
      (await listDirFiles({ sql, dirKey: "company:w-small" })).files.map((file) => file.path),
    ).toEqual(["README.md"]);
  });

  it("imports into a member's memory, and refuses a person who is not a member", async () => {
    const intoMemoryOf = (email: string, io: ReturnType<typeof capture>) =>
      main(
        ["dir", "import", folder, "--workspace", "Importers", "--dir", "user", "--email", email],
        io.io,
      );
    expect(await intoMemoryOf("ivy@example.com", capture())).toBe(0);
    const files = await listDirFiles({ sql: sqlFor(database.target), dirKey: "user:u-imp" });
    expect(files.files.map((file) => file.path)).toEqual(["README.md", "policies/travel.md"]);
    const refused = capture();
    expect(await intoMemoryOf("nobody@example.com", refused)).toBe(1);
    expect(refused.err.join("\n")).toMatch(/no member nobody@example.com/);
  });

  it("converts documents as uploads do: the original kept, its Markdown beside it; a refused one skipped with its reason", async () => {
    const documents = mkdtempSync(path.join(tmpdir(), "cairn-dir-import-docs-"));
    try {
      const pdf = await makeReportPdf();
      writeFileSync(path.join(documents, "expenses.pdf"), pdf);
      writeFileSync(path.join(documents, "onboarding.docx"), await makeDocx());
      writeFileSync(path.join(documents, "rota.csv"), "Day,Task\nMonday,Standup\n");
      writeFileSync(path.join(documents, "invoice.pdf"), makeExecutable());
      const args = ["dir", "import", documents, "--workspace", "Importers", "--dir", "company"];
      const io = capture();
      expect(await main([...args, "--prefix", "docs"], io.io)).toBe(0);
      const out = io.out.join("\n");
      expect(out).toMatch(/6 new, 0 changed, 0 already there, 1 skipped/);
      expect(out).toMatch(/3 documents converted to Markdown beside their originals/);
      expect(out).toMatch(/skipped docs\/invoice\.pdf: docs\/invoice\.pdf: /);

      const sql = sqlFor(database.target);
      const dirKey = "company:w-imp";
      const paths = (await listDirFiles({ sql, dirKey })).files.map((file) => file.path);
      expect(paths.filter((file) => file.startsWith("docs/"))).toEqual([
        "docs/expenses.pdf",
        "docs/expenses.pdf.md",
        "docs/onboarding.docx",
        "docs/onboarding.docx.md",
        "docs/rota.csv",
        "docs/rota.csv.md",
      ]);
      const original = await readDirFile({ sql, dirKey, path: "docs/expenses.pdf" });
      expect(Buffer.from(original!.content as Uint8Array).equals(Buffer.from(pdf))).toBe(true);
      const markdown = await readDirFile({ sql, dirKey, path: "docs/expenses.pdf.md" });
      expect(markdown?.content).toContain("<!-- page 2 -->");
      expect(markdown?.content).toContain("| Item | Limit | Approver |");
      expect((await readDirFile({ sql, dirKey, path: "docs/rota.csv.md" }))?.content).toContain(
        "| Day | Task |",
      );

      // Run again: nothing converts twice.
      const again = capture();
      expect(await main([...args, "--prefix", "docs"], again.io)).toBe(0);
      expect(again.out.join("\n")).toMatch(/0 new, 0 changed, 3 already there, 1 skipped/);
    } finally {
      rmSync(documents, { recursive: true, force: true });
    }
  });

  it("imports a folder larger than one part in several commits, and skips all of it on a second run", async () => {
    const big = mkdtempSync(path.join(tmpdir(), "cairn-import-parts-"));
    try {
      for (let index = 0; index < IMPORT_PART_FILES + 50; index += 1) {
        const folderName = path.join(big, `f${index % 10}`);
        mkdirSync(folderName, { recursive: true });
        writeFileSync(path.join(folderName, `n${index}.md`), `note ${index}\n`);
      }
      const io = capture();
      const args = [
        "dir",
        "import",
        big,
        "--workspace",
        "Importers",
        "--dir",
        "company",
        "--prefix",
        "parts",
      ];
      expect(await main(args, io.io)).toBe(0);
      expect(io.out.join("\n")).toMatch(
        new RegExp(
          `${IMPORT_PART_FILES + 50} new, 0 changed, 0 already there, 0 skipped \\(version \\d+, in 2 commits\\)`,
        ),
      );
      const sql = sqlFor(database.target);
      const listed = await listDirFiles({ sql, dirKey: "company:w-imp" });
      expect(listed.files.filter((file) => file.path.startsWith("parts/"))).toHaveLength(
        IMPORT_PART_FILES + 50,
      );
      const again = capture();
      expect(await main(args, again.io)).toBe(0);
      expect(again.out.join("\n")).toMatch(
        new RegExp(`0 new, 0 changed, ${IMPORT_PART_FILES + 50} already there`),
      );
    } finally {
      rmSync(big, { recursive: true, force: true });
    }
  });

  it("round-trips through a folder: dir export writes a dir's files byte for byte, dir import reads them back", async () => {
    const out = mkdtempSync(path.join(tmpdir(), "cairn-dir-export-"));
    const back = path.join(out, "back");
    try {
      const sql = sqlFor(database.target);
      const dirKey = "company:w-imp";
      const company = ["--workspace", "Importers", "--dir", "company"];
      const exported = capture();
      expect(await main(["dir", "export", back, ...company, "--prefix", "docs"], exported.io)).toBe(
        0,
      );
      expect(exported.out.join("\n")).toMatch(
        /exported 6 files \(\d+ bytes\) of \/persistent\/company\/docs of "Importers" at version \d+/,
      );
      // Every file byte for byte, binary originals included, the prefix left out.
      for (const file of (await listDirFiles({ sql, dirKey })).files) {
        if (!file.path.startsWith("docs/")) continue;
        const stored = await readDirFile({ sql, dirKey, path: file.path });
        const expected =
          typeof stored!.content === "string"
            ? Buffer.from(stored!.content, "utf8")
            : Buffer.from(stored!.content);
        expect(readFileSync(path.join(back, file.path.slice("docs/".length)))).toEqual(expected);
      }
      // Nothing is overwritten: a folder that is not empty is refused.
      const again = capture();
      expect(await main(["dir", "export", back, ...company], again.io)).toBe(1);
      expect(again.err.join("\n")).toMatch(/is not empty/);

      // Back in under the same prefix: every file is already there with the same content.
      const handbook = path.join(out, "handbook");
      expect(
        await main(["dir", "export", handbook, ...company, "--prefix", "handbook"], capture().io),
      ).toBe(0);
      const reimported = capture();
      expect(
        await main(["dir", "import", handbook, ...company, "--prefix", "handbook"], reimported.io),
      ).toBe(0);
      expect(reimported.out.join("\n")).toMatch(/0 new, 0 changed, 2 already there, 0 skipped/);
      // And into a member's memory: the same files, the same bytes.
      const mine = capture();
      expect(
        await main(
          [
            "dir",
            "import",
            handbook,
            "--workspace",
            "Importers",
            "--dir",
            "user",
            "--email",
            "ivy@example.com",
            "--prefix",
            "from-company",
          ],
          mine.io,
        ),
      ).toBe(0);
      expect(
        (await readDirFile({ sql, dirKey: "user:u-imp", path: "from-company/policies/travel.md" }))
          ?.content,
      ).toBe("Book trains.\n");
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
