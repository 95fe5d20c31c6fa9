import { describe, expect, it } from "vitest";

import { createInMemoryDirBacking, loadCheckout, type FileMap } from "../../persistent";
import { summarizeDirForPrompt } from "./dir-summary";

async function summaryOf(files: FileMap, query = "") {
  const checkout = await loadCheckout({
    dirs: [
      {
        harnessDir: "/persistent/company",
        ...createInMemoryDirBacking({ files }),
        limits: { maxFiles: 100_000 },
      },
    ],
    extraBody: null,
    session: null,
  });
  const [dir] = checkout.listDirs();
  return summarizeDirForPrompt({ checkout, dir: dir!, query });
}

describe("summarizeDirForPrompt", () => {
  it("counts files and folders of a large dir and names its top level, never the whole tree", async () => {
    const files: FileMap = {};
    for (let index = 0; index < 3_000; index += 1) {
      files[`handbook/chapter-${index % 30}/page-${index}.md`] = "x";
    }
    for (let index = 0; index < 40; index += 1) files[`policies/policy-${index}.md`] = "y";
    files["README.md"] = "hello";
    const summary = await summaryOf(files, "what is the travel policy-7 rule?");
    const lines = summary.split("\n");
    expect(lines[0]).toBe("- /persistent/company: writable — 3,041 files in 32 folders, 3 KiB");
    expect(lines[1]).toBe("  top level: handbook/ (3,000 files), policies/ (40 files), README.md");
    expect(lines[2]).toMatch(/^ {2}most relevant to this message: policies\/policy-7\.md, /);
    expect(summary.length).toBeLessThan(2_000);
    expect(summary).not.toContain("page-2999");
  });

  it("says 1 file and 1 folder, never '1 files'", async () => {
    const summary = await summaryOf({ "notes/a.md": "a" });
    expect(summary).toContain("1 file in 1 folder");
    expect(summary).not.toMatch(/\b1 files\b|\b1 folders\b/);
    expect(summary).toContain("notes/ (1 file)");
    // A flat dir names no folders at all ("in 0 folders" reads like a fault).
    const flat = await summaryOf({ "a.md": "a" });
    expect(flat.split("\n")[0]).toBe("- /persistent/company: writable — 1 file, 1 B");
  });

  it("says a dir is empty, and bounds a long top level with a count", async () => {
    expect(await summaryOf({})).toBe("- /persistent/company: writable — empty");
    const files: FileMap = {};
    for (let index = 0; index < 50; index += 1) files[`folder-${index}/a.md`] = "a";
    const summary = await summaryOf(files);
    expect(summary).toMatch(/top level: .*, and 38 more$/m);
  });
});
