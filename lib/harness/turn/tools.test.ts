import { describe, expect, it } from "vitest";
import { notesAndHandbookCheckout as checkout } from "./internal/testing";
import { createInMemoryDirBacking, loadCheckout, type Checkout } from "../persistent";
import { formatDirectoryListing, runMemoryCommand } from "./memory-tool";
import { runShellCommand } from "./shell-tool";

describe("memory tool", () => {
  it("views, creates, replaces, inserts, renames and deletes in the checkout", async () => {
    const files = await checkout();
    expect(await runMemoryCommand(files, { command: "view", path: "/persistent" })).toContain(
      "17 B\t/persistent/company/ (read-only, 1 file)",
    );
    expect(
      await runMemoryCommand(files, {
        command: "view",
        path: "/persistent/user/notes.md",
        view_range: [2, 3],
      }),
    ).toBe(
      '<untrusted-data source="/persistent/user/notes.md">\n     2\ttwo\n     3\tthree\n</untrusted-data>',
    );
    expect(
      await runMemoryCommand(files, {
        command: "create",
        path: "/persistent/user/a.md",
        file_text: "alpha",
      }),
    ).toBe("Created /persistent/user/a.md.");
    expect(
      await runMemoryCommand(files, {
        command: "str_replace",
        path: "/persistent/user/a.md",
        old_str: "alpha",
        new_str: "beta",
      }),
    ).toBe("Edited /persistent/user/a.md.");
    expect(
      await runMemoryCommand(files, {
        command: "insert",
        path: "/persistent/user/notes.md",
        insert_line: 1,
        insert_text: "one and a half",
      }),
    ).toContain("after line 1");
    expect(await files.readFile({ path: "/persistent/user/notes.md" })).toBe(
      "one\none and a half\ntwo\nthree",
    );
    expect(
      await runMemoryCommand(files, {
        command: "rename",
        old_path: "/persistent/user/a.md",
        new_path: "/persistent/user/b.md",
      }),
    ).toContain("Renamed");
    expect(await files.readFile({ path: "/persistent/user/b.md" })).toBe("beta");
    expect(
      await runMemoryCommand(files, { command: "delete", path: "/persistent/user/b.md" }),
    ).toBe("Deleted /persistent/user/b.md.");
  });

  it("returns errors the model can act on instead of throwing", async () => {
    const files = await checkout();
    expect(
      await runMemoryCommand(files, {
        command: "create",
        path: "/persistent/company/x.md",
        file_text: "x",
      }),
    ).toMatch(/^Error: .*read-only/i);
    expect(
      await runMemoryCommand(files, {
        command: "create",
        path: "/persistent/user/../company/x.md",
        file_text: "x",
      }),
    ).toMatch(/^Error:/);
    expect(
      await runMemoryCommand(files, { command: "create", path: "/etc/passwd", file_text: "x" }),
    ).toMatch(/^Error:/);
    expect(
      await runMemoryCommand(files, {
        command: "str_replace",
        path: "/persistent/user/notes.md",
        old_str: "missing",
        new_str: "",
      }),
    ).toMatch(/not found/);
    expect(
      await runMemoryCommand(files, { command: "view", path: "/persistent/user/nope.md" }),
    ).toMatch(/^Error: .*does not exist/);
    expect(files.diff().every((dir) => dir.changes.created.length === 0)).toBe(true);
  });
});

