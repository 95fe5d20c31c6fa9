import { describe, expect, it } from "vitest";
import { createInMemoryDirBacking, loadCheckout, type Checkout } from "../persistent";
import { runMemoryCommand } from "./memory-tool";
import { runShellCommand } from "./shell-tool";

async function checkout(): Promise<Checkout> {
  return loadCheckout({
    dirs: [
      {
        harnessDir: "/persistent/user",
        ...createInMemoryDirBacking({ files: { "notes.md": "one\ntwo\nthree" } }),
      },
      {
        harnessDir: "/persistent/company",
        commit: "read-only",
        ...createInMemoryDirBacking({ files: { "handbook.md": "Deploy on Fridays" } }),
      },
    ],
    extraBody: {},
    session: {},
  });
}

describe("memory tool", () => {
  it("views, creates, replaces, inserts, renames and deletes in the checkout", async () => {
    const files = await checkout();
    expect(runMemoryCommand(files, { command: "view", path: "/persistent" })).toContain(
      "/persistent/company/ (read-only)",
    );
    expect(
      runMemoryCommand(files, {
        command: "view",
        path: "/persistent/user/notes.md",
        view_range: [2, 3],
      }),
    ).toBe("     2\ttwo\n     3\tthree");
    expect(
      runMemoryCommand(files, {
        command: "create",
        path: "/persistent/user/a.md",
        file_text: "alpha",
      }),
    ).toBe("Created /persistent/user/a.md.");
    expect(
      runMemoryCommand(files, {
        command: "str_replace",
        path: "/persistent/user/a.md",
        old_str: "alpha",
        new_str: "beta",
      }),
    ).toBe("Edited /persistent/user/a.md.");
    expect(
      runMemoryCommand(files, {
        command: "insert",
        path: "/persistent/user/notes.md",
        insert_line: 1,
        insert_text: "one and a half",
      }),
    ).toContain("after line 1");
    expect(files.readFile({ path: "/persistent/user/notes.md" })).toBe(
      "one\none and a half\ntwo\nthree",
    );
    expect(
      runMemoryCommand(files, {
        command: "rename",
        old_path: "/persistent/user/a.md",
        new_path: "/persistent/user/b.md",
      }),
    ).toContain("Renamed");
    expect(files.readFile({ path: "/persistent/user/b.md" })).toBe("beta");
    expect(runMemoryCommand(files, { command: "delete", path: "/persistent/user/b.md" })).toBe(
      "Deleted /persistent/user/b.md.",
    );
  });

  it("returns errors the model can act on instead of throwing", async () => {
    const files = await checkout();
    expect(
      runMemoryCommand(files, {
        command: "create",
        path: "/persistent/company/x.md",
        file_text: "x",
      }),
    ).toMatch(/^Error: .*read-only/i);
    expect(
      runMemoryCommand(files, {
        command: "create",
        path: "/persistent/user/../company/x.md",
        file_text: "x",
      }),
    ).toMatch(/^Error:/);
    expect(
      runMemoryCommand(files, { command: "create", path: "/etc/passwd", file_text: "x" }),
    ).toMatch(/^Error:/);
    expect(
      runMemoryCommand(files, {
        command: "str_replace",
        path: "/persistent/user/notes.md",
        old_str: "missing",
        new_str: "",
      }),
    ).toMatch(/not found/);
    expect(runMemoryCommand(files, { command: "view", path: "/persistent/user/nope.md" })).toMatch(
      /^Error: .*does not exist/,
    );
    expect(files.diff().every((dir) => dir.changes.created.length === 0)).toBe(true);
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
    expect(files.readFile({ path: "/persistent/user/hello.md" })).toBe("hello\n");
  });

  it("refuses changes under a read-only dir and outside /persistent leaves no trace", async () => {
    const files = await checkout();
    const output = await runShellCommand({
      checkout: files,
      command:
        "rm /persistent/company/handbook.md; echo x > /tmp/x; sed -i s/one/ONE/ /persistent/user/notes.md",
    });
    expect(output).toMatch(/refused[\s\S]*handbook\.md/);
    expect(files.readFile({ path: "/persistent/company/handbook.md" })).toBe("Deploy on Fridays");
    // Whole or not at all: the allowed edit in the same command is not kept either.
    expect(output).toContain("none of this command's 2 file changes were kept");
    expect(files.readFile({ path: "/persistent/user/notes.md" })).toBe("one\ntwo\nthree");
    expect(files.listFiles().map((file) => file.path)).not.toContain("/tmp/x");
  });
});