describe("directory listings", () => {
  async function nested(): Promise<Checkout> {
    const files: Record<string, string> = { "top.md": "t", "a/b/c/deep.md": "deep" };
    for (let index = 0; index < 30; index++)
      files[`many/f${String(index).padStart(2, "0")}.md`] = "x";
    return loadCheckout({
      dirs: [
        { harnessDir: "/persistent/team/alpha", ...createInMemoryDirBacking({ files }) },
        {
          harnessDir: "/persistent/team/beta",
          commit: "read-only",
          ...createInMemoryDirBacking({ files: { "readme.md": "hi" } }),
        },
      ],
      extraBody: {},
      session: {},
    });
  }

  it("lists two levels deep in tree order, folders with counts, deeper files counted", async () => {
    const files = await nested();
    const listing = files.getDirectoryListing({ path: "/persistent/team/alpha/" })!;
    expect(listing).toMatchObject({
      path: "/persistent/team/alpha",
      kind: "dir",
      fileCount: 32,
      bytes: 35,
      omitted: 0,
      dir: { harnessDir: "/persistent/team/alpha", readOnly: false, mode: "after-turn" },
    });
    const paths = listing.entries.map((entry) => `${entry.depth} ${entry.type} ${entry.path}`);
    expect(paths.slice(0, 3)).toEqual([
      "1 folder /persistent/team/alpha/a",
      "2 folder /persistent/team/alpha/a/b",
      "1 folder /persistent/team/alpha/many",
    ]);
    expect(paths.at(-1)).toBe("1 file /persistent/team/alpha/top.md");
    expect(listing.entries).toContainEqual(
      expect.objectContaining({ path: "/persistent/team/alpha/a/b", fileCount: 1, bytes: 4 }),
    );
    expect(paths).not.toContain("3 folder /persistent/team/alpha/a/b/c");
  });

  it("keeps the shallow levels when entries must be left out, and says so", async () => {
    const files = await nested();
    const listing = files.getDirectoryListing({ path: "/persistent/team/alpha", maxEntries: 5 })!;
    expect(listing.omitted).toBe(29);
    expect(listing.entries.filter((entry) => entry.depth === 1)).toHaveLength(3);
    expect(formatDirectoryListing(listing)).toMatch(
      /… 29 more entries not shown; view a subfolder/,
    );
  });

  it("lists a folder that holds dirs, a folder inside a dir, and nothing for files or absent paths", async () => {
    const files = await nested();
    const team = files.getDirectoryListing({ path: "/persistent/team" })!;
    expect(team.kind).toBe("root");
    expect(team.entries.filter((entry) => entry.type === "dir")).toEqual([
      expect.objectContaining({ path: "/persistent/team/alpha", readOnly: false, fileCount: 32 }),
      expect.objectContaining({ path: "/persistent/team/beta", readOnly: true, fileCount: 1 }),
    ]);
    expect(files.getDirectoryListing({ path: "/persistent/team/alpha/many" })).toMatchObject({
      kind: "folder",
      fileCount: 30,
    });
    expect(files.getDirectoryListing({ path: "/persistent/team/alpha/top.md" })).toBeNull();
    expect(files.getDirectoryListing({ path: "/persistent/team/alpha/none" })).toBeNull();
    expect(() => files.getDirectoryListing({ path: "/persistent/team/alpha/../beta" })).toThrow(
      /"\.\." segment/,
    );
    expect(() => files.getDirectoryListing({ path: "/etc" })).toThrow(/No persistent dir/);
    expect(await runMemoryCommand(files, { command: "view", path: "/persistent/team/beta" })).toBe(
      '<untrusted-data source="/persistent/team/beta">\nDirectory /persistent/team/beta/ (read-only): 1 file, 2 B.\n2 B\t/persistent/team/beta/readme.md\n</untrusted-data>',
    );
  });
});

describe("shell tool", () => {
  it("runs commands over the checkout and applies writable changes", async () => {
    const files = await checkout();
    const output = await runShellCommand({
      checkout: files,
      command: "grep -r Fridays /persistent && echo hello > /persistent/user/hello.md",
    });
    expect(output).toContain("exit code 0");
    expect(output).toContain("/persistent/company/handbook.md:Deploy on Fridays");
    expect(await files.readFile({ path: "/persistent/user/hello.md" })).toBe("hello\n");
  });

  it("refuses changes under a read-only dir and outside /persistent leaves no trace", async () => {
    const files = await checkout();
    const output = await runShellCommand({
      checkout: files,
      command:
        "rm /persistent/company/handbook.md; echo x > /tmp/x; sed -i s/one/ONE/ /persistent/user/notes.md",
    });
    expect(output).toMatch(/refused[\s\S]*handbook\.md/);
    expect(await files.readFile({ path: "/persistent/company/handbook.md" })).toBe(
      "Deploy on Fridays",
    );
    // Whole or not at all: the allowed edit in the same command is not kept either.
    expect(output).toContain("none of this command's 2 file changes were kept");
    expect(await files.readFile({ path: "/persistent/user/notes.md" })).toBe("one\ntwo\nthree");
    expect(files.listFiles().map((file) => file.path)).not.toContain("/tmp/x");
  });
});
